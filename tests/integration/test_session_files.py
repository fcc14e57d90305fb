"""Session files (`export` / `import`, JSONL): the round trip is exact for every kind of session.

One database gets a session of every kind the inspector records, each from real processes: the
stdio shim (the SDK demo, its session as recorded through the real shim and checked in:
tests/data/sessions/demo.jsonl; and a scripted peer that prints invalid JSON, with a client that sends
non-UTF-8 bytes), the HTTP proxy (Streamable HTTP and legacy SSE), the mock client (`call`), a
replay, `serve` and `mock-server`. Each is exported, imported into a fresh database, exported
again: the two files are identical and every column of every row came back. An imported session
replays against the real server with no difference, and a mock server played from it answers as
one played from the original.

The commands (`call`, `replay`, `export`, `import`) and `serve --http` (tests/integration/serve_helpers.py) run in
this process (tests/cli_in_process.py); the other recorders (wrap, proxy, mock-server) and the servers
are real processes, forked from a warm server (tests/warm_peers.py).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import run
from tests.conftest import PEERS
from tests.http_peers import demo_http_server, inspector_proxy
from tests.integration.serve_helpers import serve_http_in_process
from tests.sessions import load
from tests.shim_process import ShimProcess, ended_named
from tests.warm_peers import demo_argv, inspector_argv, warm_wrap_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)


@dataclass
class _Done:
    returncode: int
    stdout: bytes
    stderr: bytes


def _run(*args: str, stdin: bytes | None = None) -> _Done:
    ran = run(*args, input=stdin)
    return _Done(ran.returncode, ran.stdout.encode(), ran.stderr.encode())


def _ok(result: _Done) -> _Done:
    assert result.returncode == 0, (result.stdout + result.stderr).decode(errors="replace")
    return result


def _record_bad_bytes(db: Path) -> None:
    """A wrap of a peer that prints a non-JSON line before each answer; the client sends a non-UTF-8
    line and a broken JSON line before a real request."""
    shim = ShimProcess(
        warm_wrap_argv(
            db,
            sys.executable,
            str(PEERS / "scripted_server.py"),
            "--garbage",
            extra=("--quiet", "--name", "bad bytes"),
        )
    )
    shim.send(b"\xff\xfe not utf-8 \x80\n")
    shim.send(b'{"jsonrpc": "2.0", "id": \n')
    shim.request(1, "tools/list")
    while b'"echo"' not in shim.read_line():
        pass
    shim.close_stdin()
    assert shim.wait() == 0
    ended_named(db, "bad bytes")  # a wrap whose server left before its store opened hands off (#34)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding a session of every kind (the names say which)."""
    db = tmp_path_factory.mktemp("kinds") / "all.db"
    load(db, "demo", name="wrap demo")  # the demo as the SDK client drove it through wrap
    _record_bad_bytes(db)
    _ok(_run("call", "--db", str(db), "tools/list", "--", *DEMO))
    _ok(_run("replay", "1", "--db", str(db), "--", *DEMO))
    for transport in ("streamable-http", "sse"):
        with (
            demo_http_server(transport, warm=True) as url,
            inspector_proxy(url, db, "--name", f"proxy {transport}", warm=True) as (
                proxied,
                _proc,
            ),
        ):
            _ok(_run("call", "--db", str(db), "tools/list", "--url", proxied))
    with serve_http_in_process(db) as url:
        _ok(_run("call", "--db", str(db), "tools/list", "--url", url))
    mock = inspector_argv("mock-server", "1", "--db", str(db), "--stdio")
    _ok(_run("call", "--db", str(db), "tools/list", "--", *mock))
    return db


JSON_COLUMNS = {
    "target",
    "client_info",
    "server_info",
    "client_capabilities",
    "server_capabilities",
    "facts",
    "labels",
    "http_headers",
    "meta",
    "lint",
}


def _values(row: sqlite3.Row, skip: tuple[str, ...]) -> dict[str, Any]:
    """A row's columns but `skip`, JSON columns parsed (the file sorts their keys)."""
    out = {}
    for key in row.keys():  # noqa: SIM118 - iterating a sqlite3.Row gives its values
        if key not in skip:
            value = row[key]
            out[key] = json.loads(value) if key in JSON_COLUMNS and value is not None else value
    return out


def _columns(db: Path) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each session's columns (no ids) and its rows (no ids), in id order."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        for session in conn.execute("SELECT * FROM session ORDER BY id").fetchall():
            rows = conn.execute(
                "SELECT * FROM message WHERE session_id = ? ORDER BY seq", (session["id"],)
            ).fetchall()
            yield _values(session, ("id", "parent_id")), [_values(r, ("id", "session_id")) for r in rows]
    finally:
        conn.close()


def test_every_kind_is_recorded(recorded: Path) -> None:
    kinds = {s.kind for s in list_sessions(open_engine(recorded, create=False))}
    assert {"stdio-wrap", "http-proxy", "mock-client", "replay", "mock-server"} <= kinds, kinds
    with sqlite3.connect(recorded) as conn:
        statuses = {r[0] for r in conn.execute("SELECT DISTINCT parse_status FROM message")}
        legacy = conn.execute(
            "SELECT count(*) FROM message WHERE channel = 'sse' AND http_path LIKE '%/sse%'"
        )
    assert {"invalid-utf8", "invalid-json", "ok"} <= statuses, statuses
    assert legacy.fetchone()[0] >= 1


def test_round_trip_is_exact(recorded: Path, tmp_path: Path) -> None:
    sessions = list_sessions(open_engine(recorded, create=False), limit=1000)
    ids = [str(i) for i in sorted(s.id or 0 for s in sessions)]
    first = tmp_path / "first.mcp.jsonl"
    _ok(_run("export", *ids, "--db", str(recorded), "-o", str(first)))
    text = first.read_bytes()
    assert b'"raw_base64"' in text  # the non-UTF-8 line
    imported = tmp_path / "imported.db"
    done = _ok(_run("import", str(first), "--db", str(imported)))
    assert done.stderr.decode().count("imported session #") == len(sessions)
    again = tmp_path / "again.mcp.jsonl"
    new_ids = [str(i) for i in range(1, len(sessions) + 1)]
    _ok(_run("export", *new_ids, "--db", str(imported), "-o", str(again)))
    assert again.read_bytes() == text

    originals = list(_columns(recorded))
    copies = list(_columns(imported))
    assert len(copies) == len(originals)
    for (facts, rows), (facts2, rows2) in zip(originals, copies, strict=True):
        assert facts2 == facts
        assert rows2 == rows  # every column, raw bytes included
    with sqlite3.connect(recorded) as a, sqlite3.connect(imported) as b:
        parents = [r[0] for r in a.execute("SELECT parent_id IS NOT NULL FROM session ORDER BY id")]
        assert parents == [r[0] for r in b.execute("SELECT parent_id IS NOT NULL FROM session ORDER BY id")]


def test_imported_session_replays_and_mocks_alike(recorded: Path, tmp_path: Path) -> None:
    exported = tmp_path / "demo.mcp.jsonl"
    _ok(_run("export", "wrap demo", "--db", str(recorded), "-o", str(exported)))
    imported = tmp_path / "imported.db"
    _ok(_run("import", str(exported), "--db", str(imported)))
    replayed = _run("replay", "1", "--db", str(imported), "--", *DEMO)
    assert replayed.returncode == 0, replayed.stdout.decode() + replayed.stderr.decode()
    assert b"behaviour unchanged" in replayed.stdout

    def mocked(db: Path) -> Any:
        mock = inspector_argv("mock-server", "wrap demo", "--db", str(db), "--stdio")
        answer = _ok(_run("call", "--db", str(tmp_path / "calls.db"), "tools/list", "--", *mock))
        return json.loads(answer.stdout)

    assert mocked(imported) == mocked(recorded)


def test_stdout_and_stdin(recorded: Path, tmp_path: Path) -> None:
    piped = _ok(_run("export", "1", "--db", str(recorded)))
    assert piped.stdout.startswith(b'{"format":"mcp-inspector-session","version":1}\n')
    imported = tmp_path / "piped.db"
    _ok(_run("import", "-", "--db", str(imported), stdin=piped.stdout))
    assert _ok(_run("export", "1", "--db", str(imported))).stdout == piped.stdout


def test_bad_file_adds_nothing(recorded: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.mcp.jsonl"
    _ok(_run("export", "1", "2", "--db", str(recorded), "-o", str(good)))
    lines = good.read_bytes().splitlines(keepends=True)
    bad_line = len(lines) - 2  # in the second session, after the first one was written
    lines[bad_line - 1] = b'{"type": "message", "session": 2, "seq": "x"}\n'
    bad = tmp_path / "bad.mcp.jsonl"
    bad.write_bytes(b"".join(lines))
    db = tmp_path / "target.db"
    _ok(_run("import", str(good), "--db", str(db)))
    refused = _run("import", str(bad), "--db", str(db))
    assert refused.returncode == 2
    assert f"{bad}:{bad_line}:" in refused.stderr.decode()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM session").fetchone()[0] == 2
        counted = conn.execute("SELECT count(*) FROM message").fetchone()[0]
    assert counted == len(lines) - 3  # the good file's messages, nothing of the bad one
    missing = _run("import", str(tmp_path / "nope.jsonl"), "--db", str(db))
    assert missing.returncode == 2 and b"no such file" in missing.stderr
    not_ours = tmp_path / "other.json"
    not_ours.write_text('{"log": {}}')
    refused = _run("import", str(not_ours), "--db", str(db))
    assert refused.returncode == 2 and b"not a session file" in refused.stderr
