"""What a conformance check reports: the `Finding` record and the `Rule` it comes from.

A `Rule` is the fixed part (id, severity, one-line summary, where the spec
says it); a `Finding` is one occurrence of a rule on one message, with an
explanation naming what was seen. Severity follows the spec's words: MUST
and MUST NOT are `error`, SHOULD and SHOULD NOT are `warning`, and `info`
is for what the checks could not judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["SEVERITIES", "SPEC_BASE", "Finding", "Rule", "Severity", "at_least", "spec_url"]

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")  # most severe first
SPEC_BASE = "https://modelcontextprotocol.io/specification"
_FALLBACK_REVISION = "2025-11-25"


def at_least(severity: str, minimum: str) -> bool:
    """Whether `severity` is as severe as `minimum` or more."""
    return SEVERITIES.index(severity) <= SEVERITIES.index(minimum)


def spec_url(page: str, revision: str | None) -> str:
    """The spec page (path and anchor, e.g. `basic/lifecycle#initialization`) of a revision."""
    return f"{SPEC_BASE}/{revision or _FALLBACK_REVISION}/{page}"


@dataclass(frozen=True)
class Rule:
    """One conformance rule: `page` is the spec page path with its anchor, `title` its heading."""

    id: str
    severity: Severity
    summary: str
    title: str
    page: str
    since: str | None = None  # the first revision the rule applies to (None: every revision)

    def section(self, revision: str | None) -> str:
        """The spec section as text: heading, and the page of the revision in force (or the one that states it)."""
        shown = revision if revision and revision >= (self.since or "") else self.since
        return f"{self.title} ({spec_url(self.page, shown)})"


@dataclass(frozen=True)
class Finding:
    """One rule broken by one message.

    `seq` is the message's position in its session, `message_id` its database
    id (None before it is stored), `severity` one of error / warning / info,
    `rule` the rule id, `explanation` what was seen in words a person can act
    on, `spec_section` where the spec states the rule (heading and URL), and
    `revision` the protocol revision the message was checked against.
    """

    seq: int
    message_id: int | None
    severity: Severity
    rule: str
    explanation: str
    spec_section: str
    revision: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields (what `dataclasses.asdict` gives, without its deep copy
        of every value: all of them are plain scalars; a sixth of storing a 100k lint's findings)."""
        return {
            "seq": self.seq,
            "message_id": self.message_id,
            "severity": self.severity,
            "rule": self.rule,
            "explanation": self.explanation,
            "spec_section": self.spec_section,
            "revision": self.revision,
        }
