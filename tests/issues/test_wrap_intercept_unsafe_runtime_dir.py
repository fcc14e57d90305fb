"""Regression (issue 17): `wrap --intercept` with an unsafe runtime directory (open to other
users). The control channel's token must not be written there, so the wrap stops before the server
starts, says why in one line (exit status 2), and its session ends with that reason instead of
staying 'recording'.

Before: the control channel started after the server, so the error left the server started and
the session recording."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from inspector.store import list_sessions, open_engine
from tests.warm_peers import warm_wrap_argv


def test_an_unsafe_runtime_directory_stops_the_wrap_before_the_server(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o755)
    runtime.chmod(0o755)
    marker = tmp_path / "server-started"
    server = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    argv = warm_wrap_argv(tmp_path / "rec.db", *server, extra=("--intercept",))
    out = subprocess.run(
        argv,
        input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        capture_output=True,
        timeout=60,
        env={**os.environ, "MCP_INSPECTOR_RUNTIME": str(runtime)},
    )
    assert out.returncode == 2, out.stderr
    assert b"refusing the runtime directory" in out.stderr and b"mode 0755" in out.stderr
    assert not marker.exists()  # the server never started
    assert list(runtime.iterdir()) == []  # no token written
    (session,) = list_sessions(open_engine(tmp_path / "rec.db"))
    assert session.ended_ns is not None and "runtime directory" in (session.end_reason or "")
