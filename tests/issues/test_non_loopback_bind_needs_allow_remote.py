"""Regression (issue 13, finding 5): only `ui` refused a non-loopback interface without
`--allow-remote`. `proxy --listen 0.0.0.0:...` printed a warning and served the network anyway;
`serve --http 0.0.0.0:...` and `mock-server --http 0.0.0.0:...` said nothing at all.

Now each command exits with status 2 and a message naming `--allow-remote` before it binds or
opens anything (the database is not even created); with the flag it starts and still answers
on loopback through the guard. (The refusals run in-process; the listeners that start are processes.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.cli_in_process import Ran
from tests.http_peers import LineProcess
from tests.listeners import INITIALIZE, JSON_HEADERS, empty_recording
from tests.warm_peers import inspector_argv

READY = r"(point your client at|mock server at|serving .* at) (http://\S+?)[;\s]"


def _args(command: str, db: Path, listen: str) -> list[str]:
    """The command's arguments (after `mcp-inspect`)."""
    if command == "proxy":
        return ["proxy", "--target", "http://127.0.0.1:9/mcp", "--listen", listen, "--db", str(db)]
    if command == "serve":
        return ["serve", "--http", listen, "--db", str(db)]
    return ["mock-server", "empty", "--http", listen, "--db", str(db)]


@pytest.mark.parametrize("command", ["proxy", "serve", "mock-server"])
def test_non_loopback_bind_is_refused_without_the_flag(
    command: str, tmp_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    db = tmp_path / "fresh.db"
    if command == "mock-server":
        empty_recording(db)
    before = db.stat().st_mtime_ns if db.exists() else None
    # In-process: a command that starts serving instead is stopped (Ctrl-C) after 30 s.
    done = mcp_inspect(*_args(command, db, "0.0.0.0:0"), timeout=30)
    output = done.stdout + done.stderr
    assert "--allow-remote" in output and not re.search(READY, output), (
        f"{command} started on 0.0.0.0 without --allow-remote: {output}"
    )
    assert done.returncode == 2, output
    assert "error:" in output and "0.0.0.0" in output and "Traceback" not in output, output
    after = db.stat().st_mtime_ns if db.exists() else None
    assert after == before, "nothing may be opened before the bind is refused"


@pytest.mark.parametrize("command", ["proxy", "serve", "mock-server"])
def test_with_the_flag_it_starts_and_answers_on_loopback(command: str, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    if command == "mock-server":
        empty_recording(db)
    server = LineProcess(inspector_argv(*_args(command, db, "0.0.0.0:0"), "--allow-remote"))
    try:
        url = server.wait_for(READY).group(2)
        port = url.split("/")[2].rsplit(":", 1)[1]
        local = f"http://127.0.0.1:{port}/mcp"
        if command != "proxy":  # the proxy's target is down: a 502 would prove only that it forwarded
            answer = httpx.post(local, content=json.dumps(INITIALIZE), headers=JSON_HEADERS, timeout=30)
            assert answer.status_code == 200, answer.text
        refused = httpx.post(local, content="{}", headers={**JSON_HEADERS, "host": "evil.example"})
        assert refused.status_code == 403
    finally:
        server.stop()
