"""The storage view's JSON shape (`GET /api/storage`): what the recordings cost and what retention
removes next."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["PolicyValue", "SessionSize", "StorageView", "WouldGo"]


class PolicyValue(BaseModel):
    """One retention setting in force and where its value came from."""

    key: Literal["max_age", "max_total_size", "max_session_size", "keep_labelled"]
    value: str | None = Field(description="as the config file takes it (`30d`, `2 GB`, `yes`); null: not set")
    source: str = Field(description="`default`, `config file P`, `environment VAR` or `flag --x`")


class SessionSize(BaseModel):
    """A session's stored bytes and what retention does with it."""

    id: int
    name: str | None
    started_ns: int
    bytes: int
    pinned: bool
    labelled: bool
    state: Literal["recording", "ended", "interrupted"]
    kept: Literal["pinned", "labelled", "recording"] | None = Field(
        description="why retention never removes it (null: it may)"
    )
    goes: str | None = Field(description="the rule that removes it next (age, session size, total size)")


class WouldGo(BaseModel):
    """A session the policy removes next (the dry-run plan), oldest first."""

    id: int
    name: str | None
    started_ns: int
    bytes: int
    reason: str


class StorageView(BaseModel):
    """Database size, free space, per-session sizes (biggest first), the policy in force and its plan."""

    store: str = Field(description="the SQLite file, or the database URL without its password")
    backend: str
    file_bytes: int = Field(description="on disk (PostgreSQL: the recording tables with indexes)")
    used_bytes: int
    free_bytes: int = Field(description="free pages a vacuum can give back to the disk")
    auto_vacuum: str | None
    policy_active: bool
    policy: list[PolicyValue]
    policy_error: str | None = Field(description="a config file or variable that could not be read")
    sessions: list[SessionSize]
    sessions_total: int
    next: list[WouldGo]
    next_bytes: int
    after_bytes: int = Field(description="the store's bytes in use once `next` is removed (an estimate)")
