"""The stats API's JSON shapes (`inspector.store.stats`): a session's numbers per method and name,
its `tools/list` sizes, and what the Overview tab draws."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["MethodStats", "SessionStats", "SlowCall", "ToolSize", "ToolsList"]


class MethodStats(BaseModel):
    """One method's numbers (`name` null), or one tool's / prompt's / resource's under its method."""

    method: str
    name: str | None = Field(
        description="params.name of tools/call and prompts/get, params.uri of resources/read"
    )
    count: int = Field(description="requests (or notifications), answered or not")
    errors: int = Field(description="error responses, and for tools/call results with isError: true")
    p50_ms: float | None = Field(description="nearest-rank median latency of the answered calls")
    p95_ms: float | None
    max_ms: float | None
    bytes: int = Field(description="bytes_in + bytes_out")
    bytes_in: int = Field(description="the requests' (notifications') bytes")
    bytes_out: int = Field(description="their answers' bytes")


class ToolSize(BaseModel):
    """One tool of the last complete tools/list: its size as compact JSON and its description's."""

    name: str | None
    bytes: int
    tokens: int = Field(description="estimated: ceil(bytes / 4)")
    description_bytes: int
    description_tokens: int


class ListResult(BaseModel):
    """One tools/list answer: its seq, its size as recorded, how many tools it listed."""

    seq: int
    bytes: int
    tools: int


class ToolsList(BaseModel):
    """What a server's tools/list costs a model."""

    results: list[ListResult]
    tools: list[ToolSize]
    bytes: int
    tokens: int
    token_estimate: str = Field(description="how tokens are estimated, e.g. bytes/4")


class Histogram(BaseModel):
    """Answered calls per method by latency bucket: bucket i holds latencies below edges_ms[i]
    (and at least the edge before it); the last bucket what is above the last edge."""

    edges_ms: list[int]
    methods: dict[str, list[int]]


class Timeline(BaseModel):
    """Calls and failures per slice of the session's span (from its first call to its last)."""

    start_ns: int
    slice_ns: int
    calls: list[int]
    errors: list[int]


class SlowCall(BaseModel):
    """One of the slowest answered calls: its request's and answer's seq."""

    seq: int
    answer_seq: int
    method: str
    name: str | None
    latency_ms: float | None
    failed: bool


class SessionStats(BaseModel):
    """A session's numbers (`mcp-inspect stats --json` has `methods` and `tools_list` alike)."""

    session_id: int
    methods: list[MethodStats]
    tools_list: ToolsList | None
    histogram: Histogram
    timeline: Timeline
    slowest: list[SlowCall]
