"""Lint on real traffic: clean recordings of real peers give no findings; `mcp-inspect lint` exit codes.

The SDK demo server (handshake era and 2026-07-28) and server-everything, over
stdio through `wrap` and over Streamable HTTP through `proxy`, driven by the
official SDK client, recorded once and checked in (tests/data/sessions/real-peers-sdk-client.jsonl).
A finding here is a false positive of a rule. `mcp-inspect lint` runs in-process (tests/cli_in_process.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.lint import check_rows, lint_session
from inspector.lint.stored import lint_rows
from inspector.store import iter_messages, list_sessions, open_engine
from inspector.store.queries import iter_rows
from tests.cli_in_process import Ran, run
from tests.lint_recordings import violations
from tests.sessions import load

MODES = ("legacy", "auto")


@pytest.fixture(scope="module")
def clean_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recordings of tests/data/sessions/real-peers-sdk-client.jsonl, imported: the demo server and
    server-everything driven by the official SDK client (`drive_demo`, `everything_session`) in
    each mode of MODES, over stdio through `mcp-inspect wrap --quiet` and over Streamable HTTP
    through `mcp-inspect proxy`, one session each, named `PEER-TRANSPORT-MODE` (recorded by this
    file's former module fixture, written by `mcp-inspect export`)."""
    db = tmp_path_factory.mktemp("lint-clean") / "clean.db"
    load(db, "real-peers-sdk-client")
    return db


NAMES = [
    f"{peer}-{transport}-{mode}"
    for peer in ("demo", "everything")
    for transport in ("stdio", "http")
    for mode in MODES
]


# The one true positive of these runs (issue 14): server-everything answers the SDK's pre-initialization
# server/discover probe over Streamable HTTP with HTTP 400 and an error whose id is null.
# The demo's 2026-07-28 runs use Sampling, Roots (as inputRequests) and Logging, which 2026-07-28
# deprecates: told once per session as info (issue 18).
DEPRECATED = [("feature-deprecated", m) for m in ("notifications/message", "tools/call", "tools/call")]
EXPECTED = {
    "everything-http-auto": [("error-id-null", "server/discover")],
    "demo-stdio-auto": DEPRECATED,
    "demo-http-auto": DEPRECATED,
}


@pytest.mark.parametrize("name", NAMES)
def test_clean_recordings_have_no_findings(clean_db: Path, name: str) -> None:
    engine = open_engine(clean_db)
    sessions = [s for s in list_sessions(engine, limit=1000) if s.name == name and s.message_count]
    assert sessions, f"nothing recorded as {name}"
    versions = set()
    found = []
    for session in sessions:  # a stateless HTTP run may be recorded as several sessions
        assert session.id is not None
        versions.add(session.protocol_version)
        methods = {m.seq: m.method for m in iter_messages(engine, session.id)}
        found += [(f.rule, methods[f.seq]) for f in lint_session(engine, session.id)]
    assert sorted(found) == sorted(EXPECTED.get(name, []))
    assert versions & {"2025-11-25", "2026-07-28"}


def _lint(db: Path, *args: str) -> Ran:
    return run("lint", *args, "--db", str(db))


def test_cli_exit_codes(clean_db: Path, tmp_path: Path) -> None:
    clean = _lint(clean_db, "demo-stdio-legacy")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "0 errors" in clean.stdout
    db = tmp_path / "bad.db"
    sid, seqs = violations(db)
    bad = _lint(db, str(sid))
    assert bad.returncode == 1
    assert "unknown-response-id" in bad.stdout and "1 error" in bad.stdout
    warnings_only = _lint(db, "last", "--min-severity", "error", "--json")
    assert warnings_only.returncode == 1
    assert (
        '"list-changed-not-declared"' not in warnings_only.stdout and '"warning": 2' in warnings_only.stdout
    )
    assert _lint(db, "no-such-session").returncode == 2
    assert _lint(db, "last", "--min-severity", "fatal").returncode == 2
    assert _lint(tmp_path / "missing.db", "last").returncode == 2


@pytest.mark.parametrize("page", [1, 3, 2000])
def test_streamed_lint_equals_the_whole_list(clean_db: Path, tmp_path: Path, page: int) -> None:
    """Issue 21: the stored session checked page by page (a request in one page, its answer in the
    next) finds exactly what `check_rows` finds over the whole list, on every real recording and on
    one with violations of most rules."""
    violations(tmp_path / "v.db")
    for db in (clean_db, tmp_path / "v.db"):
        engine = open_engine(db)
        for session in list_sessions(engine, limit=1000):
            assert session.id is not None
            whole = check_rows(list(iter_rows(engine, session.id)))
            assert list(lint_rows(engine, session.id, page=page)) == whole, session.name
        engine.dispose()
