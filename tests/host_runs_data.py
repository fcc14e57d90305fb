"""A host run as test data: sessions recorded through the real recorder and store writer with the
facts a wrap records (`facts["parent"]`, `facts["host_config"]`), their rows at chosen times.

`record_runs(db)` records, into the store `db` (an SQLite path or a database URL):
  a1 "weather" and a2 "files": one host process (HOST_A, clientInfo "claude-ai"); a1 ended, with a
      config file fact; a2 left `recording` (owned by this process: the run is live). Each has
      a stderr line between its stdin and stdout rows.
  b "other": another host (HOST_B, "cursor-vscode"); reused: HOST_A's pid started later (another run);
  lone: no parent (in no run).
Returns the ids by those names. Row times are T0 + a few ms, in the order the tests assert.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from inspector.capture import Recorder
from inspector.capture.redact import Redaction
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, open_engine
from inspector.store.db import writing
from inspector.store.writer import update_session_row

__all__ = ["CONFIG_FILE", "HOST_A", "HOST_B", "MS", "T0", "record_runs"]

CONFIG_FILE = "/home/u/.config/Claude/claude_desktop_config.json"
T0 = 1_700_000_000_000_000_000
MS = 1_000_000  # rows are ms apart (a browser reads ns times as doubles: 256 ns apart at best)
HOST_A = {"pid": 4242, "started_ns": 1_690_000_000_000_000_000, "exe": "claude"}
HOST_B = {"pid": 4343, "started_ns": 1_690_000_000_000_000_000, "exe": "cursor"}
# The same pid as HOST_A, started later: another process (the pid was reused), another run.
HOST_A_REUSED = {**HOST_A, "started_ns": HOST_A["started_ns"] + 10**9}


def _init(client: str) -> bytes:
    return (
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": client, "version": "1"},
                },
            }
        )
        + b"\n"
    )


def _record(
    engine: Any,
    recorder: Recorder,
    name: str,
    facts: dict[str, Any],
    lines: list[tuple[int, str, str, bytes]],
    *,
    end: bool = True,
) -> int:
    sid = create_session(engine, kind="stdio-wrap", target=["server", name], name=name)
    tap = recorder.open(sid)
    tap.add_facts(facts)
    for ts, direction, channel, data in lines:
        tap.submit(direction, channel, data, T0 + ts * MS)
    if end:
        tap.end(0, "server exited")
    return sid


def record_runs(db_path: Path | str) -> dict[str, int]:
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    config = {
        "host": "claude-desktop",
        "file": CONFIG_FILE,
        "entry": "x",
    }
    a1 = _record(
        engine, recorder, "weather", {"parent": HOST_A, "host_config": config},
        [(10, "c2s", "stdin", _init("claude-ai")), (30, "s2c", "stderr", b"weather: starting\n"),
         (50, "s2c", "stdout", b'{"jsonrpc":"2.0","id":0,"result":{}}\n')],
    )  # fmt: skip
    a2 = _record(
        engine, recorder, "files", {"parent": HOST_A},
        [(20, "c2s", "stdin", _init("claude-ai")), (40, "s2c", "stderr", b"files: ready\n")],
        end=False,
    )  # fmt: skip
    b = _record(engine, recorder, "other", {"parent": HOST_B}, [(15, "c2s", "stdin", _init("cursor-vscode"))])
    reused = _record(
        engine, recorder, "later", {"parent": HOST_A_REUSED}, [(60, "c2s", "stdin", _init("claude-ai"))]
    )
    lone = _record(engine, recorder, "lone", {}, [(5, "c2s", "stdin", _init("inspector"))])
    recorder.stop()  # every row and fact is written (and every open session ended)
    # a2 as a wrap still running leaves it: `recording`, its recorder (this process) alive.
    with writing(engine) as conn:  # one transaction
        update_session_row(conn, a2, {"status": "recording", "ended_ns": None})
    engine.dispose()
    return {"a1": a1, "a2": a2, "b": b, "reused": reused, "lone": lone}


def join_run(db_path: Path | str) -> int:
    """A third server, "search", that host A starts while its run is live (`record_runs`' run of
    a1 and a2): its one stderr line at 45 ms, between rows the run already has. Its session id."""
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    sid = _record(
        engine,
        recorder,
        "search",
        {"parent": HOST_A},
        [(45, "s2c", "stderr", b"search: joined\n")],
        end=False,
    )
    recorder.stop()
    engine.dispose()
    return sid
