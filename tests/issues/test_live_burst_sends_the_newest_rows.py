"""A look at the database that finds more new rows than one sends still sends the newest rows.

Bug (issue 21, live tail at 5,000 msg/s): a poll that found more than MAX_ROWS_PER_POLL new ids
read no rows and sent only a `behind` marker with the session's count. A timeline at the tail
then scrolled to a window of placeholders and fetched pages through the REST API before the last
row showed: at 5,000 msg/s, a look in five did this, and the last row shown lagged 5-9 s. Now
each subscribed session that grew gets its newest TAIL_ROWS rows in one `truncated` `messages`
event (the rows in between are fetched only if they scroll into view); a span that fits is sent
whole, as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.scale_live import REQ, RESP
from inspector.api import live
from inspector.api.live import LiveFeed
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from inspector.store.writer import StoreWriter


def _write(db: Path | str, sid: int, builder: MessageBuilder, n: int) -> None:
    """`n` messages of session `sid` in one commit (a recorder's batch)."""
    engine = open_engine(db)
    writer = StoreWriter(engine)
    rows: list[Any] = []
    while len(rows) < n:
        i = builder.seq
        rows += builder.feed(1_000 + i, "c2s", "stdin", REQ % (i, i % 7, i))
        rows += builder.feed(2_000 + i, "s2c", "stdout", RESP % (i, i))
    writer.on_batch(rows, {})
    writer.close()
    engine.dispose()


def test_a_burst_past_one_look_sends_the_newest_rows_and_a_small_one_sends_all(any_store: Path | str) -> None:
    engine = open_engine(any_store)
    sid = create_session(engine, kind="stdio-wrap", target=["flooding-server"], name="burst")
    other = create_session(engine, kind="stdio-wrap", target=["quiet-server"], name="other")
    feed = LiveFeed(engine)
    feed._reset()
    builder = MessageBuilder(sid)
    try:
        burst = 3 * live.MAX_ROWS_PER_POLL
        _write(any_store, sid, builder, burst)
        events = [json.loads(data) for targets, data in feed.poll([sid, other]) if targets is not None]
        assert len(events) == 1, [e["type"] for e in events]  # the quiet session sent nothing
        (event,) = events
        assert event["type"] == "messages" and event["session_id"] == sid and event["truncated"] is True
        seqs = [r["seq"] for r in event["items"]]
        assert seqs == list(range(burst - live.TAIL_ROWS + 1, burst + 1))
        assert feed.status().skipped_polls == 1

        _write(any_store, sid, builder, 10)  # what one look sends: every new row, in order
        events = [json.loads(data) for targets, data in feed.poll([sid]) if targets is not None]
        assert [(e["type"], e["truncated"]) for e in events] == [("messages", False)]
        assert [r["seq"] for r in events[0]["items"]] == list(range(burst + 1, burst + 11))
        assert not [t for t, _ in feed.poll([sid]) if t is not None]  # nothing new: no rows
    finally:
        engine.dispose()
