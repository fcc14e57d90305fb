"""The live feed kept running when the database could not be read as the first websocket joined.

Bug: the feed read the newest ids (`_reset`) outside its error handling. A PostgreSQL server
restarting at that moment raised out of the feed's task: it ended for good, and no websocket
of that `ui` got another event until it was restarted. Now that read is retried like any poll.
Real PostgreSQL cluster, stopped while the listener joins and started again.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from inspector.api.live import Listener, LiveFeed
from inspector.capture.sessions import create_session
from inspector.store import open_engine
from tests.postgres import PgCluster


@pytest.mark.anyio
async def test_feed_recovers_when_the_database_is_down_as_a_listener_joins(
    pg_cluster: PgCluster, pg_url: str
) -> None:
    engine = open_engine(pg_url)
    feed = LiveFeed(engine, interval=0.05, safety_interval=0.2)
    task = asyncio.create_task(feed.run())
    try:
        await asyncio.sleep(0.5)
        await asyncio.to_thread(pg_cluster.stop)
        try:
            listener = Listener()
            feed.add(listener)  # the feed's first read of the database fails now
            await asyncio.sleep(0.5)
        finally:
            await asyncio.to_thread(pg_cluster.start)
        async with asyncio.timeout(30):  # until the feed reads the database again (it had failed)
            while getattr(feed, "_failing", True) or task.done():
                assert not task.done(), task.exception()
                await asyncio.sleep(0.02)
        sid = await asyncio.to_thread(
            create_session, engine, kind="stdio-wrap", target=["server"], name="later"
        )
        async with asyncio.timeout(30):
            while True:
                event = json.loads(await listener.next())
                if event["type"] == "session_created" and event["session"]["id"] == sid:
                    break
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        engine.dispose()
