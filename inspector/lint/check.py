"""`check_rows`: run every rule over a session's rows and return the findings; `Linter`: the same
fed one row at a time (a session streamed from the store).

Sans-IO and pure: rows in (dicts with `store.models.Message`'s columns, raw
bytes included), findings out. A rule with a `since` revision is applied
only to messages whose revision is known and at least that one. Rows the
inspector intervened on (issue 17) get no pairing findings, and findings on
bytes it injected itself are `info`, their explanation naming the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, is_version_at_least

from inspector.lint.auth import AuthCheck
from inspector.lint.capabilities import CapabilityCheck
from inspector.lint.fast import VALUES, FastLane
from inspector.lint.findings import Finding, at_least
from inspector.lint.lifecycle import BatchCheck, IdCheck, InitializationCheck
from inspector.lint.revision import RowContext, SessionWalk
from inspector.lint.rules import rule
from inspector.lint.scan import SessionScan
from inspector.lint.shapes import ShapeCheck
from inspector.lint.transport import HttpCheck
from inspector.lint.wire2026 import WireCheck
from inspector.store.interventions import describe, intervened, is_injected
from inspector.store.models import StoredRow

__all__ = ["PAIRING_RULES", "Linter", "check_rows"]

# Rules about how a message pairs with others. On a row the inspector intervened on (a message
# it kept from its peer, or bytes it sent itself) they describe the intervention, not a peer.
PAIRING_RULES = frozenset(
    {"unknown-response-id", "duplicate-request-id", "error-id-null", "error-id-null-in-revision"}
)


_KNOWN = frozenset(KNOWN_PROTOCOL_VERSIONS)


def _applies(rule_since: str | None, revision: str | None) -> bool:
    if rule_since is None:
        return True
    return revision in KNOWN_PROTOCOL_VERSIONS and is_version_at_least(str(revision), rule_since)


def _unknown_revision(ctx: RowContext, reported: set[str | None]) -> Finding | None:
    if ctx.msg is None or ctx.revision in KNOWN_PROTOCOL_VERSIONS or ctx.revision in reported:
        return None
    reported.add(ctx.revision)
    why = (
        f"protocol version {ctx.revision!r} is not a known revision ({', '.join(KNOWN_PROTOCOL_VERSIONS)})"
        if ctx.revision
        else "no initialize exchange, MCP-Protocol-Version header or per-request version seen yet"
    )
    r = rule("revision-unknown")
    return Finding(ctx.seq, ctx.row.get("id"), r.severity, r.id, why, r.section(None), ctx.revision)


class _Check(Protocol):
    """One group of rules: the (rule id, explanation) hits of one message."""

    def check(self, ctx: RowContext) -> Iterator[tuple[str, str]]: ...


class Linter:
    """The rules over one session fed row by row, in seq order: `feed(row)` gives the row's findings.

    Holds only what the rules need to remember (pending requests, ids used, capabilities,
    the revision in force), never the rows: a stored session is checked page by page."""

    def __init__(self, scan: SessionScan, *, fast: bool = True) -> None:
        shapes, ids, caps = ShapeCheck(), IdCheck(), CapabilityCheck()
        self._checks: list[_Check] = [
            shapes,
            ids,
            InitializationCheck(scan),
            BatchCheck(),
            caps,
            HttpCheck(scan),
            AuthCheck(scan.revision),
            WireCheck(scan),
        ]
        self._walk = SessionWalk(scan.revision if scan.handshake else None)
        self._reported: set[str | None] = set()
        # The common rows of a settled session, without the general walk (`lint.fast`); `fast=False`
        # checks every row the full way (the tests compare both).
        self._lane = FastLane(self._walk, shapes, ids, caps) if fast else None

    def feed(self, row: StoredRow) -> list[Finding]:
        """Every finding of the next row (the rows' seq order)."""
        if self._lane is None:
            return self._feed(row)
        values = tuple(row.get(n) for n in VALUES)
        return self._run([values], lambda _: row, meta_parsed=True)

    def feed_values(
        self, values: tuple[Any, ...], row_of: Callable[[tuple[Any, ...]], StoredRow]
    ) -> list[Finding]:
        """`feed` for a row as the store's cursor gives it (`lint.fast.VALUES` first)."""
        return self.feed_page([values], row_of)

    def feed_page(
        self, rows: Sequence[tuple[Any, ...]], row_of: Callable[[tuple[Any, ...]], StoredRow]
    ) -> list[Finding]:
        """Every finding of the next rows, as the store's cursor gives them (`lint.fast.VALUES`
        first, JSON columns as text): the lane reads the tuples; `row_of` makes a row's dict only
        for the full path or a row with findings."""
        if self._lane is None:
            return [f for values in rows for f in self._feed(row_of(values))]
        return self._run(rows, row_of, meta_parsed=False)

    def _run(
        self,
        rows: Iterable[tuple[Any, ...]],
        row_of: Callable[[tuple[Any, ...]], StoredRow],
        *,
        meta_parsed: bool,
    ) -> list[Finding]:
        findings: list[Finding] = []

        def full(values: tuple[Any, ...]) -> None:
            findings.extend(self._feed(row_of(values)))

        def found(values: tuple[Any, ...], revision: str, hits: list[tuple[str, str]]) -> None:
            row = row_of(values)
            self._findings(row, int(row["seq"]), revision, hits, findings)

        assert self._lane is not None
        self._lane.run(rows, full, found, meta_parsed=meta_parsed)
        return findings

    def _feed(self, row: StoredRow) -> list[Finding]:
        ctx = self._walk.context(row)
        findings: list[Finding] = []
        unknown = _unknown_revision(ctx, self._reported) if ctx.revision not in _KNOWN else None
        if unknown is not None:
            findings.append(unknown)
        hits = [hit for check in self._checks for hit in check.check(ctx)]
        if hits:  # a few rows in a thousand: the per-row work above stays lean
            self._findings(ctx.row, ctx.seq, ctx.revision, hits, findings)
        self._walk.advance(ctx)
        if self._lane is not None:
            self._lane.settle()  # the walk's facts may have moved
        return findings

    @staticmethod
    def _findings(
        row: StoredRow, seq: int, revision: str | None, hits: list[tuple[str, str]], findings: list[Finding]
    ) -> None:
        meta = row.get("meta")
        marked = intervened(meta)
        injected = describe(meta) if is_injected(meta) else None
        for rule_id, explanation in hits:
            if marked and rule_id in PAIRING_RULES:
                continue  # the inspector's doing (an edited copy, a made-up answer), not the peers'
            r = rule(rule_id)
            if _applies(r.since, revision):
                severity = r.severity
                if injected is not None:  # bytes neither peer sent: told, never held against them
                    severity, explanation = "info", f"{explanation} [{injected}, not sent by the peer]"
                findings.append(
                    Finding(seq, row.get("id"), severity, r.id, explanation, r.section(revision), revision)
                )


def check_rows(rows: Iterable[StoredRow], *, min_severity: str = "info") -> list[Finding]:
    """Every finding of a session's rows (in seq order), at least as severe as `min_severity`."""
    ordered: Sequence[StoredRow] = sorted(rows, key=lambda r: r["seq"])
    linter = Linter(SessionScan.of_rows(ordered))
    findings = [f for row in ordered for f in linter.feed(row)]
    return [f for f in findings if at_least(f.severity, min_severity)]
