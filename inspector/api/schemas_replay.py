"""JSON shapes of the replay, diff and mock-server routes (for validation and the OpenAPI schema).

The diff report mirrors `inspector.replay.diff.SessionDiff.to_json()`; the
routes answer with that dict directly (orjson), these models document it so
the UI's TypeScript types follow it.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "Buckets",
    "ChangeOut",
    "DiffReport",
    "DiffSide",
    "ExchangeDiffOut",
    "LatencyDelta",
    "MockServerCommands",
    "PathItemOut",
    "ReplayJobOut",
    "ReplayRequest",
    "ReplayResult",
    "ReplayTarget",
    "RunsCompared",
]


class ReplayTarget(BaseModel):
    """What to replay against: a server `command` (stdio) or a `url` (Streamable HTTP; a URL ending
    in /sse is legacy HTTP+SSE). Exactly one of the two."""

    model_config = ConfigDict(extra="forbid")
    command: list[str] | None = Field(
        default=None, min_length=1, max_length=200, description="program and arguments"
    )
    url: str | None = Field(default=None, max_length=2000, description="http:// or https:// URL")

    @field_validator("command")
    @classmethod
    def _program_named(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            if not value[0].strip():
                raise ValueError("the command's program is empty")
            if any("\x00" in arg for arg in value):
                raise ValueError("a command argument contains a NUL byte")
        return value

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("the URL must be an absolute http:// or https:// URL")
        return value.strip()

    @model_validator(mode="after")
    def _one_of(self) -> ReplayTarget:
        if (self.command is None) == (self.url is None):
            raise ValueError("give the target as either `command` (a list of strings) or `url`, not both")
        return self

    def value(self) -> list[str] | str:
        """The target as `run_replay` takes it: a list is a command, a string a URL."""
        return list(self.command) if self.command is not None else str(self.url)


class ReplayRequest(BaseModel):
    """Start a replay of a recorded session against a target, then diff the replay against it."""

    model_config = ConfigDict(extra="forbid")
    target: ReplayTarget
    calibrate: bool = Field(
        default=False, description="replay twice and ignore what differs between the two runs (noise)"
    )
    ignore: list[str] = Field(
        default_factory=list, max_length=200, description="extra ignore patterns, e.g. `**.timestamp`"
    )
    timeout: float = Field(default=30.0, gt=0, le=600, description="seconds to wait for each response")
    match: Literal["strict", "lenient"] = Field(
        default="strict", description="how the server's requests are matched to recorded answers"
    )
    strict_volatile: bool = Field(
        default=False,
        description="count values that changed only in clock-like parts (times, dates, ids, counters) "
        "as changes, like `replay --strict-volatile`; by default they are listed as volatile, not failing",
    )


class PathItemOut(BaseModel):
    """A path step picking an array element by a key field's value: `[name=weather]` is
    `{field: "name", value: "weather"}`; `[value]` (e.g. `notifications[notifications/progress]`)
    has `field` ""."""

    field: str
    value: str


class ChangeOut(BaseModel):
    """One difference at one path: `changed`, `added` (only in the replay / b) or `removed`."""

    path: str
    segments: list[str | int | PathItemOut] | None = Field(
        default=None,
        description="`path` read into its steps into the exchange's `DiffSide.view`: an object key "
        "(string), an array index (number) or an element picked by a key field (object)",
    )
    kind: Literal["changed", "added", "removed"]
    before: Any = None
    after: Any = None
    volatile: bool = Field(
        default=False, description="changed only in clock-like parts (times, dates, ids, numbers in text)"
    )


class ExchangeDiffOut(BaseModel):
    """One exchange: `equal`, `changed`, `missing` (original / a only) or `extra` (replay / b only)."""

    index: int = Field(
        description="the exchange's place in the whole report (equal exchanges included, listed or "
        "not): a stable handle, e.g. for a link to it"
    )
    status: Literal["equal", "changed", "missing", "extra"]
    bucket: Literal["regressed", "fixed", "new", "removed", "changed", "volatile", "unchanged"] = Field(
        description="its bucket in the runs-compared summary: `regressed` (a's answer ok, b's an "
        "error, an `isError` result or none), `fixed` (the other way), `new` (only in b), `removed` "
        "(only in a), `volatile` (differs only in clock-like values), `changed` (any other "
        "difference), `unchanged` (equal)"
    )
    method: str
    summary: str
    direction: str
    original_seq: int | None = Field(description="seq of the exchange's first message in the original (a)")
    replay_seq: int | None = Field(description="seq of the exchange's first message in the replay (b)")
    changes: list[ChangeOut]
    interventions: list[str] = Field(
        default_factory=list,
        description="what the inspector did to this exchange's messages when it was recorded "
        "(e.g. 'dropped by rule slow (not delivered)'): seen by the client, not the server's doing",
    )


class Buckets(BaseModel):
    """Exchanges per bucket of the runs-compared summary (see `ExchangeDiffOut.bucket`)."""

    regressed: int
    fixed: int
    new: int
    removed: int
    changed: int
    volatile: int
    unchanged: int


class LatencyDelta(BaseModel):
    """One method's (`name` null) or one tool / prompt / resource's latency in a and in b, from each
    session's stats (`GET /api/sessions/{id}/stats`): nearest-rank p50 and p95 of the answered calls
    in milliseconds (null where a side answered none) and b minus a."""

    method: str
    name: str | None
    a_count: int
    b_count: int
    a_p50_ms: float | None
    b_p50_ms: float | None
    p50_delta_ms: float | None
    a_p95_ms: float | None
    b_p95_ms: float | None
    p95_delta_ms: float | None


class RunsCompared(BaseModel):
    """What the diff of two sessions opens with: exchanges per bucket and latency deltas."""

    buckets: Buckets
    latency: list[LatencyDelta] = Field(
        description="per method, then per name under it, in a's order (then b's own); rows answered "
        "in neither session are left out"
    )


class DiffReport(BaseModel):
    """The semantic diff of session `a` (original) and `b` (replay): the counts of every exchange,
    and the exchanges listed (`listed`), one page at a time (`next_cursor`)."""

    a: int
    b: int
    summary: RunsCompared | None = Field(
        default=None, description="the runs-compared summary (on the first page only: null with `cursor`)"
    )
    changed: bool
    counts: dict[str, int] = Field(
        description="exchanges per status: equal, changed, missing, extra; volatile: those of the "
        "`changed` that changed only in volatile values (with `strict_volatile` false they do not make "
        "the sessions differ)"
    )
    strict_volatile: bool = Field(default=False, description="volatile values counted as changes")
    ignored: list[str] = Field(description="every ignore pattern applied (defaults included)")
    listed: Literal["all", "differing"] = Field(
        description="what `exchanges` holds: `all` of them, or the `differing` ones (changed, missing, "
        "extra, and any intervened on); `counts` counts every exchange either way"
    )
    exchanges: list[ExchangeDiffOut]
    next_cursor: str | None = Field(
        default=None, description="more exchanges are listed: pass this as `cursor` for the next page"
    )


class DiffSide(BaseModel):
    """One side of a diffed exchange as the diff compares it; change paths are relative to `view`."""

    session_id: int
    seq: int = Field(description="the exchange's first message")
    kind: str
    method: str | None
    direction: str
    answer_seq: int | None = Field(description="the response's seq, for a request that got one")
    view: dict[str, Any] = Field(
        description="`params`, then `result` or `error` (code and message), and linked `notifications` by method"
    )


class ReplayResult(DiffReport):
    """A finished replay: the diff of the original (`a`) and the last replay run (`b`)."""

    passed: bool = Field(
        description="behaviour unchanged and every request answered in time (the CLI's exit status 0); "
        "volatile values fail it only with `strict_volatile`"
    )
    original: int
    replay: int
    calibration_noise: list[str] = Field(description="patterns learnt from two runs (with calibrate)")
    extra_ignore: list[str] = Field(description="the request's ignore patterns plus the calibration noise")
    timeouts: list[str] = Field(description="request ids that got no answer in time")
    unmatched_server_requests: list[str]


class ReplayJobOut(BaseModel):
    """A replay job: `running`, then `finished` (with `report`) or `failed` (with `error`)."""

    id: str
    session_id: int = Field(description="the original session")
    target: list[str] | str
    calibrate: bool
    strict_volatile: bool = Field(description="volatile values count as changes")
    state: Literal["running", "finished", "failed"]
    phase: str = Field(description="what the job is doing, for people")
    replay_session_id: int | None = Field(description="the newest replay session recorded so far")
    replay_session_ids: list[int]
    error: str | None
    warnings: list[str]
    started_ns: int
    ended_ns: int | None
    report: ReplayResult | None


class CommandLine(BaseModel):
    """A command both as argv and as a line to paste in a POSIX shell."""

    argv: list[str]
    shell: str


class StdioMock(CommandLine):
    """The mock server over stdio: what an MCP client's config runs."""

    client_config: dict[str, Any] = Field(description="an `mcpServers` entry for a client's JSON config")


class HttpMock(CommandLine):
    """The mock server over Streamable HTTP: the command to start, and the URL to give a client."""

    url: str
    port: int


class MockServerCommands(BaseModel):
    """How to serve a recorded session as a mock server (the UI shows these; it does not start them)."""

    session_id: int
    db: str = Field(description="absolute path of the recording database")
    stdio: StdioMock
    http: HttpMock
