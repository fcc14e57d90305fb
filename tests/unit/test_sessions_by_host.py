"""`mcp-inspect sessions --by-host` (in-process): the stdio sessions grouped by host run, one line per
run and per session, fitting 80 columns, recorded text made terminal-safe."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson

from tests.cli_in_process import run
from tests.host_runs_data import CONFIG_FILE, record_runs


def test_sessions_by_host_lists_each_run_with_its_servers(db_path: Path) -> None:
    ids = record_runs(db_path)
    # A hostile host name (clientInfo is the host's own words): an escape sequence must not reach the terminal.
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "UPDATE session SET client_info = ? WHERE id = ?",
            (
                orjson.dumps({"name": "evil\x1b]0;pwned\x07host" + "x" * 90, "version": "1"}).decode(),
                ids["b"],
            ),
        )
    ran = run("sessions", "--by-host", "--db", str(db_path), env={"COLUMNS": "80"})
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert "\x1b" not in ran.stdout and "\x07" not in ran.stdout
    heads = [line for line in lines if line.startswith("run ")]
    assert len(heads) == 3
    a_at = next(i for i, line in enumerate(lines) if line.startswith(f"run {ids['a1']} "))
    assert "claude-ai" in lines[a_at] and "live" in lines[a_at] and "pid 4242" in lines[a_at]
    assert lines[a_at + 1].strip() == f"config {CONFIG_FILE}"
    assert lines[a_at + 2].split()[0] == str(ids["a1"]) and lines[a_at + 2].endswith("weather")
    assert lines[a_at + 3].split()[:2] == [str(ids["a2"]), "recording"] and lines[a_at + 3].endswith("files")
    assert not any(line.endswith(" lone") for line in lines)

    ran = run("sessions", "--by-host", "--json", "--name", "weath", "--db", str(db_path))
    assert ran.returncode == 0, ran.stderr
    docs = orjson.loads(ran.stdout)
    assert [(d["id"], d["name"], d["live"], [s["id"] for s in d["sessions"]]) for d in docs] == [
        (ids["a1"], "claude-ai", True, [ids["a1"], ids["a2"]])
    ]
    assert docs[0]["config_files"] == [CONFIG_FILE]


def test_sessions_by_host_without_runs_says_what_a_run_is(db_path: Path) -> None:
    from tests.sessions import load

    load(db_path, "demo")  # an imported session: no host process recorded
    ran = run("sessions", "--by-host", "--db", str(db_path))
    assert ran.returncode == 0
    assert ran.stdout == ""
    assert "No host runs yet" in ran.stderr
