"""A host's SIGTERM that reaches `wrap` after its server ended, before the store opened, loses nothing.

Found as a flaky real-peer test (`test_sdk_client_and_server_everything_discover_fallback`:
"no session" in the database) on a loaded machine. The official SDK client closes the
server's stdin, waits 2 s, then sends SIGTERM to the process group (SIGKILL 2 s later).
`wrap` opens its store off the start-up path, and on a loaded machine the imports took
longer than the whole session: once the server had exited, the shim's signal handlers were
gone, and the SIGTERM killed the process with every copy it held. Nothing was recorded.

Now a termination signal in that window hands the held copies to a detached finishing
process (`inspector.wrap_finish`), which records them; the wrap exits at once
with the server's status, as the host asked.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.store import list_sessions, open_engine
from tests.shim_process import first_child, messages, reaped

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'


# `wrap` as an MCP client starts it, or with a slow interpreter start-up (a loaded machine): the
# server is spawned only after the client has written its request.
SLOW_START = "import time; time.sleep(0.5); from inspector.entry import main; main()"


@pytest.mark.parametrize("start", ["at-once", "slow"])
def test_sigterm_after_the_server_ended_still_records_the_session(tmp_path: Path, start: str) -> None:
    db = tmp_path / "rec.db"
    # A server that says nothing and exits when its stdin closes: the store opens late (after
    # OPEN_AFTER_S or the server's end), so the signal below lands before it exists.
    python = [sys.executable, "-m", "inspector"] if start == "at-once" else [sys.executable, "-c", SLOW_START]
    wrap = subprocess.Popen(
        [*python, "wrap", "--db", str(db), "--", "sh", "-c", "cat >/dev/null"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert wrap.stdin is not None
    wrap.stdin.write(PING)
    wrap.stdin.flush()
    # Wait for the server itself: "wrap has no child" is not "the server has exited" when the
    # wrap has not spawned it yet (the SIGTERM below then killed the wrap starting up), nor when
    # one of the wrap's threads ended while its children were listed (the old helper read that as
    # "no child", and its assertion, reading again, found the server there).
    server = first_child(wrap.pid)
    wrap.stdin.close()  # the client is done: wrap closes the server's stdin and it exits
    deadline = time.monotonic() + 30
    while not reaped(server, wrap.pid) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert reaped(server, wrap.pid), "the server did not exit when its stdin closed"
    time.sleep(0.05)  # the shim has returned from its forwarding loop
    wrap.send_signal(signal.SIGTERM)  # as the SDK client does 2 s after closing stdin
    assert wrap.wait(timeout=30) == 0  # the server's status, not death by SIGTERM (-15)

    session = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if db.exists():
            engine = open_engine(db)
            try:
                ended = [s for s in list_sessions(engine) if s.status == "ended"]
                if ended:
                    session = ended[0]
                    rows = messages(engine, session.id)
                    break
            finally:
                engine.dispose()
        time.sleep(0.2)
    assert session is not None, "the held traffic was never recorded"
    assert [r.raw for r in rows if r.direction == "c2s"] == [PING]
    # Recorded by the finishing process: since issue #34 the wrap hands its rows off and leaves as
    # soon as its server has exited, usually before the host's SIGTERM (then the reason is the server's).
    assert session.end_reason is not None
    assert "SIGTERM" in session.end_reason or session.end_reason == "client-eof", session.end_reason
    assert session.exit_status == 0
