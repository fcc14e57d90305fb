"""`mcp-inspect install` for real: the official Python SDK client starts every rewritten stdio entry
(JSON, JSONC, TOML, a Claude Code per-project entry) as a host would, and the session is in the
database under the entry's name with `facts.host_config`; an HTTP entry routed through the
recording gateway (`mcp-inspect gateway start`) reaches server-everything and is recorded. Temporary
home, project, config, state and runtime folders (tests/host_files.py); `install`, `gateway` in
this process, the servers and the gateway as the processes a host would start."""

from __future__ import annotations

import gc
import json
import os
import socket
import tomllib
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import Ran, run
from tests.host_files import install_env
from tests.http_peers import everything_http_server
from tests.shim_process import ended_named
from tests.warm_peers import demo_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)


def _env(tmp: Path) -> dict[str, str | None]:
    env = install_env(tmp)
    env["MCP_INSPECTOR_RUNTIME"] = str(tmp / "run")  # this test's gateway pid file, no other's
    return env


def _cli(tmp: Path, *args: str) -> Ran:
    home, project = tmp / "home", tmp / "project"
    project.mkdir(parents=True, exist_ok=True)
    return run(*args, "--home", str(home), "--project", str(project), env=_env(tmp), cwd=project, timeout=120)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _echo_each(servers: dict[str, StdioServerParameters]) -> dict[str, str]:
    """Each server's echo of its own name, as a host starts it (the SDK's stdio client)."""
    answers = {}
    for name, params in servers.items():
        with anyio.fail_after(60):
            async with mcp.Client(stdio_client(params), mode="legacy") as client:
                result = await client.call_tool("echo", {"text": f"hello {name}"})
        answers[name] = result.content[0].text  # type: ignore[union-attr]
    gc.collect()  # the SDK's subprocess transports go while their event loop is still open
    return answers


def test_the_sdk_client_runs_every_rewritten_stdio_entry_and_its_session_names_the_entry(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    db = tmp_path / "rec.db"
    # Each entry's env is kept: it names a config file that does not exist (not the developer's).
    env = {"MCP_INSPECTOR_CONFIG": str(tmp_path / "none.toml"), "DEMO_KEPT": "yes"}
    argv = json.dumps(DEMO[1:])
    files = {
        "desktop": _write(home / ".config" / "Claude" / "claude_desktop_config.json", json.dumps(
            {"globalShortcut": "", "mcpServers": {"desk": {"command": DEMO[0], "args": DEMO[1:], "env": env}}},
            indent=2)),
        "vscode": _write(project / ".vscode" / "mcp.json",
                         '{\n  // mine\n  "servers": {\n    "code": {"type": "stdio", "command": '
                         f'{json.dumps(DEMO[0])}, "args": {argv}, "env": {json.dumps(env)}}},\n  }},\n}}\n'),
        "codex": _write(home / ".codex" / "config.toml",
                        f'model = "o3"\n\n[mcp_servers.cdx]\ncommand = {json.dumps(DEMO[0])}\nargs = {argv}\n'
                        f"env = {{ MCP_INSPECTOR_CONFIG = {json.dumps(env['MCP_INSPECTOR_CONFIG'])} }}\n"),
        "claude": _write(home / ".claude.json", json.dumps({"projects": {str(project): {"mcpServers": {
            "proj": {"type": "stdio", "command": DEMO[0], "args": DEMO[1:], "env": env}}}}})),
    }  # fmt: skip
    out = _cli(tmp_path, "install", "--all", "--db", str(db))
    assert out.returncode == 0, out.stderr
    entries: dict[str, tuple[str, Path, dict[str, Any]]] = {
        "desk": ("claude-desktop", files["desktop"], json.loads(files["desktop"].read_text())["mcpServers"]["desk"]),
        "code": ("vscode", files["vscode"], {}),
        "cdx": ("codex", files["codex"], tomllib.loads(files["codex"].read_text())["mcp_servers"]["cdx"]),
        "proj": ("claude-code", files["claude"],
                 json.loads(files["claude"].read_text())["projects"][str(project)]["mcpServers"]["proj"]),
    }  # fmt: skip
    from inspector.hosts.jsonc import loads_jsonc

    entries["code"][2].update(loads_jsonc(files["vscode"].read_text())["servers"]["code"])
    servers = {}
    for name, (_host, _path, entry) in entries.items():
        assert entry["command"] != DEMO[0] and "wrap" in entry["args"], name
        servers[name] = StdioServerParameters(
            command=entry["command"], args=entry["args"], env=entry.get("env")
        )
    assert anyio.run(_echo_each, servers) == {name: f"hello {name}" for name in entries}

    for name, (host, path, _entry) in entries.items():
        session = ended_named(db, name)
        assert session.facts["host_config"] == {"host": host, "file": str(path), "entry": name}, name
        assert session.message_count >= 4, name
    # doctor: every entry wrapped and recording (a session under its name).
    report = json.loads(_cli(tmp_path, "doctor", "--json", "--db", str(db)).stdout)
    servers = {s["name"]: s for h in report["hosts"] for s in h["servers"]}
    assert {n: (servers[n]["wrapped"], servers[n]["recording"]) for n in entries} == {
        n: (True, True) for n in entries
    }


def test_an_http_entry_is_recorded_through_the_gateway(tmp_path: Path) -> None:
    home, db = tmp_path / "home", tmp_path / "rec.db"
    port = _free_port()
    with everything_http_server("streamableHttp") as target:
        cursor = _write(home / ".cursor" / "mcp.json", json.dumps(
            {"mcpServers": {"everything": {"url": target, "headers": {"X-Trace": "t-1"}}}}, indent=2))  # fmt: skip
        out = _cli(tmp_path, "install", "cursor", "--gateway-listen", f"127.0.0.1:{port}")
        assert out.returncode == 0, out.stderr
        entry = json.loads(cursor.read_text())["mcpServers"]["everything"]
        assert entry["url"] == f"http://127.0.0.1:{port}/everything/mcp"
        assert entry["headers"] == {"X-Trace": "t-1"}
        gateway_file = tmp_path / "config" / "gateway.toml"
        assert os.stat(gateway_file).st_mode & 0o077 == 0

        assert run("gateway", "status", env=_env(tmp_path)).returncode == 1  # not started yet
        started = run("gateway", "start", "--db", str(db), env=_env(tmp_path), timeout=120)
        assert started.returncode == 0, started.stderr + started.stdout
        try:
            status = run("gateway", "status", "--json", env=_env(tmp_path))
            assert status.returncode == 0 and json.loads(status.stdout)["up"] is True, status.stdout
            report = json.loads(_cli(tmp_path, "doctor", "--json", "--db", str(db)).stdout)
            assert [f["status"] for f in report["gateway"]] == ["ok"], report["gateway"]
            (server,) = [s for h in report["hosts"] for s in h["servers"]]
            assert server["name"] == "everything" and server["wrapped"] is True

            async def tools() -> list[str]:
                with anyio.fail_after(60):
                    http = create_mcp_http_client(headers=entry["headers"])
                    async with http, mcp.Client(streamable_http_client(entry["url"], http_client=http),
                                                mode="legacy") as client:  # fmt: skip
                        listed = await client.list_tools()
                return [t.name for t in listed.tools]

            assert "echo" in anyio.run(tools)
        finally:
            stopped = run("gateway", "stop", env=_env(tmp_path))
        assert stopped.returncode == 0 and "gateway stopped" in stopped.stdout, stopped.stdout
        assert run("gateway", "status", env=_env(tmp_path)).returncode == 1
    engine = open_engine(db, create=False)
    try:
        (session,) = [s for s in list_sessions(engine) if s.name == "everything"]
        assert session.kind == "http-proxy" and session.message_count >= 2
    finally:
        engine.dispose()
    # uninstall takes the entry and the route back out.
    assert _cli(tmp_path, "uninstall", "cursor").returncode == 0
    assert json.loads(cursor.read_text())["mcpServers"]["everything"]["url"] == target
