"""Versions runs started from the UI: jobs on the replay jobs' pattern (a thread each, kept in memory).

A job probes the target once per revision with `inspector.versions.run_versions`;
its id is the run id, so the sessions it records carry `versions:<job id>`
and the matrix of the run (`inspector.versions.matrix_of_run`) is read from
the store like any past run's, also after the UI process has forgotten the job.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from inspector.api.replay_jobs import ReplayJobs
from inspector.capture.redact import secret_env_var
from inspector.store import get_session, iter_messages
from inspector.versions import run_versions

__all__ = ["VersionsJob", "VersionsJobs"]


@dataclass
class VersionsJob:
    """One versions run and what is known of it so far (written by its thread, read by the API)."""

    id: str
    target: list[str] | str
    revisions: list[str]
    timeout: float
    replay_session_id: int | None = None
    state: str = "running"
    phase: str = "starting"
    sessions: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    started_ns: int = field(default_factory=time.time_ns)
    ended_ns: int | None = None
    report: dict[str, Any] | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def progress(self) -> tuple[str, str, int]:
        """What a long poll watches: state, phase, sessions so far."""
        return self.state, self.phase, len(self.sessions)

    def to_json(self) -> dict[str, Any]:
        """The API's `VersionsJobOut` dict (`run` names the run whose matrix to fetch)."""
        return {
            "id": self.id,
            "run": self.id,
            "target": self.target,
            "revisions": list(self.revisions),
            "replay_session_id": self.replay_session_id,
            "state": self.state,
            "phase": self.phase,
            "sessions": dict(self.sessions),
            "error": self.error,
            "warnings": list(self.warnings),
            "started_ns": self.started_ns,
            "ended_ns": self.ended_ns,
        }


class VersionsJobs(ReplayJobs):
    """The versions runs of this UI process, by id."""

    job_type = VersionsJob
    noun = "versions runs"

    def _work(self, job: Any) -> dict[str, Any] | None:
        rows = None
        if job.replay_session_id is not None:
            original = get_session(self.engine, job.replay_session_id)
            assert original.id is not None
            rows = list(iter_messages(self.engine, original.id))

        def progress(text: str) -> None:
            job.phase = text

        async def run() -> None:
            # Sessions are published as each revision finishes, so the UI can link them early.
            for revision in job.revisions:
                done = await run_versions(
                    self.engine,
                    job.target,
                    [revision],
                    timeout=job.timeout,
                    replay_rows=rows,
                    on_progress=partial(_probing, progress, job, revision),
                    run_id=job.id,
                )
                job.sessions.update(done.sessions)
                if done.missing_secrets and not job.warnings:
                    names = ", ".join(f"{n} (${secret_env_var(n)})" for n in done.missing_secrets)
                    job.warnings.append(
                        f"the recording's redacted secret(s) were not given: {names}; set them in the UI "
                        "process's environment; replayed with the placeholders"
                    )

        anyio.run(run)
        return None


def _probing(progress: Callable[[str], None], job: VersionsJob, revision: str, _text: str) -> None:
    """The job's phase while one revision is probed (the probe's own progress text is not shown)."""
    progress(f"probing {revision} ({len(job.sessions) + 1}/{len(job.revisions)})")
