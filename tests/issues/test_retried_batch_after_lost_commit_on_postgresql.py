"""A batch retried after a failure may hold rows that are already stored (PostgreSQL).

When the database goes away at COMMIT, the commit may have gone through while its answer was lost:
the recorder then retries the same rows. The PostgreSQL writer's fast path is COPY, which cannot
skip a row that is already there: the retry failed on the unique (session_id, seq) index, forever,
and every later row of the session was lost. After a failed transaction the writer now retries
with INSERT ... ON CONFLICT DO NOTHING. The test stops a real cluster to make the failure, then
hands the writer a retry that repeats already committed rows (what a lost COMMIT answer leaves).
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine

LINE = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n'


def test_a_retry_repeating_committed_rows_goes_in(pg_cluster, pg_url: str) -> None:
    engine = open_engine(pg_url)
    sid = create_session(engine, kind="stdio-wrap", target=["x"])
    builder = MessageBuilder(sid)
    rows = [r for i in range(6) for r in builder.feed(1000 + i, "c2s", "stdin", LINE % i)]
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows[:3], None)  # committed

    pg_cluster.stop()
    try:
        with pytest.raises(Exception):  # noqa: B017 - the driver's error, whatever its class
            writer.on_batch(rows[3:], None)
    finally:
        pg_cluster.start()

    # The retry: the rows of the failed batch, plus (as after a lost COMMIT answer) stored ones.
    writer.on_batch(rows[1:], None)
    with engine.connect() as conn:
        seqs = conn.execute(text("SELECT seq FROM message WHERE session_id = :s ORDER BY seq"), {"s": sid})
        assert [r[0] for r in seqs] == [r["seq"] for r in rows]
    # Later batches take the fast path again and still land.
    more = builder.feed(2000, "c2s", "stdin", LINE % 99)
    writer.on_batch(more, None)
    with engine.connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM message WHERE session_id = :s"), {"s": sid}).scalar() == 7
        )
    engine.dispose()
