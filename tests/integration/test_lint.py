"""Lint on real traffic: clean recordings of real peers give no findings; `mcp-inspect lint` exit codes.

The SDK demo server (handshake era and 2026-07-28) and server-everything, over
stdio through `wrap` and over Streamable HTTP through `proxy`, driven by the
official SDK client. A finding here is a false positive of a rule.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import mcp
import pytest

from inspector.demo.driver import drive_demo
from inspector.lint import check_rows, lint_session
from inspector.lint.stored import lint_rows
from inspector.store import iter_messages, list_sessions, open_engine
from inspector.store.queries import iter_rows
from tests.conftest import EVERYTHING_BIN
from tests.everything_client import everything_session
from tests.http_peers import demo_http_server, everything_http_server, inspector_proxy
from tests.lint_recordings import violations
from tests.shim_process import ended_named

MODES = ("legacy", "auto")


def _wrapped(db: Path, name: str, *server: str) -> mcp.StdioServerParameters:
    argv = [
        sys.executable,
        "-m",
        "inspector",
        "wrap",
        "--quiet",
        "--db",
        str(db),
        "--name",
        name,
        "--",
        *server,
    ]
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


@pytest.fixture(scope="module")
def clean_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not EVERYTHING_BIN.exists():
        pytest.fail("server-everything is not installed: run `make peers` (make test does it)")
    db = tmp_path_factory.mktemp("lint-clean") / "clean.db"

    async def stdio() -> None:
        with anyio.fail_after(180):
            for mode in MODES:
                await drive_demo(
                    _wrapped(db, f"demo-stdio-{mode}", sys.executable, "-m", "inspector.demo"), mode=mode
                )
                await everything_session(
                    _wrapped(db, f"everything-stdio-{mode}", str(EVERYTHING_BIN), "stdio"), "hi", mode
                )

    anyio.run(stdio)
    for mode in MODES:  # each wrap is recorded (by a finishing process, when SIGTERM came first)
        ended_named(db, f"demo-stdio-{mode}")
        ended_named(db, f"everything-stdio-{mode}")
    for mode in MODES:
        with (
            demo_http_server() as target,
            inspector_proxy(target, db, "--name", f"demo-http-{mode}") as (url, _p),
        ):
            anyio.run(lambda u=url, m=mode: drive_demo(u, mode=m))
        with (
            everything_http_server("streamableHttp") as target,
            inspector_proxy(target, db, "--name", f"everything-http-{mode}") as (url, _p),
        ):
            anyio.run(lambda u=url, m=mode: everything_session(u, "hi", m))
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


def _lint(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "inspector", "lint", *args, "--db", str(db)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


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
