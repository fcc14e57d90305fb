"""The search API's JSON shapes (`GET /api/search`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["SearchHit", "SearchPageOut"]


class SearchHit(BaseModel):
    """One message whose text matches: where it is, what it is, and its text around the match."""

    id: int = Field(description="the message's id (the order of hits)")
    session_id: int
    session_name: str | None
    seq: int = Field(description="open it in the timeline at /sessions/{session_id}?seq={seq}")
    ts_ns: int
    direction: Literal["c2s", "s2c"]
    channel: str
    kind: str
    method: str | None
    snippet: str = Field(description="about 140 characters around the first match, `…` where cut")
    marks: list[list[int]] = Field(description="[start, end) of each query word found in `snippet`")


class SearchPageOut(BaseModel):
    """A page of hits, oldest first, over every session or one."""

    query: str
    session_id: int | None
    hits: list[SearchHit]
    next_cursor: str | None = Field(
        description="pass as `cursor` for the hits after this page; null at the end"
    )
    total: int = Field(description="how many messages match (after `cursor`), counted up to a cap")
    total_exact: bool = Field(description="false when more than `total` match (the count stopped at its cap)")
