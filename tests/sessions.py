"""Recorded sessions as test data: checked-in session files (tests/data/sessions/) put into a store
through the importer, as `mcp-inspect import` would. Use these wherever recording itself is not
what a test is about; they cost milliseconds where recording through the real shim costs seconds.

    demo.jsonl   the bundled demo (SDK client, legacy handshake, 52 messages) recorded through
                 `mcp-inspect wrap` (`mcp-inspect export`, the interpreter's path made neutral).
    demo-variant.jsonl  the same with the demo's `--variant` (changed tools/list, weather and fail
                 answers), recorded and exported the same way.
    clock.jsonl  tests/peers/clock_server.py driven as `tests/api/recordings.record_clock` drives it
                 (`greet Ada`, then `now` twice; SDK client, legacy handshake) through wrap, exported
                 the same way (the interpreter and the script's path made neutral).

`load(db, "demo", name="demo")` returns the new session's id. `db` is a path or a database URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from inspector.share.importer import import_jsonl
from inspector.store import open_engine

DATA = Path(__file__).resolve().parent / "data" / "sessions"


def lines(file: str, *, name: str | None = None) -> list[bytes]:
    """The lines of session file `file` (without `.jsonl`), each session renamed `name` if given."""
    out = []
    for line in (DATA / f"{file}.jsonl").read_bytes().splitlines():
        if name is not None and b'"type":"session"' in line:
            record = orjson.loads(line)
            record["name"] = name
            line = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
        out.append(line)
    return out


def load(db: Any, file: str = "demo", *, name: str | None = None) -> int:
    """Import session file `file` into `db` (a path or URL); the id of its first new session."""
    engine = open_engine(db)
    try:
        done = import_jsonl(engine, lines(file, name=name), source=file)
    finally:
        engine.dispose()
    return done.session_ids[0]
