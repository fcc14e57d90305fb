"""`check_rows`: run every rule over a session's rows and return the findings; `Linter`: the same
fed one row at a time, or a page of the store's cursor at a time (a session streamed from the store).

Sans-IO and pure: rows in (dicts with `store.models.Message`'s columns, raw
bytes included), findings out. A rule with a `since` revision is applied
only to messages whose revision is known and at least that one. Rows the
inspector intervened on (issue 17) get no pairing findings, and findings on
bytes it injected itself are `info`, their explanation naming the rule.

One path, made fast by asking each row only what can be said about it (issue 35). Most rows of
a long session are the same few things once the handshake is over: a client request, a server
notification, the server's result, a stderr line. `Linter._run` tells them by their stored
columns (the recorder's `protocol.classify` of the same bytes; a row whose parsed bytes do not
bear them out goes the general way) and, for them, calls only the checks that can say anything,
through the checks' own entries (`ShapeCheck.gate`, `shapes.frame_hits`,
`ShapeCheck.result_hits`, `IdCheck.reused` and `sent`, `CapabilityCheck.uses_of_server`,
`SessionWalk.settled`, `note_request` and `answer_revision`), which their general `check` uses
too; what is the same for every message of a method (gate and capability hits) is asked once per
method (`_plan`). For those rows the other checks cannot fire: no HTTP rule reads a row off the
HTTP channels, no initialization rule fires once initialize is answered and the client said
`notifications/initialized`, no 2026-07-28 rule applies to a handshake-era revision, and the
session's facts do not move (`SessionFacts.observe` learns from initialize, per-request versions
and initialize / server/discover answers only). Every other row (HTTP parts, batches, errors,
the handshake, per-request versions, server requests, bad bytes) is given to every check
(`Linter._general`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from inspector.lint.auth import AuthCheck
from inspector.lint.capabilities import CapabilityCheck
from inspector.lint.findings import Finding, at_least
from inspector.lint.lifecycle import BatchCheck, IdCheck, InitializationCheck, orphan
from inspector.lint.revision import _SETTLED, RowContext, SessionWalk
from inspector.lint.rules import rule
from inspector.lint.scan import SessionScan
from inspector.lint.transport import HttpCheck
from inspector.lint.wire2026 import WireCheck
from inspector.protocol import Kind, id_key
from inspector.protocol.mcp_tables import (
    KNOWN_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
    is_version_at_least,
)
from inspector.protocol.sse import stored_body
from inspector.protocol.stdout_lines import Crash, Note, StdioWatch
from inspector.store.interventions import describe, intervened, is_injected
from inspector.store.models import StoredRow

if TYPE_CHECKING:
    from inspector.lint.shapes import ShapeCheck

__all__ = ["PAIRING_RULES", "VALUES", "Linter", "check_rows"]

# Rules about how a message pairs with others. On a row the inspector intervened on (a message
# it kept from its peer, or bytes it sent itself) they describe the intervention, not a peer.
PAIRING_RULES = frozenset(
    {"unknown-response-id", "duplicate-request-id", "error-id-null", "error-id-null-in-revision"}
)

# The columns `Linter.feed_page` reads, first in a row's tuple and in this order (`meta` as JSON text).
VALUES = ("seq", "direction", "channel", "raw", "size", "kind", "method", "answers_seq", "meta")

Hit = tuple[str, str]
_Plan = tuple[tuple[Hit, ...], bool, tuple[Hit, ...]]  # `Linter._plan`

_KNOWN = frozenset(KNOWN_PROTOCOL_VERSIONS)
_PV = PROTOCOL_VERSION_META_KEY
_HTTP_CHANNELS = frozenset({"http-request", "http-response"})
_STDIO_CHANNELS = frozenset({"stdin", "stdout", "stderr"})
_SEQ_OF = operator.attrgetter("seq")
_SAID_BETTER = frozenset({"malformed-json", "invalid-jsonrpc"})  # on a classified stdout line (`finish`)
_NOT_JSONRPC = frozenset({"http", "log"})
_REQUEST, _NOTIFICATION = Kind.REQUEST, Kind.NOTIFICATION
# Answers that change the session's facts (`SessionFacts.observe`): every check reads them.
_FACT_ANSWERS = frozenset({"initialize", "server/discover"})
_PLAIN_IDS = frozenset({int, str})  # ids whose row is read straight (others: the general way)
_UNSETTLED: Any = object()  # `Linter._settled` before `SessionWalk.settled` is asked again


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

    def __init__(self, scan: SessionScan) -> None:
        # The shapes are mcp-types' models: they load where messages are validated, not with this
        # module (reading a session's stored findings imports it and validates nothing).
        from inspector.lint.shapes import ShapeCheck, frame_hits

        self._frame_hits = frame_hits
        self._shapes: ShapeCheck = ShapeCheck()
        self._ids, self._caps = IdCheck(), CapabilityCheck()
        self._checks: list[_Check] = [
            self._shapes,
            self._ids,
            InitializationCheck(scan),
            BatchCheck(),
            self._caps,
            HttpCheck(scan),
            AuthCheck(scan.revision),
            WireCheck(scan),
        ]
        self._walk = SessionWalk(scan.revision if scan.handshake else None)
        self._reported: set[str | None] = set()
        self._settled: str | None = _UNSETTLED  # `SessionWalk.settled` until the next general row
        # Per method, while the settled revision and the server's capabilities last (`_settle`):
        # what a client request or a server notification is asked (`_plan`).
        self._planned_for: tuple[str | None, Any] | None = None
        self._requests: dict[str, _Plan] = {}
        self._notifications: dict[str, _Plan] = {}
        self.general = 0  # rows given to every check (`_general`); the others were asked less
        # Why a stdio server broke: its stdout lines no client can read, a crash's request. It sees
        # every stdio row (a few operations each) and may settle a line only later (`close`).
        self._stdio = StdioWatch()
        self._classified: set[int] = set()  # the seqs of the stdout lines it classified

    def finish(self, findings: list[Finding]) -> list[Finding]:
        """After the last row: `findings` (what the rows gave) with those only the session's end
        settles (a held stdout block, a crash), in seq order. A stdout line of a known class
        (`stdout-*`) is told by that rule alone: its `malformed-json` / `invalid-jsonrpc` said less."""
        closing: list[Finding] = []
        self._noted(self._stdio.close(), closing)
        if closing:
            findings = sorted([*findings, *closing], key=_SEQ_OF)
        if self._classified:
            classified = self._classified
            findings = [f for f in findings if f.rule not in _SAID_BETTER or f.seq not in classified]
        return findings

    def _noted(self, notes: Sequence[Note | Crash], findings: list[Finding]) -> None:
        for note in notes:
            if isinstance(note, Note):
                self._classified.add(note.seq)
                if not note.first:
                    continue  # a pretty-printed message is one finding, on its first line
                r = rule(f"stdout-{note.cls.id}")
            else:
                r = rule("server-crashed")
            findings.append(Finding(note.seq, None, r.severity, r.id, note.explain(), r.section(None), None))

    def feed(self, row: StoredRow) -> list[Finding]:
        """Every finding of the next row (the rows' seq order)."""
        values = tuple(row.get(n) for n in VALUES)
        return self._run([values], lambda _: row, meta_parsed=True)

    def feed_values(
        self, values: tuple[Any, ...], row_of: Callable[[tuple[Any, ...]], StoredRow]
    ) -> list[Finding]:
        """`feed` for a row as the store's cursor gives it (`VALUES` first)."""
        return self.feed_page([values], row_of)

    def feed_page(
        self, rows: Sequence[tuple[Any, ...]], row_of: Callable[[tuple[Any, ...]], StoredRow]
    ) -> list[Finding]:
        """Every finding of the next rows, as the store's cursor gives them (`VALUES` first, JSON
        columns as text): `row_of` makes a row's dict only for a row every check reads or a row
        with findings."""
        return self._run(rows, row_of, meta_parsed=False)

    def _run(
        self,
        rows: Iterable[tuple[Any, ...]],
        row_of: Callable[[tuple[Any, ...]], StoredRow],
        *,
        meta_parsed: bool,
    ) -> list[Finding]:
        """Check `rows` in order: tuples whose first values are `VALUES` (`meta` JSON text, or
        already parsed with `meta_parsed`). One loop per page, the state in locals: the per-row
        calls and lookups of the common rows were half of a 100k lint (issue 21)."""
        findings: list[Finding] = []
        walk, ids = self._walk, self._ids
        result_hits, frame_hits = self._shapes.result_hits, self._frame_hits
        reused, sent, note_request = ids.reused, ids.sent, walk.note_request
        requests, notifications = self._requests, self._notifications
        loads, JSONDecodeError = orjson.loads, orjson.JSONDecodeError  # noqa: N806

        stdio = self._stdio.feed
        noted = self._noted

        def general(values: tuple[Any, ...]) -> None:
            findings.extend(self._general(row_of(values)))

        for values in rows:
            meta = values[8]
            if meta is not None and not meta_parsed:
                try:
                    meta = loads(meta)
                except JSONDecodeError:
                    general(values)  # `row_of` parses it its own way
                    continue
            channel = values[2]
            if channel in _STDIO_CHANNELS:
                flags = meta.get("flags") if type(meta) is dict else None
                notes = stdio(
                    values[0],
                    values[1],
                    channel,
                    values[3],
                    values[5],
                    values[7],
                    bool(flags and "no-newline" in flags),
                )
                if notes:
                    noted(notes, findings)
            if channel in _HTTP_CHANNELS:
                general(values)
                continue
            raw = values[3]
            if values[5] in _NOT_JSONRPC or raw is None:
                continue  # no message (a stderr line): no rule reads it, nothing is learnt
            if values[5] == "batch" or (meta is not None and (type(meta) is not dict or "exchange" in meta)):
                general(values)  # `IdCheck` reads a batch row's flags per item; HTTP exchanges
                continue
            settled = self._settled
            if settled is _UNSETTLED:
                settled = self._settle()
            if settled is None:
                general(values)  # the handshake, or no handshake-era revision
                continue
            if channel == "sse":
                raw = stored_body(channel, bytes(raw))
            try:
                value = loads(raw)
            except JSONDecodeError:
                general(values)
                continue
            # The row's columns are the recorder's `classify` of these bytes; a row whose bytes do
            # not bear them out (made by hand, or an id orjson cannot hold) is read the general way.
            if type(value) is not dict or value.get("jsonrpc") != "2.0":
                general(values)
                continue
            kind, direction, seq, method = values[5], values[1], values[0], values[6]
            revision: str | None
            if kind == "request":
                raw_id = value.get("id")
                if (
                    direction != "c2s"
                    or method == "initialize"
                    or value.get("method") != method
                    or type(raw_id) not in _PLAIN_IDS
                    or "result" in value
                    or "error" in value
                ):
                    general(values)
                    continue
                params = value.get("params")
                if type(params) is dict:
                    pmeta = params.get("_meta")
                    if type(pmeta) is dict and _PV in pmeta:
                        general(values)  # a per-request version: the revision and facts follow it
                        continue
                revision = settled
                plan = requests.get(method) or self._plan(requests, seq, direction, _REQUEST, method, value)
                gate_hits, shaped, cap_hits = plan
                hits = frame_hits(_REQUEST, method, value, revision, direction) if shaped else gate_hits
                rpc_id = id_key(raw_id)
                if (hit := reused(direction, rpc_id, False)) is not None:
                    hits = (*hits, hit)
                sent(direction, seq, rpc_id, values[7])
                if cap_hits:
                    hits = (*hits, *cap_hits)
                note_request(seq, revision)
            elif kind == "notification":
                if (
                    direction != "s2c"
                    or value.get("method") != method
                    or "id" in value
                    or "result" in value
                    or "error" in value
                ):
                    general(values)
                    continue
                revision = settled
                plan = notifications.get(method) or self._plan(
                    notifications, seq, direction, _NOTIFICATION, method, value
                )
                gate_hits, shaped, cap_hits = plan
                hits = frame_hits(_NOTIFICATION, method, value, revision, direction) if shaped else gate_hits
                sent(direction, seq, None, values[7])
                if cap_hits:
                    hits = (*hits, *cap_hits)
            elif kind == "response":
                raw_id = value.get("id")
                if (
                    direction != "s2c"
                    or method in _FACT_ANSWERS
                    or type(raw_id) not in _PLAIN_IDS
                    or "result" not in value
                    or "error" in value
                    or "method" in value
                ):
                    general(values)
                    continue
                answers = values[7]
                revision = walk.answer_revision(answers, settled)
                if revision not in _SETTLED:
                    general(values)  # answers a request checked under a revision of its own
                    continue
                hits = result_hits(direction, method, revision, values[4], value)
                if meta is not None and "orphan-response" in list(meta.get("flags") or []):
                    hits = (*hits, orphan(id_key(raw_id)))
                sent(direction, seq, None, answers)
            else:
                general(values)
                continue
            if hits:  # a row in a hundred
                row = row_of(values)
                self._findings(row, int(row["seq"]), revision, hits, findings)
        return findings

    def _settle(self) -> str | None:
        """`SessionWalk.settled`, asked again after a general row; the plans (`_plan`) hold while
        it and the server's capabilities stay the same."""
        settled = self._settled = self._walk.settled()
        caps = self._walk.facts.server_capabilities
        if self._planned_for is None or self._planned_for[0] != settled or self._planned_for[1] is not caps:
            self._planned_for = (settled, caps)
            self._requests.clear()
            self._notifications.clear()
        return settled

    def _plan(
        self, plans: dict[str, _Plan], seq: int, direction: str, kind: Kind, method: str, value: Any
    ) -> _Plan:
        """What a common request or notification of `method` is asked once the session is settled:
        its gate's hits, whether its frame's shape is checked, and the capability hits (both the
        same for every such message while the revision and the server's capabilities last)."""
        revision, facts = self._settled, self._walk.facts
        gate_hits, shaped = self._shapes.gate(direction, kind, method, revision, facts)
        plan = (
            gate_hits,
            shaped,
            self._caps.uses_of_server(seq, direction, kind, method, value, revision, facts),
        )
        plans[method] = plan
        return plan

    def _general(self, row: StoredRow) -> list[Finding]:
        """Every check's findings of a row (see the module's docstring for the others)."""
        self.general += 1
        ctx = self._walk.context(row)
        findings: list[Finding] = []
        unknown = _unknown_revision(ctx, self._reported) if ctx.revision not in _KNOWN else None
        if unknown is not None:
            findings.append(unknown)
        hits = [hit for check in self._checks for hit in check.check(ctx)]
        if hits:  # a few rows in a thousand: the per-row work above stays lean
            self._findings(ctx.row, ctx.seq, ctx.revision, hits, findings)
        self._walk.advance(ctx)
        self._settled = _UNSETTLED  # the walk's facts may have moved
        return findings

    @staticmethod
    def _findings(
        row: StoredRow, seq: int, revision: str | None, hits: Sequence[Hit], findings: list[Finding]
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
    findings = linter.finish([f for row in ordered for f in linter.feed(row)])
    return [f for f in findings if at_least(f.severity, min_severity)]
