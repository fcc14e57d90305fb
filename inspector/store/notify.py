"""Telling other processes that the store changed: PostgreSQL's NOTIFY, sent by the writers.

A recorder sends one notification per committed batch on the channel `CHANNEL`, inside the
batch's own transaction (PostgreSQL delivers it at COMMIT, never for a batch rolled back):
a session created, rows written (up to message id N), a session ended. A `ui` server
LISTENs (`api/live_notify.py`) and wakes its live feed at once instead of polling the tables,
so a session recorded on another machine appears without delay. SQLite has no such thing:
`notifier(engine)` is None there and the feed keeps polling.

The payload is one line of text, `KIND SENT_NS SESSION_IDS [UPTO]`: `KIND` is `created`,
`rows` or `ended` (recorders), `changed` or `deleted` (a rename or delete through a `ui`); `SENT_NS` the writer's clock (time.time_ns) when it sent it, for the
feed's delay figure; `SESSION_IDS` comma-separated (`*` when too many for a payload);
`UPTO` the highest message id of this connection's inserts (`rows` only). The feed does not
trust it for anything but waking up: it reads what changed from the tables, as it always did.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.store.db import Conn, backend_of, writing

if TYPE_CHECKING:
    from inspector.store.db import Store

__all__ = ["CHANNEL", "Notice", "Notifier", "announce", "notifier", "parse"]

CHANNEL = "mcp_inspector"
KINDS = ("created", "rows", "ended", "changed", "deleted")
_MAX_IDS = 200  # PostgreSQL's payload limit is 8000 bytes: past this many ids, `*`


class Notifier:
    """Sends the notifications of one writer connection (PostgreSQL only)."""

    def __init__(self) -> None:
        self.sent = 0

    def send(self, conn: Conn, kind: str, session_ids: Iterable[int], *, inserted: bool = False) -> None:
        """Queue a notification in `conn`'s open transaction (delivered when it commits).
        `inserted`: this transaction inserted message rows (the payload then names the last id)."""
        ids = sorted(set(session_ids))
        listed = ",".join(map(str, ids)) if len(ids) <= _MAX_IDS else "*"
        head = f"{kind} {time.time_ns()} {listed or '-'}"
        params = {"channel": CHANNEL, "head": head}
        if inserted:
            # currval: this connection's own last message id, no scan (defined: it just inserted).
            conn.execute(
                "SELECT pg_notify(:channel, :head || ' ' || "
                "currval(pg_get_serial_sequence('message', 'id'))::text)",
                params,
            )
        else:
            conn.execute("SELECT pg_notify(:channel, :head)", params)
        self.sent += 1


def notifier(store: Store) -> Notifier | None:
    """A notifier for a PostgreSQL store, None for any other database (nothing listens there)."""
    return Notifier() if backend_of(store) == "postgresql" else None


def announce(store: Store, kind: str, session_ids: Iterable[int]) -> None:
    """Notify a change made outside a writer (a rename, a delete) in a transaction of its own;
    nothing on SQLite."""
    notify = notifier(store)
    if notify is None:
        return
    with writing(store) as conn:
        notify.send(conn, kind, session_ids)


@dataclass(frozen=True, slots=True)
class Notice:
    """One notification as the feed reads it."""

    kind: str
    sent_ns: int
    session_ids: tuple[int, ...] | None  # None: `*` (too many to list)
    upto: int | None


def parse(payload: str) -> Notice | None:
    """A payload sent by `Notifier.send`, or None when it is not one (another program's)."""
    parts = payload.split(" ")
    if len(parts) not in (3, 4) or parts[0] not in KINDS:
        return None
    try:
        sent = int(parts[1])
        ids = None if parts[2] == "*" else tuple(int(i) for i in parts[2].split(",") if i and i != "-")
        upto = int(parts[3]) if len(parts) == 4 else None
    except ValueError:
        return None
    return Notice(parts[0], sent, ids, upto)
