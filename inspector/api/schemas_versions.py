"""JSON shapes of the versions routes: start a run, follow it, read a run's matrix.

`VersionMatrix` mirrors `inspector.versions.build_matrix`; the routes answer
with that dict directly (orjson), these models document it for the UI's types.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from inspector.api.params import SqlInt
from inspector.api.schemas_replay import ReplayTarget
from inspector.versions import parse_revisions

__all__ = [
    "MatrixColumn",
    "MatrixRow",
    "VersionMatrix",
    "VersionsJobOut",
    "VersionsRequest",
    "VersionsRunOut",
]

Scalar = str | int | float | bool | None


class VersionsRequest(BaseModel):
    """Probe a command or URL once per protocol revision (and optionally replay a session under each)."""

    model_config = ConfigDict(extra="forbid")
    target: ReplayTarget
    revisions: list[str] | None = Field(
        default=None, max_length=20, description="revisions to probe (YYYY-MM-DD); default: every known one"
    )
    replay_session_id: SqlInt | None = Field(
        default=None, description="a recorded session whose client requests are sent under each revision"
    )
    timeout: float = Field(default=30.0, gt=0, le=600, description="seconds to wait for each response")

    @field_validator("revisions")
    @classmethod
    def _revisions(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else parse_revisions(",".join(value))


class VersionsJobOut(BaseModel):
    """A versions run: `running`, then `finished` (fetch `/api/versions/runs/{run}`) or `failed`."""

    id: str
    run: str = Field(description="the run id (the label `versions:<run>` of its sessions)")
    target: list[str] | str
    revisions: list[str]
    replay_session_id: int | None
    state: Literal["running", "finished", "failed"]
    phase: str = Field(description="what the job is doing, for people")
    sessions: dict[str, int] = Field(description="revision -> recorded session id, as they finish")
    error: str | None
    warnings: list[str] = Field(
        description="e.g. the replayed recording's secrets that the UI process's environment does not give"
    )
    started_ns: int
    ended_ns: int | None


class VersionsRunOut(BaseModel):
    """A past run, found through its sessions' labels."""

    run: str
    target: Any
    started_ns: int
    sessions: dict[str, int] = Field(description="revision -> session id")


class MatrixColumn(BaseModel):
    """What the server did under one revision; `session_id` is that probe's recorded session."""

    revision: str
    session_id: int | None
    handshake: str = Field(description="`initialize` or `server/discover`")
    outcome: Literal["accepted", "counter-offer", "refused", "failed"]
    negotiated: str | None
    supported_versions: list[str] | None = Field(description="from a server/discover result")
    error: str | None


class MatrixRow(BaseModel):
    """One fact per revision; `differs` when the revisions that answered disagree."""

    section: Literal["negotiation", "server", "capabilities", "items", "fields", "replay", "errors"]
    key: str
    values: dict[str, Scalar] = Field(description="revision -> value (null: absent)")
    differs: bool


class VersionMatrix(BaseModel):
    """The version matrix of one run."""

    run: str | None
    target: Any
    revisions: list[str]
    columns: list[MatrixColumn]
    rows: list[MatrixRow]
