"""`mcp-inspect lint` validated every message of the session on every run (2.7 s for the 52-message
demo, two thirds of it loading mcp-types' models), though the findings it stored the run before
were still those of the session. Now a session whose stored lint is current (nothing recorded
since, the same rule set) prints its stored findings, the same output, without validating again.

The rule set a stored lint is current for was only the rules' ids, severities and revisions: a
session linted by an older inspector (other checks, another mcp-types release, the same rules)
kept its findings in the UI as if they were current. The rule set now also covers the code that
checks the rules and the mcp-types release that validates the shapes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from inspector.lint import RULES, findings_of
from inspector.store import open_engine
from tests.cli_in_process import Ran
from tests.sessions import load


def _linted_ns(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT linted_ns FROM lint_run").fetchone()[0])


def test_a_current_stored_lint_is_printed_not_found_again(
    tmp_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    db = tmp_path / "pings.db"
    sid = load(db, "pings")
    env = {"COLUMNS": "120"}
    first = mcp_inspect("lint", str(sid), "--db", str(db), env=env)
    assert first.returncode == 0 and "1 info" in first.stdout  # pings has one finding
    linted = _linted_ns(db)
    again = mcp_inspect("lint", str(sid), "--db", str(db), env=env)
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert _linted_ns(db) == linted  # read, not linted again
    as_json = mcp_inspect("lint", str(sid), "--db", str(db), "--json")
    assert as_json.returncode == 0 and '"info": 1' in as_json.stdout and _linted_ns(db) == linted

    # The session grew since (a row after the linted one): linted again, the findings found again.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE lint_run SET upto_seq = upto_seq - 1")
        conn.execute("DELETE FROM lint_finding")
    grown = mcp_inspect("lint", str(sid), "--db", str(db), env=env)
    assert (grown.returncode, grown.stdout) == (first.returncode, first.stdout)
    assert _linted_ns(db) != linted


def test_a_lint_stored_by_another_inspector_with_the_same_rules_is_stale(tmp_path: Path) -> None:
    db = tmp_path / "pings.db"
    sid = load(db, "pings")
    engine = open_engine(db)
    try:
        found = findings_of(engine, sid)
        assert [f.rule for f in found]
        # What an inspector with these rules but other checks (or mcp-types) stored: the rules'
        # digest alone, and (say) fewer findings.
        rules_only = hashlib.sha1(
            "|".join(f"{r.id}:{r.severity}:{r.since}" for r in RULES.values()).encode()
        ).hexdigest()[:12]
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE lint_run SET rules_version = ?", (rules_only,))
            conn.execute("DELETE FROM lint_finding")
        assert findings_of(engine, sid) == found  # linted again, not the other inspector's
    finally:
        engine.dispose()
