"""Generated sessions for the UI benchmark, written through the recorder's own row builder and writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine

REQ = b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"name":"tool%d","arguments":{"n":%d}}}\n'
RESP = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer %d"}]}}\n'
METHODS = (b"tools/call", b"resources/read", b"prompts/get", b"tools/list")


def generate(db: Path, messages: int, *, name: str, batch: int = 20_000) -> int:
    """A finished stdio session of `messages` rows (request/response pairs, a stderr line every 50)."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["generated-server"], name=name)
    builder = MessageBuilder(sid)
    writer = SessionWriter(engine, sid)
    rows: list[dict[str, Any]] = []
    ts = 1_700_000_000_000_000_000
    i = 0
    while builder.seq < messages:
        i += 1
        ts += 1_000_000
        rows += builder.feed(ts, "c2s", "stdin", REQ % (i, METHODS[i % 4], i % 7, i))
        if builder.seq < messages:
            rows += builder.feed(ts + 250_000, "s2c", "stdout", RESP % (i, i))
        if i % 50 == 0 and builder.seq < messages:
            rows += builder.feed(ts + 300_000, "s2c", "stderr", b"server log line %d\n" % i)
        if len(rows) >= batch:
            writer.on_batch(rows, None)
            rows = []
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "generated", builder.facts.snapshot())
    engine.dispose()
    return sid
