"""The live feed's status document (`GET /api/live/status`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["Behind", "LiveStatus"]


class LiveStatus(BaseModel):
    """How this server's live feed learns of changes made by other processes, and what woke it."""

    backend: str = Field(description="the store's database: `sqlite` or `postgresql`")
    mode: Literal["notify", "poll"] = Field(
        description="`notify`: woken by PostgreSQL notifications (LISTEN); `poll`: reads the tables "
        "every tick (SQLite, or PostgreSQL while the listening connection is down)"
    )
    notifications: int = Field(description="notifications received from recorders so far")
    polls_on_notification: int = Field(description="looks at the tables that a notification started")
    polls_on_timer: int = Field(description="looks at the tables that the interval started")
    polls_on_new_listener: int = Field(description="looks at the tables when the first websocket joined")
    last_notification_delay_ms: float | None = Field(
        description="from the recorder's commit to its notification here (clocks of both hosts), "
        "for the last one received"
    )
    listeners: int = Field(0, description="websockets connected now")
    queued_bytes: int = Field(0, description="bytes waiting in their queues now (bounded per websocket)")
    rows_events: int = Field(0, description="`messages` events the feed made so far (one per session a poll)")
    skipped_polls: int = Field(
        0,
        description="looks that found more new rows than one sends: subscribers got each session's "
        "newest rows (a `truncated` `messages` event) and fetch the ones in between when shown",
    )
    behind_markers: int = Field(
        0, description="`behind` markers sent in place of rows to websockets that fell behind, so far"
    )


class Behind(BaseModel):
    """Sent in place of new rows of a session when the client reads slower than they arrive: the
    rows it missed were dropped from its queue (nothing piles up on the server); the session now
    has `message_count` messages, and the client fetches what it shows through the REST API."""

    type: Literal["behind"] = "behind"
    session_id: int
    message_count: int = Field(
        description="the highest seq the feed had for the session (rows up to it exist)"
    )
