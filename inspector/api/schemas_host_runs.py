"""The host runs API's JSON shapes (`GET /api/host-runs`, one run, its merged timeline)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from inspector.api.schemas import PageRow, SessionOut
from inspector.api.schemas_stats import ToolsList

__all__ = ["HostRunList", "HostRunOut", "HostRunTimeline", "HostRunTools", "ServerTools"]


class HostRunOut(BaseModel):
    """The stdio sessions one host process started (store/host_runs.py), with what they say of it."""

    id: int = Field(description="the run's lowest session id; any of its session ids names it")
    name: str | None = Field(description="the host's name from clientInfo, else its executable's")
    machine: str | None = Field(description="the machine the host ran on (`session.host`)")
    pid: int = Field(description="the host process's pid")
    parent_started_ns: int | None = Field(description="when the host process started (null where unknown)")
    exe: str | None = Field(description="the host's executable name")
    config_files: list[str] = Field(description="the host config files its servers came from (`install`)")
    started_ns: int
    ended_ns: int | None = Field(description="when its last session ended; null while one is live")
    live: bool = Field(description="whether a session of the run is still recording")
    sessions: list[SessionOut] = Field(description="its servers' sessions, by start")


class HostRunList(BaseModel):
    """A page of host runs, newest first."""

    items: list[HostRunOut]
    total: int
    offset: int
    limit: int


class HostRunTimeline(BaseModel):
    """A page of a run's rows of every session merged by (time, session id, seq), stderr lines included."""

    items: list[PageRow]
    next_cursor: str | None = Field(
        description="pass as `cursor` for the rows after this page (null when this page is not full; "
        "a live run's new rows come after the last row's cursor)"
    )
    last_cursor: str | None = Field(description="the cursor after this page's last row (null when empty)")


class ServerTools(BaseModel):
    """One server's tools/list cost (its session's `tools_list`, as `GET /api/sessions/{id}/stats`)."""

    session_id: int
    tools_list: ToolsList


class HostRunTools(BaseModel):
    """What the tools/list of a run's servers costs a model together: each server's, and the sum of
    their last complete listings."""

    run_id: int
    servers: list[ServerTools] = Field(description="the run's servers that answered tools/list, by start")
    tools: int
    bytes: int
    tokens: int = Field(description="estimated from the summed bytes, as each server's")
    token_estimate: str = Field(description="how tokens are estimated, e.g. bytes/4")
