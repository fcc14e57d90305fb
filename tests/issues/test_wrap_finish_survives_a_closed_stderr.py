"""A wrap's finishing process whose stderr pipe was closed left its session empty and `recording`.

Found in CI (three tests on a loaded machine: "session still recording", "no client messages to
replay"). When a wrap's server is gone before the store has opened, the held copies go to
`python -m inspector.wrap_finish`, which inherits the wrap's stderr. Our `call` (and SDK clients)
read a stdio server's stderr through a pipe they close when done, so the finishing process's
"recording session N" line raised BrokenPipeError right after the session row was created: the
process died with none of the messages written and the session never ended.

Now a line that cannot be written is dropped, never the recording. The process boundary (an
inherited, closed pipe) is what this test is about.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

from inspector.store import iter_messages, list_sessions, open_engine

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
PONG = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


def test_the_held_copies_are_recorded_when_nobody_reads_stderr(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    now = time.time_ns()
    state = {
        "command": ["server"], "db": str(db), "name": "held", "redact": [], "redact_path": [],
        "keep_secrets": False, "returncode": 0, "reason": "client-eof", "otlp": None,
        "otlp_content": False, "metadata_only": False, "max_record_bytes": None, "otel": False,
        "quiet": False,  # it says "recording session 1" and "ended" on stderr, as the wrap would
        "held": [(0, now, "c2s", "stdin", PING), (0, now + 1000, "s2c", "stdout", PONG)],
    }  # fmt: skip
    held = tmp_path / "wrap.held"
    held.write_bytes(marshal.dumps(state))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the host has stopped reading
    try:
        finishing = subprocess.run(
            [sys.executable, "-m", "inspector.wrap_finish", str(held)], stderr=write_end, timeout=60
        )
    finally:
        os.close(write_end)
    assert finishing.returncode == 0
    engine = open_engine(db, create=False)
    try:
        (session,) = list_sessions(engine)
        assert (session.name, session.status, session.end_reason) == ("held", "ended", "client-eof")
        assert [m.raw for m in iter_messages(engine, session.id)] == [PING, PONG]
    finally:
        engine.dispose()
    assert not held.exists()
