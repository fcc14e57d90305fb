"""The waterfall API's JSON shapes (`inspector.store.waterfall`): requests as spans in a time window,
one lane per session, each span alone or, beyond the limit, slices of the window aggregated."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["Buckets", "Span", "Waterfall", "WaterfallLane"]


class Span(BaseModel):
    """One request, from its row to its answer's."""

    seq: int
    answer_seq: int | None = Field(description="its answer's seq; null: never answered")
    start_ns: int
    end_ns: int | None = Field(description="its answer's time; null: never answered (open to the end)")
    method: str | None
    name: str | None = Field(
        description="params.name of tools/call and prompts/get, params.uri of resources/read"
    )
    failed: bool = Field(description="an error response, or a tools/call result with isError: true")
    direction: str = Field(description="c2s: the client asked; s2c: the server asked")
    exchange: int | None = Field(description="the HTTP exchange of the request (meta.exchange)")
    parent_seq: int | None = Field(
        description="for a server's sampling, elicitation or roots request: the client request it was sent for"
    )
    progress: list[int] = Field(description="the times of its notifications/progress")


class Buckets(BaseModel):
    """The window in equal slices (from `lo`): per slice, the spans starting in it."""

    slice_ns: int
    count: list[int]
    errors: list[int]
    max_ms: list[float] = Field(description="the largest latency of the slice's answered spans (0: none)")


class WaterfallLane(BaseModel):
    """One session's spans in the window (`spans`), or past the limit its `buckets`."""

    session_id: int
    total: int = Field(description="the spans in the window")
    spans: list[Span] | None
    buckets: Buckets | None


class Waterfall(BaseModel):
    """The sessions' extent, the window shown (`lo`..`hi`, inside it) and a lane per session."""

    start_ns: int | None
    end_ns: int | None
    lo: int | None
    hi: int | None
    lanes: list[WaterfallLane]
