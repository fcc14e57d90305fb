"""The command lines that serve a recorded session as a mock server (shown by the UI, never run by it).

`mcp-inspect mock-server ID --db PATH` plays the session's server side on
stdio (what a client's config runs), `... --http 127.0.0.1:PORT` over
Streamable HTTP at `/mcp`. The program is this installation's `mcp-inspect`
(next to the running Python, else on PATH, else `python -m inspector`), and
the database path is absolute: clients start servers in other directories.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Engine

from inspector.store.models import Session

__all__ = ["db_path", "free_port", "mock_commands", "program"]


def program() -> list[str]:
    """How to run this installation's `mcp-inspect`."""
    beside = Path(sys.executable).parent / "mcp-inspect"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("mcp-inspect")
    return [found] if found else [sys.executable, "-m", "inspector"]


def db_path(engine: Engine) -> str:
    """The absolute path of the engine's SQLite database, or another database's URL without its
    password (commands shown or spawned never carry one: a shared PostgreSQL store's password
    belongs in ~/.pgpass or $PGPASSWORD, which every process libpq opens reads)."""
    if engine.url.get_backend_name() != "sqlite":
        u = engine.url  # rebuilt without the password (`URL.set(password=None)` keeps it)
        bare = URL.create(u.drivername, u.username, None, u.host, u.port, u.database, u.query)
        return str(bare.render_as_string(hide_password=False))
    database = engine.url.database
    if not database or database == ":memory:":
        return ":memory:"
    return str(Path(database).expanduser().resolve())


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on `host` right now (a suggestion: another process may take it later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _server_key(session: Session) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", session.name or "").strip("-").lower()
    return f"{base or 'session'}-{session.id}-mock"


def mock_commands(engine: Engine, session: Session, port: int) -> dict[str, Any]:
    """The API's `MockServerCommands` dict for one session."""
    db = db_path(engine)
    prog = program()
    stdio = [*prog, "mock-server", str(session.id), "--db", db]
    http = [*stdio, "--http", f"127.0.0.1:{port}"]
    config = {"mcpServers": {_server_key(session): {"command": stdio[0], "args": stdio[1:]}}}
    return {
        "session_id": session.id,
        "db": db,
        "stdio": {"argv": stdio, "shell": shlex.join(stdio), "client_config": config},
        "http": {
            "argv": http,
            "shell": shlex.join(http),
            "url": f"http://127.0.0.1:{port}/mcp",
            "port": port,
        },
    }
