"""The live feed's status document (`GET /api/live/status`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["LiveStatus"]


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
