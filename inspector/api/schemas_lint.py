"""The lint API's JSON shapes, derived from the `lint_finding` table (one finding model)."""

from __future__ import annotations

from pydantic import BaseModel, Field, create_model

from inspector.api.schemas import _fields
from inspector.store.models import LintFinding, column_names

__all__ = ["FindingOut", "SessionFindings"]

FindingOut = create_model(
    "FindingOut",
    __doc__="One conformance finding on one message: every column of the `lint_finding` table but its ids.",
    **_fields(LintFinding, tuple(n for n in column_names(LintFinding) if n not in ("id", "session_id"))),
)


class SessionFindings(BaseModel):
    """A session's findings in seq order, with counts per severity."""

    session_id: int
    items: list[FindingOut]
    summary: dict[str, int] = Field(description="how many findings per severity (of the message, with `seq`)")
    relinted: bool = Field(description="whether this request linted the session (its findings were stale)")
