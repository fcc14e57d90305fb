"""The `mcp-inspect` commands as a user runs them: sessions, show (--json, --follow), search, errors.

Each test runs against an SQLite file and a PostgreSQL database (`--db URL`). The commands run
in-process (tests/cli_in_process.py) on sessions recorded through the real shim and checked in
(tests/data/sessions/pings.jsonl: `pings-N`, N pings to the scripted server, recorded by
`mcp-inspect wrap` in the order pings-2, pings-1, pings-3); `show --follow` tails a session that a real shim is recording, from a process
of its own (both forked from a warm server: tests/warm_peers.py), and `wrap --help` is the console
script's own fast path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from inspector.share.importer import import_jsonl
from inspector.store import open_engine
from tests.cli_in_process import Ran, run
from tests.conftest import SCRIPTED
from tests.sessions import lines
from tests.shim_process import ShimProcess
from tests.warm_peers import inspector_argv, warm_wrap_argv

CLI = [sys.executable, "-m", "inspector"]


@pytest.fixture
def db_path(any_store: Path | str) -> Path | str:
    if isinstance(any_store, str):  # a URL: its schema made first, as a team's store is
        open_engine(any_store).dispose()
    return any_store


def _cli(*args: str, db: Path | None = None) -> Ran:
    extra = ["--db", str(db)] if db is not None else []
    return run(*args, *extra)


def _record_pings(db: Path, count: int, name: str = "pings") -> None:
    """A session of `count` pings (1-3) to the scripted server as `wrap` recorded it, named `name`:
    session `pings-COUNT` of tests/data/sessions/pings.jsonl, imported."""
    header, *records = lines("pings")
    ref = next(
        r["ref"]
        for r in map(orjson.loads, records)
        if r["type"] == "session" and r["name"] == f"pings-{count}"
    )
    chosen = [header]
    for line in records:
        record = orjson.loads(line)
        if record["type"] == "session" and record["ref"] == ref:
            chosen.append(orjson.dumps({**record, "name": name}))
        elif record["type"] == "message" and record["session"] == ref:
            chosen.append(line)
    engine = open_engine(db)
    try:
        import_jsonl(engine, chosen, source="pings")
    finally:
        engine.dispose()


def test_sessions_json_and_table(db_path: Path) -> None:
    _record_pings(db_path, 2, name="first")
    _record_pings(db_path, 1, name="second")
    out = _cli("sessions", "--json", db=db_path)
    assert out.returncode == 0, out.stderr
    docs = json.loads(out.stdout)
    assert [d["name"] for d in docs] == ["second", "first"]
    assert docs[1]["message_count"] == 4 and docs[1]["state"] == "ended" and docs[1]["exit_status"] == 0
    table = _cli("sessions", db=db_path)
    assert "second" in table.stdout and "stdio-wrap" in table.stdout


def test_show_json_has_every_message_with_raw_text(db_path: Path) -> None:
    _record_pings(db_path, 3)
    out = _cli("show", "last", "--json", db=db_path)
    assert out.returncode == 0, out.stderr
    docs = [json.loads(line) for line in out.stdout.splitlines()]
    assert [d["seq"] for d in docs] == [1, 2, 3, 4, 5, 6]
    assert docs[0]["raw"] == '{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
    assert docs[1]["kind"] == "response" and docs[1]["answers_seq"] == 1 and docs[1]["method"] == "ping"


def test_show_table_names_methods_and_pairs(db_path: Path) -> None:
    _record_pings(db_path, 1)
    out = _cli("show", "last", db=db_path)
    assert out.returncode == 0, out.stderr
    assert "ping" in out.stdout and "↳ ping (#1)" in out.stdout


def test_show_follow_tails_a_live_session(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED))
    shim.request(1, "first-call")
    shim.read_line()
    follower = subprocess.Popen(
        inspector_argv("show", "last", "--follow", "--json", "--poll", "0.05", "--db", str(db_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert follower.stdout is not None
    first = json.loads(follower.stdout.readline())
    assert first["method"] == "first-call"
    shim.request(2, "second-call")
    shim.read_line()
    methods = []
    while "second-call" not in methods:
        methods.append(json.loads(follower.stdout.readline())["method"])
    shim.close_stdin()
    shim.wait()
    rest, _ = follower.communicate(timeout=30)
    assert follower.returncode == 0, "--follow must stop by itself when the session ends"
    assert [json.loads(line)["seq"] for line in rest.splitlines()] == [4] or "second-call" in methods


def test_search_finds_words(db_path: Path) -> None:
    _record_pings(db_path, 2)
    out = _cli("search", "ping", "--json", db=db_path)
    assert out.returncode == 0, out.stderr
    found = [json.loads(line) for line in out.stdout.splitlines()]
    assert [d["kind"] for d in found] == ["request", "response", "request", "response"]
    out = _cli("search", "echo", "--json", db=db_path)
    assert {json.loads(line)["kind"] for line in out.stdout.splitlines()} == {"response"}


def test_user_errors_are_one_clear_line(db_path: Path, tmp_path: Path) -> None:
    missing = _cli("sessions", db=tmp_path / "nope.db")
    assert missing.returncode == 2 and "no recording database" in missing.stderr
    assert not (tmp_path / "nope.db").exists(), "reading must not create a database"
    _record_pings(db_path, 1)
    unknown = _cli("show", "42", db=db_path)
    assert unknown.returncode == 2 and "no session with id 42" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    no_command = run("wrap", "--db", str(db_path))
    assert no_command.returncode != 0 and "Traceback" not in no_command.stderr


def test_wrap_help_explains_usage() -> None:
    out = subprocess.run([*CLI, "wrap", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for word in ("--durable", "--db", "--name", "--grace", "client's config"):
        assert word in out.stdout
