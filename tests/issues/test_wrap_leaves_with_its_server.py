"""`wrap` leaves with its server when the client closes stdin, and loses nothing (issue #34, item 3).

In a short session the server was gone in 16-52 ms, and the wrap 0.75-1.4 s later (2.6-4 s on a
loaded machine): the store it opens beside the forwarding was still importing, and the wrap waited
for it to record the few rows it held. Hosts restart servers often and wait for the old process to
go. Now the held rows go to a finishing process (`inspector/wrap_finish.py`, as on a host's SIGTERM)
and the wrap exits at once. How soon is a figure of the bench (`bench/wrap_exit.py`, beside the
server's own exit in the same run), not a timed assertion here; this checks that a quick exit
loses nothing: the session is recorded in full, as the wrap itself would have recorded it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio

from inspector.store import list_sessions, open_engine
from tests.conftest import ROOT, wrap_argv
from tests.shim_process import messages

RESPONDER = [sys.executable, str(ROOT / "bench" / "responder.py")]  # answers each request, exits at EOF


def test_a_short_session_is_recorded_in_full_after_the_wrap_has_left(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    proc = subprocess.Popen(
        wrap_argv(db, *RESPONDER, extra=("--name", "short")),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # a host that waits for the process, not for its stderr's end
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    proc.stdin.flush()
    assert proc.stdout.readline() == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    proc.stdin.close()
    assert proc.wait(60) == 0
    proc.stdout.close()

    async def recorded() -> None:
        with anyio.fail_after(60):
            while True:
                if db.exists():
                    engine = open_engine(db)
                    try:
                        ended = [s for s in list_sessions(engine) if s.status == "ended"]
                    finally:
                        engine.dispose()
                    if ended:
                        return
                await anyio.sleep(0.05)

    anyio.run(recorded)
    engine = open_engine(db)
    try:
        (session,) = list_sessions(engine)
        rows = messages(engine, session.id)
    finally:
        engine.dispose()
    assert session.name == "short" and session.exit_status == 0, session
    assert session.end_reason and "finishing process" not in session.end_reason, session.end_reason
    assert [(m.direction, m.raw) for m in rows] == [
        ("c2s", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
        ("s2c", b'{"jsonrpc":"2.0","id":1,"result":{}}\n'),
    ]
