"""`mcp-inspect doctor`: host config files written here for several hosts (wrapped and unwrapped
stdio servers, HTTP servers, a broken JSON file), a healthy SQLite database, a corrupt one, one
others can read, PostgreSQL. Real CLI processes; the fix doctor prints is applied and run for real
(a wrap of the demo server, recorded under the name doctor gave it)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.capture.sessions import create_session
from inspector.doctor import run_doctor
from inspector.store import list_sessions, open_engine
from tests.cli_in_process import Ran, run
from tests.shim_process import ended_named
from tests.warm_peers import demo_argv

CLI = [sys.executable, "-m", "inspector"]
DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)


def _doctor(home: Path, project: Path, *args: str, config: Path | None = None) -> Ran:
    """`mcp-inspect doctor` in this process (tests/cli_in_process.py), in `project`, with none of
    the developer's MCP_INSPECTOR_* variables (but the run's runtime directory)."""
    env: dict[str, str | None] = {
        k: None for k in os.environ if k.startswith("MCP_INSPECTOR_") and k != "MCP_INSPECTOR_RUNTIME"
    }
    env.update(COLUMNS="80", MCP_INSPECTOR_CONFIG=str(config or home / "no-config.toml"))
    project.mkdir(parents=True, exist_ok=True)
    return run("doctor", "--home", str(home), "--project", str(project), *args, env=env, cwd=project)


def _write(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))


def _healthy_db(path: Path) -> Path:
    engine = open_engine(path)
    create_session(engine, kind="stdio-wrap", target=["python", "server.py"], name="one")
    engine.dispose()
    return path


def _database(db: Path, monkeypatch: pytest.MonkeyPatch, config: Path | None = None) -> tuple[bool, list]:
    """doctor's database and config checks, in this process (the CLI is tested above)."""
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(config or db.parent / "no-config.toml"))
    report = run_doctor(db.parent / "home", db.parent, str(db))
    return report.ok, report.as_json()["database"]


def _servers(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(h["host"], s["name"]): s for h in report["hosts"] for s in h["servers"]}


def _hosts(home: Path, project: Path) -> dict[str, Path]:
    files = {
        "desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "code": home / ".claude.json",
        "mcp": project / ".mcp.json",
        "cursor": home / ".cursor" / "mcp.json",
        "vscode": project / ".vscode" / "mcp.json",
        "vscode_user": home / ".config" / "Code" / "User" / "settings.json",
        "windsurf": home / ".codeium" / "windsurf" / "mcp_config.json",
        "gemini": home / ".gemini" / "settings.json",
    }
    _write(files["desktop"], {"mcpServers": {
        "demo": {"command": DEMO[0], "args": DEMO[1:], "env": {"DEMO_TOKEN": "t0ken"}},
        "wrapped": {"command": "/opt/bin/mcp-inspect", "args": ["wrap", "--name", "w", "--", "node", "s.js"]},
    }})  # fmt: skip
    _write(files["code"], {"numStartups": 3, "mcpServers": {}, "projects": {
        str(project): {"mcpServers": {"files": {"type": "stdio", "command": "npx", "args": ["-y", "fs-server"]}}},
    }})  # fmt: skip
    _write(files["mcp"], {"mcpServers": {"remote": {"type": "http", "url": "https://mcp.example.com/mcp"}}})
    _write(
        files["cursor"],
        {"mcpServers": {"py": {"command": "python3", "args": ["-m", "inspector", "wrap", "--", "x"]}}},
    )
    _write(files["vscode"], '{\n  // a comment, as VS Code allows\n  "servers": {\n'
           '    "local": {"type": "http", "url": "http://127.0.0.1:6280/mcp"},\n  },\n}\n')  # fmt: skip
    _write(files["vscode_user"], '{"editor.fontSize": 13, /* mine */ "mcp": {"servers": {'
           '"gh": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"]}}}}')  # fmt: skip
    _write(files["windsurf"], {"mcpServers": {"sse": {"serverUrl": "http://localhost:3001/sse"}}})
    _write(files["gemini"], '{"mcpServers": {"broken": {"command": "x",}')  # not JSON (and not JSONC)
    return files


def test_doctor_finds_wrapped_and_unwrapped_servers_of_every_host(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    files = _hosts(home, project)
    before = {p: p.read_bytes() for p in files.values()}
    db = _healthy_db(tmp_path / "rec.db")
    out = _doctor(home, project, "--json", "--db", str(db))
    assert out.returncode == 1, out.stderr  # unwrapped servers: something needs action
    report = json.loads(out.stdout)
    assert report["ok"] is False
    servers = _servers(report)
    assert servers[("Claude Desktop", "wrapped")]["wrapped"] is True
    assert servers[("Cursor", "py")]["wrapped"] is True  # python -m inspector wrap
    assert servers[("VS Code", "local")]["wrapped"] is True  # a local proxy (JSONC read)
    for key in [("Claude Desktop", "demo"), ("Claude Code", "files"), ("VS Code", "gh")]:
        assert servers[key]["wrapped"] is False and servers[key]["transport"] == "stdio", key
    assert servers[("Claude Code", "files")]["scope"] == str(project)  # ~/.claude.json's per-project entry
    # An unwrapped stdio server: the wrap line with --name and the original command after `--`.
    fix = servers[("VS Code", "gh")]["fix"]
    assert (
        fix["args"][-6:]
        == ["--name", "gh", "--", "docker", "run", "-i", "ghcr.io/github/github-mcp-server"][-6:]
    )
    assert (
        "wrap" in fix["args"]
        and ["--db", str(db)] == fix["args"][fix["args"].index("--db") : fix["args"].index("--db") + 2]
    )
    # HTTP servers: the proxy command and the new URL, under the host's own key.
    remote, sse = servers[("Claude Code", "remote")], servers[("Windsurf", "sse")]
    assert remote["transport"] == "http" and remote["wrapped"] is False
    assert "proxy --target https://mcp.example.com/mcp" in remote["proxy_command"]
    assert remote["fix"] == {"url": "http://127.0.0.1:6280/mcp"} or remote["fix"] == {
        "url": "http://127.0.0.1:6281/mcp"
    }
    assert list(sse["fix"]) == ["serverUrl"] and sse["fix"]["serverUrl"].endswith("/sse")
    assert remote["fix"]["url"] != sse["fix"]["serverUrl"].replace("/sse", "/mcp")  # one port each
    (gemini,) = [h for h in report["hosts"] if h["host"] == "Gemini CLI"]
    assert gemini["status"] == "broken" and gemini["error"]
    # Secrets in a host's env never come back in the suggestion (only the keys to change).
    assert "t0ken" not in out.stdout
    assert {p: p.read_bytes() for p in files.values()} == before  # never modified

    text = _doctor(home, project, "--db", str(db))
    assert text.returncode == 1
    assert all(len(line) <= 80 for line in text.stdout.splitlines()), text.stdout
    assert "Claude Desktop: ~/.config/Claude/claude_desktop_config.json (1 of 2 wrapped)" in text.stdout
    assert "not valid JSON" in text.stdout and "something needs action" in text.stdout


def test_the_printed_fix_records_the_server_under_its_name(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    _write(desktop, {"mcpServers": {"demo": {"command": DEMO[0], "args": DEMO[1:]}}})
    db = tmp_path / "rec.db"
    report = json.loads(_doctor(home, project, "--json", "--db", str(db)).stdout)
    fix = _servers(report)[("Claude Desktop", "demo")]["fix"]
    # The host would now start the server through the fix: drive it with the real mock client.
    call = run("call", "tools/list", "--db", str(tmp_path / "call.db"), "--", fix["command"], *fix["args"])
    assert call.returncode == 0, call.stderr
    ended_named(db, "demo")  # a wrap the client's SIGTERM hurried may record it seconds later
    engine = open_engine(db, create=False)
    assert [s.name for s in list_sessions(engine)] == ["demo"]
    engine.dispose()
    # Put into the host's file, doctor finds it wrapped and all is well.
    _write(desktop, {"mcpServers": {"demo": fix}})
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_age = "30d"\n')
    again = _doctor(home, project, "--db", str(db), config=config)
    assert again.returncode == 0, again.stdout
    assert "(1 of 1 wrapped)" in again.stdout and "retention: max_age 30d" in again.stdout
    assert "all well" in again.stdout


def test_a_healthy_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _healthy_db(tmp_path / "rec.db")
    ok, database = _database(db, monkeypatch)
    assert ok, database
    texts = [f["text"] for f in database]
    assert f"{db} (from flag --db)" in texts and "integrity: quick_check ok" in texts
    assert any(t.startswith("schema revision ") and t.endswith("(current)") for t in texts)
    assert "file permissions 0600" in texts and "folder permissions 0700" in texts
    assert any(t.startswith("size ") and "free on its disk" in t for t in texts)
    retention = [f for f in database if f["text"].startswith("retention")]
    assert retention[0]["status"] == "note" and "none set" in retention[0]["text"] and retention[0]["hint"]


def test_a_corrupt_database_and_one_others_can_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    garbage = tmp_path / "junk" / "garbage.db"
    _write(garbage, "this is not a database at all" * 200)
    garbage.chmod(0o600)
    garbage.parent.chmod(0o700)
    ok, database = _database(garbage, monkeypatch)
    actions = [f for f in database if f["status"] == "action"]
    assert not ok and any("integrity" in f["text"] for f in actions), actions

    damaged = _healthy_db(tmp_path / "damaged" / "rec.db")
    conn = sqlite3.connect(damaged)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("CREATE TABLE filler (x TEXT)")
    conn.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,) for _ in range(200)])
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(damaged.read_bytes())
    page = 4096
    for offset in range(page * 3, min(len(data), page * 6)):  # scribble over a few b-tree pages
        data[offset] = 0xA5
    damaged.write_bytes(bytes(data))
    ok, database = _database(damaged, monkeypatch)
    actions = [f for f in database if f["status"] == "action"]
    assert not ok and any(f["text"].startswith("integrity") for f in actions), database

    readable = _healthy_db(tmp_path / "shared" / "rec.db")
    readable.chmod(0o644)
    ok, database = _database(readable, monkeypatch)
    actions = [f for f in database if f["status"] == "action"]
    assert not ok and [f["hint"] for f in actions] == [f"chmod 600 {readable}"]
    assert oct(readable.stat().st_mode & 0o777) == "0o644"  # doctor said it, changed nothing


def test_a_bad_config_file_needs_action(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_total_size = "lots"\n')
    db = _healthy_db(tmp_path / "rec.db")
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(config))
    report = run_doctor(tmp_path / "home", tmp_path, str(db))
    assert not report.ok
    (finding,) = report.config
    assert finding.status == "action" and str(config) in finding.text
    assert "retention.max_total_size" in finding.text


def test_doctor_on_postgresql(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = open_engine(pg_url)
    create_session(engine, kind="stdio-wrap", target=["python", "server.py"], name="pg")
    engine.dispose()
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(tmp_path / "none.toml"))
    user, rest = pg_url.split("://", 1)[1].split("@", 1)
    with_password = f"{pg_url.split('://', 1)[0]}://{user}:Pw0rdSecret@{rest}"  # trust auth ignores it
    report = run_doctor(tmp_path / "home", tmp_path, with_password)
    assert report.ok, report.as_json()
    texts = [f.text for f in report.database]
    assert "reachable" in texts and any(t.endswith("(current)") for t in texts), texts
    assert any(t.startswith("size ") for t in texts)
    assert "Pw0rdSecret" not in json.dumps(report.as_json())  # never printed
