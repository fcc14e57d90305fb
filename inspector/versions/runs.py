"""Versions runs in the store: find a run's sessions by label and rebuild its matrix from them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from inspector.errors import NotFoundError
from inspector.lint import findings_of
from inspector.store import Session, iter_messages
from inspector.store.queries import sessions_where
from inspector.versions.matrix import Column, build_matrix, column_of
from inspector.versions.probe import run_label

__all__ = ["list_runs", "matrix_of_run", "matrix_of_sessions", "run_sessions"]

_PREFIX = "versions:"


def _revision(s: Session) -> str:
    for label in s.labels or ():
        if isinstance(label, str) and label.startswith("revision:"):
            return label.removeprefix("revision:")
    return (s.name or "").removeprefix("versions ").strip() or "?"


def _candidates(engine: Engine) -> list[Session]:
    # Labels are a JSON list: filter the (few) probe sessions by name in SQL, by label in Python.
    return sessions_where(engine, "kind = 'mock-client' AND name LIKE 'versions %'")


def run_sessions(engine: Engine, run_id: str) -> list[Session]:
    """The sessions of one run, in probe order; `NotFoundError` for an unknown run."""
    label = run_label(run_id)
    found = [s for s in _candidates(engine) if label in (s.labels or ())]
    if not found:
        raise NotFoundError(f"no versions run {run_id!r} (run ids are printed by `mcp-inspect versions`)")
    return found


def list_runs(engine: Engine, limit: int = 50) -> list[dict[str, Any]]:
    """Past runs, newest first: id, target, start time, revisions with their session ids."""
    runs: dict[str, dict[str, Any]] = {}
    for s in _candidates(engine):
        for label in s.labels or ():
            if isinstance(label, str) and label.startswith(_PREFIX):
                run = runs.setdefault(
                    label.removeprefix(_PREFIX),
                    {
                        "run": label.removeprefix(_PREFIX),
                        "target": s.target,
                        "started_ns": s.started_ns,
                        "sessions": {},
                    },
                )
                run["sessions"][_revision(s)] = s.id
    return sorted(runs.values(), key=lambda r: r["started_ns"], reverse=True)[:limit]


def matrix_of_sessions(engine: Engine, sessions: list[Session], *, run: str | None = None) -> dict[str, Any]:
    """The matrix of recorded probe sessions (blocking: reads every message)."""
    columns: list[Column] = []
    for s in sessions:
        assert s.id is not None
        column = column_of(_revision(s), s.id, iter_messages(engine, s.id), s.end_reason)
        column.findings.update(f"{f.severity}: {f.rule}" for f in findings_of(engine, s.id))
        columns.append(column)
    return build_matrix(columns, run=run, target=sessions[0].target if sessions else None)


def matrix_of_run(engine: Engine, run_id: str) -> dict[str, Any]:
    """The matrix of a past (or just finished) run."""
    return matrix_of_sessions(engine, run_sessions(engine, run_id), run=run_id)
