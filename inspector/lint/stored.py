"""Linting a stored session: read its rows, run `check_rows`, store the findings.

The one module of `inspector.lint` that touches the database. Findings go
to the `lint_finding` table; each flagged message's `lint` column gets a
compact list of `{rule, severity}` (what the timeline's badges need without
a join); `lint_run` remembers up to which seq and with which rule set the
session was linted, so a growing live session, or a new rule set, makes the
findings stale and the next request re-lints. A re-lint replaces the
session's findings.
"""

from __future__ import annotations

import hashlib
import time

from sqlalchemy import Engine, func, select

from inspector.lint.check import check_rows
from inspector.lint.findings import Finding
from inspector.lint.rules import RULES
from inspector.store.engine import write_connection
from inspector.store.models import LintFinding, LintRun, Message
from inspector.store.queries import get_session, iter_rows

__all__ = ["RULES_VERSION", "findings_of", "lint_is_stale", "lint_session"]

RULES_VERSION = hashlib.sha1(
    "|".join(f"{r.id}:{r.severity}:{r.since}" for r in RULES.values()).encode()
).hexdigest()[:12]

_m = Message.__table__  # type: ignore[attr-defined]
_f = LintFinding.__table__  # type: ignore[attr-defined]
_run = LintRun.__table__  # type: ignore[attr-defined]


def _max_seq(engine: Engine, session_id: int) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.coalesce(func.max(_m.c.seq), 0)).where(_m.c.session_id == session_id)
            ).scalar_one()
        )


def lint_is_stale(engine: Engine, session_id: int) -> bool:
    """Whether the session has never been linted, grew since, or was linted by another rule set."""
    with engine.connect() as conn:
        run = conn.execute(select(_run).where(_run.c.session_id == session_id)).first()
    if run is None:
        return True
    return run.rules_version != RULES_VERSION or run.upto_seq != _max_seq(engine, session_id)


def lint_session(engine: Engine, session_id: int) -> list[Finding]:
    """Check every message of a stored session and store the findings (replacing earlier ones)."""
    get_session(engine, session_id)  # NotFoundError for a bad id
    rows = list(iter_rows(engine, session_id))
    findings = check_rows(rows)
    upto = rows[-1]["seq"] if rows else 0
    by_seq: dict[int, list[dict[str, str]]] = {}
    for f in findings:
        by_seq.setdefault(f.seq, []).append({"rule": f.rule, "severity": f.severity})
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    with write_connection(engine) as conn, conn.begin():
        conn.execute(_f.delete().where(_f.c.session_id == session_id))
        conn.execute(
            _m.update().where(_m.c.session_id == session_id, _m.c.lint.is_not(None)).values(lint=None)
        )
        if findings:
            conn.execute(_f.insert(), [{"session_id": session_id, **f.to_json()} for f in findings])
        for seq, summary in by_seq.items():
            conn.execute(
                _m.update().where(_m.c.session_id == session_id, _m.c.seq == seq).values(lint=summary)
            )
        conn.execute(_run.delete().where(_run.c.session_id == session_id))
        conn.execute(
            _run.insert().values(
                session_id=session_id,
                upto_seq=upto,
                rules_version=RULES_VERSION,
                linted_ns=time.time_ns(),
                errors=counts["error"],
                warnings=counts["warning"],
                infos=counts["info"],
            )
        )
    return findings


def findings_of(
    engine: Engine, session_id: int, *, seq: int | None = None, relint_if_stale: bool = True
) -> list[Finding]:
    """The stored findings of a session (or of its message `seq`), in seq order; lints first when stale."""
    if relint_if_stale and lint_is_stale(engine, session_id):
        found = lint_session(engine, session_id)
        return [f for f in found if seq is None or f.seq == seq]
    stmt = select(_f).where(_f.c.session_id == session_id)
    if seq is not None:
        stmt = stmt.where(_f.c.seq == seq)
    with engine.connect() as conn:
        rows = conn.execute(stmt.order_by(_f.c.seq, _f.c.id)).all()
    fields = ("seq", "message_id", "severity", "rule", "explanation", "spec_section", "revision")
    return [Finding(**{k: getattr(r, k) for k in fields}) for r in rows]
