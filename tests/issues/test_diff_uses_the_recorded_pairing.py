"""The diff pairs messages as the recorder did, from the stored pairing, not by matching ids again.

What was wrong: `replay.diff` re-paired requests and responses by JSON-RPC id
(`_Exchanges._take`) and split batches into copies that dropped the recorder's
pairing of each item (`meta.items`). A progress notification that arrived inside
a batch lost its link to its request (`related_seq`), so the same behaviour,
batched in one recording and not in the other, read as a missing and an extra
exchange and a changed call. Now the diff reads the store's `Message` records
and pairs by `answers_seq` / `related_seq` (per batch item from `meta.items`).

The sessions are framed and correlated by `MessageBuilder` (the recorder's own
code) and stored in a real SQLite database, then read back as the diff reads them.
"""

from __future__ import annotations

from pathlib import Path

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.replay.diff import diff_sessions
from inspector.store import SessionWriter, iter_messages, open_engine
from inspector.store.wire import wire

CALL = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t"}}}\n'
)
PROGRESS = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}'
RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}'


def record(db: Path, name: str, server_lines: list[bytes]) -> int:
    engine = open_engine(db)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["server"], name=name)
        builder = MessageBuilder(sid)
        rows = builder.feed(1, "c2s", "stdin", CALL)
        for i, line in enumerate(server_lines):
            rows += builder.feed(2 + i, "s2c", "stdout", line + b"\n")
        writer = SessionWriter(engine, sid)
        writer.on_batch(rows, builder.facts.snapshot())
        writer.on_end(0, "test", builder.facts.snapshot())
        return sid
    finally:
        engine.dispose()


def test_progress_inside_a_batch_stays_with_its_call(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    batched = record(db, "batched", [b"[" + PROGRESS + b"," + RESULT + b"]"])
    plain = record(db, "plain", [PROGRESS, RESULT])
    engine = open_engine(db)
    try:
        a, b = wire(engine, batched), wire(engine, plain)
        stored = list(iter_messages(engine, batched))
    finally:
        engine.dispose()
    # The recorder linked the batched progress to the call (seq 1): that is what the diff must use.
    assert stored[1].kind == "batch" and stored[1].meta["items"][0]["related_seq"] == 1

    d = diff_sessions(a, b)
    assert [(x.status, x.summary) for x in d.exchanges] == [("equal", "tools/call name=slow")]
    assert not d.changed
