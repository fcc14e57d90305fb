"""`replay --rate | --as-recorded | --max`: run a load replay and gather its report.

The numbers per method (count, errors, p50 / p95 / max) are `store.stats.session_stats` of the
session the replay was recorded as, the same numbers `mcp-inspect stats` prints for it; what only
the sender knows (messages sent, requests left unanswered, the pace achieved) comes from
`replay.load.LoadRun`. Printing is the CLI's (`cli/replay.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from sqlalchemy import Engine

from inspector.auth.connect import AuthRequest
from inspector.capture.pause import refuse_metadata_only
from inspector.replay.driver import run_replay
from inspector.replay.load import Load, LoadRun, Progress
from inspector.replay.matching import MatchPolicy
from inspector.store import get_session
from inspector.store.stats import session_stats

__all__ = ["EXIT_FAILED", "EXIT_LOADED", "EXIT_UNANSWERED", "LoadReport", "load_replay"]

EXIT_LOADED, EXIT_UNANSWERED, EXIT_FAILED = 0, 1, 2


@dataclass
class LoadReport:
    """A load replay's outcome: `problem` when it could not run, else the sender's counts and the
    recorded session's numbers per method (`methods`, rows of `session_stats`)."""

    original: int
    replay: int
    load: Load
    problem: str | None = None
    run: LoadRun | None = None
    methods: list[dict[str, Any]] = field(default_factory=list)
    unmatched_server_requests: list[str] = field(default_factory=list)
    missing_secrets: list[str] = field(default_factory=list)

    @property
    def unanswered(self) -> int:
        return 0 if self.run is None else self.run.requests - self.run.answered

    @property
    def errors(self) -> int:
        """Error responses and `isError` results, as `stats` counts them (every method's row)."""
        return sum(row["errors"] for row in self.methods if row["name"] is None)

    @property
    def achieved_per_s(self) -> float | None:
        """Messages sent a second (`LoadRun.pace`)."""
        pace = None if self.run is None else self.run.pace
        return None if pace is None else round(pace, 2)

    @property
    def exit_status(self) -> int:
        if self.problem is not None or self.run is None:
            return EXIT_FAILED
        return EXIT_UNANSWERED if self.unanswered else EXIT_LOADED

    def to_json(self) -> dict[str, Any]:
        run = self.run or LoadRun()
        return {
            "original": self.original,
            "replay": self.replay,
            "load": self.load.to_json(),
            "problem": self.problem,
            "sent": run.sent,
            "requests": run.requests,
            "answered": run.answered,
            "unanswered": self.unanswered,
            "errors": self.errors,
            "sending_s": round(run.sending, 3),
            "elapsed_s": round(run.elapsed, 3),
            "asked_per_s": self.load.rate,
            "achieved_per_s": self.achieved_per_s,
            "methods": self.methods,
            "unmatched_server_requests": self.unmatched_server_requests,
        }


def load_replay(
    engine: Engine,
    ref: str,
    target: Sequence[str] | str,
    load: Load,
    *,
    match: str = "strict",
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    timeout: float = 30.0,
    auth: AuthRequest | None = None,
    progress: Progress | None = None,
) -> LoadReport:
    """Replay session `ref` against `target` at `load`'s pace; prints nothing."""
    original = get_session(engine, ref)
    assert original.id is not None
    refuse_metadata_only(original, "replayed")
    policy = MatchPolicy.named(match)
    outcome = anyio.run(
        lambda: run_replay(
            engine,
            original,
            target,
            timeout=timeout,
            policy=policy,
            headers=headers,
            secrets=secrets,
            auth=auth,
            load=load,
            progress=progress,
            name=f"load replay of #{original.id}",
        )
    )
    report = LoadReport(
        original.id,
        outcome.session_id,
        load,
        run=outcome.load,
        unmatched_server_requests=outcome.unmatched_server_requests,
        missing_secrets=outcome.missing_secrets,
    )
    if outcome.error:
        report.problem = outcome.error
    elif outcome.load is None or outcome.load.sent == 0:
        report.problem = "the recording has no client messages after its handshake to send as load"
    report.methods = session_stats(engine, outcome.session_id)["methods"]
    return report
