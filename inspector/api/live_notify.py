"""The live feed's push source on PostgreSQL: one dedicated connection that LISTENs.

Recorders NOTIFY after each committed batch (`store/notify.py`). `PgWakeups.run` keeps one
autocommit psycopg connection of its own (not one of the engine's pooled connections: a
LISTEN must stay on one session), LISTENs on the channel and calls `on_notice` for every
notification, on the event loop, so the feed polls the tables at once instead of at its next
tick. When the connection is lost (the server restarts, a network cut) it says so once,
reconnects with a growing delay (0.5 s to 5 s) and calls `on_state(True)` again: the feed
catches up with one poll, since notifications sent meanwhile are gone.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from sqlalchemy import Engine

from inspector.store.notify import CHANNEL, Notice, parse

__all__ = ["PgWakeups", "wakeups_for"]

_RETRY_FIRST = 0.5
_RETRY_MAX = 5.0


def conninfo(engine: Engine) -> str:
    """The libpq URI of the engine's database (whatever SQLAlchemy driver it names)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class PgWakeups:
    """LISTEN on `store.notify.CHANNEL`; report notices and whether it is listening."""

    def __init__(self, engine: Engine) -> None:
        self.url = conninfo(engine)
        self.shown = engine.url.render_as_string(hide_password=True)
        self.connects = 0

    async def run(self, on_notice: Callable[[Notice, int], None], on_state: Callable[[bool], None]) -> None:
        """Listen until cancelled; `on_notice(notice, received_ns)` per notification."""
        import psycopg

        delay = _RETRY_FIRST
        said_lost = False
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True, connect_timeout=10)
            except Exception as exc:  # psycopg.Error, or an OS error while resolving or connecting
                if not said_lost:
                    _say(f"cannot listen for changes on {self.shown} ({_first_line(exc)}); polling meanwhile")
                    said_lost = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.connects += 1
                    if said_lost:
                        _say(f"listening for changes on {self.shown} again")
                    said_lost = False
                    delay = _RETRY_FIRST
                    on_state(True)
                    async for note in conn.notifies():
                        notice = parse(note.payload)
                        if notice is not None:
                            on_notice(notice, time.time_ns())
                raise psycopg.OperationalError("the connection ended")
            except Exception as exc:  # the connection is gone (psycopg.Error mostly): listen again
                on_state(False)
                if not said_lost:
                    _say(
                        f"lost the listening connection to {self.shown} ({_first_line(exc)}); polling meanwhile"
                    )
                    said_lost = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX)


def wakeups_for(engine: Engine) -> PgWakeups | None:
    """The push source of an engine's database: PostgreSQL has one, SQLite none (the feed polls)."""
    return PgWakeups(engine) if engine.dialect.name == "postgresql" else None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _say(text: str) -> None:
    print(f"[mcp-inspect ui] live feed: {text}", flush=True)
