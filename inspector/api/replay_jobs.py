"""Replay jobs started from the UI: each runs on its own thread, its state is read by the API.

A job replays a recorded session against a target with
`inspector.replay.driver.run_replay` (twice with `calibrate`), then diffs the
original against the last run with `diff_sessions`, learning the noise from
the two runs with `noise_patterns`, as `mcp-inspect replay` does; with
`strict_volatile` (`--strict-volatile`) values that differ only in clock-like
parts count as changes and calibration may learn them as noise. The replay
runs on a thread with its own event loop: it spawns a process, reads the
whole recording and diffs it, none of which may hold up the API's loop. Jobs
live in memory for the lifetime of the UI process (the last `KEPT` finished
ones); the replay sessions are recorded into the same database, so the live
feed shows them.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from fastapi import HTTPException, Response
from sqlalchemy import Engine

from inspector.api.deps import json_response
from inspector.api.diff_pages import ignore_set, page_of
from inspector.capture.redact import secret_env_var
from inspector.errors import InspectorError
from inspector.replay.compared import runs_compared
from inspector.replay.diff import diff_sessions, noise_patterns
from inspector.replay.driver import ReplayOutcome, run_replay
from inspector.replay.matching import MatchPolicy
from inspector.store import get_session
from inspector.store.wire import StoredMessages, wire

__all__ = ["KEPT", "MAX_RUNNING", "Job", "ReplayJob", "ReplayJobs", "diff_report", "ignore_set"]

MAX_RUNNING = 4
KEPT = 50  # finished jobs kept (with their reports); older ones are forgotten


def diff_report(
    engine: Engine,
    a: int,
    b: int,
    extra_ignore: Sequence[str],
    strict_volatile: bool = False,
    *,
    equal: bool = True,
    start: int = 0,
    limit: int | None = None,
) -> dict[str, Any]:
    """The diff of two recorded sessions as the API's `DiffReport` dict (blocking: call off the loop).

    `strict_volatile`: volatile values (changed only in clock-like parts) make the sessions differ.
    `equal`: list equal exchanges too (else only those that differ or were intervened on; the
    counts count all). One page: the listed exchanges from index `start`, at most `limit`, and
    `next_cursor` (the index to start the next page at) when more are listed."""
    result = diff_sessions(
        StoredMessages(engine, a),
        StoredMessages(engine, b),
        ignore=ignore_set(extra_ignore),
        strict_volatile=strict_volatile,
        keep_equal=equal,
    )
    summary = runs_compared(engine, result, a, b) if start == 0 else None
    return page_of(result, a, b, start, limit, summary)


class Job(Protocol):
    """What `ReplayJobs` keeps and reports of a job of any kind (`ReplayJob`, `VersionsJob`)."""

    id: str
    state: str
    phase: str
    error: str | None
    ended_ns: int | None
    report: dict[str, Any] | None
    done: threading.Event

    def progress(self) -> tuple[str, str, int]: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass
class ReplayJob:
    """One replay job and what is known of it so far (written by its thread, read by the API)."""

    id: str
    session_id: int
    target: list[str] | str
    calibrate: bool
    ignore: list[str]
    timeout: float
    match: str = "strict"
    strict_volatile: bool = False
    state: str = "running"
    phase: str = "starting"
    replay_session_ids: list[int] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    started_ns: int = field(default_factory=time.time_ns)
    ended_ns: int | None = None
    report: dict[str, Any] | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def progress(self) -> tuple[str, str, int]:
        """What a long poll watches: state, phase, replay sessions so far."""
        return self.state, self.phase, len(self.replay_session_ids)

    def to_json(self) -> dict[str, Any]:
        """The API's `ReplayJobOut` dict."""
        return {
            "id": self.id,
            "session_id": self.session_id,
            "target": self.target,
            "calibrate": self.calibrate,
            "strict_volatile": self.strict_volatile,
            "state": self.state,
            "phase": self.phase,
            "replay_session_id": self.replay_session_ids[-1] if self.replay_session_ids else None,
            "replay_session_ids": list(self.replay_session_ids),
            "error": self.error,
            "warnings": list(self.warnings),
            "started_ns": self.started_ns,
            "ended_ns": self.ended_ns,
            "report": self.report,
        }


class ReplayJobs:
    """The jobs of this UI process, by id (subclasses run other kinds of job: `job_type`, `_work`)."""

    job_type: Callable[..., Job] = ReplayJob
    noun = "replays"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def running(self) -> int:
        return sum(1 for j in self.jobs.values() if j.state == "running")

    def start(self, job_args: dict[str, Any]) -> Job:
        """Register a job and start its thread; `InspectorError` when too many are running."""
        with self._lock:
            if self.running() >= MAX_RUNNING:
                raise InspectorError(f"{MAX_RUNNING} {self.noun} are already running; wait for one to finish")
            done = [j for j in self.jobs.values() if j.state != "running"]
            for stale in done[: max(0, len(done) - KEPT + 1)]:
                del self.jobs[stale.id]
            job = self.job_type(id=secrets.token_hex(6), **job_args)
            self.jobs[job.id] = job
        thread = threading.Thread(target=self._run, args=(job,), name=f"{self.noun}-{job.id}", daemon=True)
        thread.start()
        return job

    def start_response(self, job_args: dict[str, Any]) -> Response:
        """`start` for a route: 202 with the job, 429 when too many are running."""
        try:
            job = self.start(job_args)
        except InspectorError as exc:
            raise HTTPException(429, str(exc)) from None
        return json_response(job.to_json(), status_code=202)

    def get(self, job_id: str) -> Any:
        return self.jobs.get(job_id)

    @staticmethod
    async def follow(job: Any, wait: float) -> Response:
        """Long poll: the job once its state or progress changes, or after `wait` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        seen = job.progress()
        while job.state == "running" and job.progress() == seen and loop.time() < deadline:
            await asyncio.sleep(0.05)
        return json_response(job.to_json())

    def _work(self, job: Any) -> dict[str, Any] | None:
        return self._replay_and_diff(job)

    def _run(self, job: Any) -> None:
        try:
            report = self._work(job)
        except Exception as exc:  # noqa: BLE001 - a job that cannot run is reported, never raised
            text = str(exc) if isinstance(exc, InspectorError) else f"{type(exc).__name__}: {exc}"
            job.error = job.error or text
            job.ended_ns = time.time_ns()
            job.phase = "failed"
            job.state = "failed"
        else:
            job.report = report
            job.ended_ns = time.time_ns()
            job.phase = "finished"
            job.state = "finished"
        finally:
            job.done.set()

    def _replay_and_diff(self, job: ReplayJob) -> dict[str, Any]:
        original = get_session(self.engine, job.session_id)
        assert original.id is not None
        policy = MatchPolicy(job.match)
        runs = 2 if job.calibrate else 1
        outcomes: list[ReplayOutcome] = []
        for i in range(runs):
            job.phase = f"replaying ({i + 1}/{runs})"
            outcome = anyio.run(
                lambda: run_replay(self.engine, original, job.target, timeout=job.timeout, policy=policy)
            )
            job.replay_session_ids.append(outcome.session_id)
            problem = outcome.error or (
                "the recording has no client messages to replay" if outcome.sent == 0 else None
            )
            if problem:
                job.error = f"the replay could not run: {problem}"
                raise InspectorError(job.error)
            if outcome.missing_secrets and i == 0:
                names = ", ".join(f"{n} (${secret_env_var(n)})" for n in outcome.missing_secrets)
                job.warnings.append(
                    f"the recording's redacted secret(s) were not given: {names}; set them in the UI "
                    "process's environment; replayed with the placeholders"
                )
            outcomes.append(outcome)
        job.phase = "diffing"
        noise: list[str] = []
        if job.calibrate:
            noise = noise_patterns(
                wire(self.engine, outcomes[0].session_id),
                wire(self.engine, outcomes[1].session_id),
                ignore=ignore_set(job.ignore),
                skip_volatile=not job.strict_volatile,
            )
        last = outcomes[-1]
        extra = [*job.ignore, *noise]
        report = diff_report(self.engine, original.id, last.session_id, extra, job.strict_volatile)
        if last.timeouts:
            job.warnings.append(
                f"{len(last.timeouts)} request(s) got no answer in time: {', '.join(last.timeouts)}"
            )
        return {
            **report,
            # The CLI's exit status 0: behaviour unchanged and every request answered in time.
            "passed": not report["changed"] and not last.timeouts,
            "original": original.id,
            "replay": last.session_id,
            "calibration_noise": noise,
            "extra_ignore": extra,
            "timeouts": last.timeouts,
            "unmatched_server_requests": last.unmatched_server_requests,
        }
