"""Semantic diff of two recorded MCP sessions (original vs replay, or any A vs B).

Sans-IO: message lists in, a `SessionDiff` out; no database, no clock.

- An *exchange* is a request (either direction) with its response and the
  notifications the peer linked to it (progress, through the recorder's
  `related_seq`). Other notifications (logs, list changes, client
  notifications), invalid messages and orphan responses are exchanges of
  their own, paired by content wherever they arrive: when a log lands
  inside or after a call is timing, not behaviour.
- Exchanges are aligned by (direction, method, params without ignored paths):
  the k-th identical request of one session pairs with the k-th of the other,
  so JSON-RPC ids and the interleaving of independent messages never matter,
  while the order of identical requests does. Server-to-client requests and
  the handshake (`initialize`, `server/discover`) are aligned by method alone
  and their params compared.
- Inside a pair: responses are diffed (result vs result, error code+message vs
  error code+message); the notifications are a multiset (order-insensitive);
  arrays of objects keyed by `uri`/`uriTemplate`/`name` are aligned by that key
  (order-insensitive), other arrays by index (order-sensitive).
- Volatile values are ignored through a `PathSet` (`DEFAULT_IGNORE`), and
  `noise_patterns` turns the differences between two runs of the same traffic
  into more patterns (calibration, after Diffy's primary/secondary idea).
- A string that changed only in clock-like parts (`replay.volatile`) is a
  *volatile* change: listed, but the sessions count as different for it only
  with `strict_volatile` (Diffy's rule: flag what exceeds the expected noise).
"""

from __future__ import annotations

import json
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from inspector.protocol.conversations import derive
from inspector.protocol.json_depth import DEEP_NOTE
from inspector.protocol.json_depth import loads as bounded_loads
from inspector.protocol.jsonrpc import classify_value
from inspector.protocol.sse import stored_body
from inspector.replay.paths import ANY, Item, PathCursor, PathSet, Segment, format_path, format_scope
from inspector.replay.volatile import is_volatile
from inspector.store.interventions import describe, server_side
from inspector.terminal_text import visible

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord

__all__ = [
    "DEFAULT_IGNORE",
    "Change",
    "ExchangeDiff",
    "PathSet",
    "SessionDiff",
    "default_ignore",
    "diff_json",
    "diff_sessions",
    "noise_patterns",
    "render_text",
]

_SERVER_INFO = '["io.modelcontextprotocol/serverInfo"]'

DEFAULT_IGNORE: tuple[str, ...] = (
    # Per-message metadata chosen by the client library, not by the behaviour under test: the
    # progress token, and in 2026-07-28 the protocol version, client info/capabilities and log
    # level on every request; subscription and related-task ids on notifications.
    "params._meta",
    # Progress tokens are chosen per run (also echoed in notifications/progress params).
    "**.progressToken",
    # 2026-07-28 opaque server state the client echoes back; often signed or nonce-bearing.
    "**.requestState",
    # 2026-07-28 servers repeat their serverInfo in every result's _meta: a version bump would mark
    # every exchange changed. Keep it where it is the answer: server/discover.
    f"result._meta{_SERVER_INFO}",
    f"!server/discover:result._meta{_SERVER_INFO}",
    # 2026-07-28 subscriptions: server-assigned ids.
    '**["io.modelcontextprotocol/subscriptionId"]',
    # 2025-11-25 tasks: server-generated ids and wall-clock timestamps of the run.
    "**.taskId",
    "**.createdAt",
    "**.lastUpdatedAt",
    # URL-mode elicitation ids are server-generated.
    "**.elicitationId",
    # Session ids where a payload carries one (the Mcp-Session-Id header is not payload).
    "**.sessionId",
    # notifications/cancelled names the JSON-RPC id of the request it cancels; ids never matter.
    "params.requestId",
    # Pagination cursors are opaque and may differ per run (the replay substitutes new ones); the
    # pages' contents are still compared, and ignoring the cursor lets page k pair with page k.
    "params.cursor",
    "result.nextCursor",
    # Tool definitions are static, and their JSON schemas may well have a property named
    # sessionId or taskId: compare them whole (the last matching pattern decides).
    "!tools/list:result.tools.**",
    "!sampling/createMessage:params.tools.**",
)

# Diffs run by `diff_sessions` in this process (a seam for tests: the API's report cache pages a
# diff without running it again).
runs = 0

_HANDSHAKE = frozenset({"initialize", "server/discover"})
_SKIPPED_KINDS = frozenset({"log", "http"})
_KEY_FIELDS = ("uri", "uriTemplate", "name")


def default_ignore(*extra: str) -> PathSet:
    """`DEFAULT_IGNORE` plus `extra` patterns."""
    return PathSet([*DEFAULT_IGNORE, *extra])


# --- input --------------------------------------------------------------------------------------------
# The diff reads the store's own record (`store.models.Message`, or anything with its attributes:
# `MessageRecord`) and parses each body once per diff; no copy of the record's fields.


def _payload(m: MessageRecord) -> Any:
    """The parsed JSON-RPC object of a record (a list for a batch), None when unparsable."""
    try:
        return bounded_loads(stored_body(m.channel, m.raw))
    except (orjson.JSONDecodeError, TypeError):
        return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- output -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One difference at one path: `changed`, `added` (only in the replay) or `removed`.

    `volatile`: a string that changed only in clock-like parts (times, dates, UUIDs, numbers
    inside equal words; see `replay.volatile`); shown, but not a behaviour change by default."""

    path: str
    kind: str
    before: Any
    after: Any
    volatile: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "before": self.before,
            "after": self.after,
            "volatile": self.volatile,
        }


@dataclass
class ExchangeDiff:
    """One exchange: `equal`, `changed`, `missing` (original only) or `extra` (replay only)."""

    status: str
    method: str
    summary: str
    original_seq: int | None
    replay_seq: int | None
    changes: list[Change]
    direction: str = "c2s"
    # What the inspector did to this exchange's messages when it was recorded (issue 17), e.g.
    # "dropped by rule slow (not delivered)": the client saw that, the server did not do it.
    interventions: list[str] = field(default_factory=list)
    # Its place in the whole report (equal exchanges included, whether listed or only counted): a
    # stable handle for a report that lists only what differs, or one page of it.
    index: int = -1

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "status": self.status,
            "method": self.method,
            "summary": self.summary,
            "direction": self.direction,
            "original_seq": self.original_seq,
            "replay_seq": self.replay_seq,
            "changes": [c.to_json() for c in self.changes],
            "interventions": list(self.interventions),
        }

    @property
    def volatile_only(self) -> bool:
        """Changed, but only in volatile values."""
        return self.status == "changed" and all(c.volatile for c in self.changes)


_STATUSES = ("equal", "changed", "missing", "extra")


@dataclass
class SessionDiff:
    """The diff of two sessions, exchange by exchange, in the original's order."""

    exchanges: list[ExchangeDiff]
    ignored: list[str]
    strict_volatile: bool = False  # volatile values count as changes too
    # Exchanges per status when `exchanges` leaves out equal ones (`diff_sessions(keep_equal=False)`).
    totals: dict[str, int] | None = field(default=None, compare=False)
    # What `exchanges` holds: "all" of them, or the "differing" ones (and those intervened on).
    listed: str = "all"

    @property
    def changed(self) -> bool:
        """True when behaviour changed (the CLI's exit status 1); volatile values only when strict."""
        return any(
            x.status != "equal" and (self.strict_volatile or not x.volatile_only) for x in self.exchanges
        )

    @property
    def exit_status(self) -> int:
        return 1 if self.changed else 0

    def counts(self) -> dict[str, int]:
        """Exchanges per status, every status present."""
        if self.totals is not None:
            return dict(self.totals)
        found = Counter(x.status for x in self.exchanges)
        return {**{s: found[s] for s in _STATUSES}, "volatile": sum(x.volatile_only for x in self.exchanges)}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the `--json` report)."""
        return self.to_json_page(0, len(self.exchanges))

    def to_json_page(self, start: int, end: int) -> dict[str, Any]:
        """`to_json` listing only `exchanges[start:end]` (a page of the API's report)."""
        return {
            "changed": self.changed,
            "counts": self.counts(),
            "ignored": list(self.ignored),
            "strict_volatile": self.strict_volatile,
            "listed": self.listed,
            "exchanges": [x.to_json() for x in self.exchanges[start:end]],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionDiff:
        """Read back what `to_json` wrote."""
        return cls(
            exchanges=[
                ExchangeDiff(
                    status=x["status"],
                    method=x["method"],
                    summary=x["summary"],
                    original_seq=x["original_seq"],
                    replay_seq=x["replay_seq"],
                    changes=[
                        Change(c["path"], c["kind"], c["before"], c["after"], c.get("volatile", False))
                        for c in x["changes"]
                    ],
                    direction=x.get("direction", "c2s"),
                    interventions=list(x.get("interventions") or []),
                    index=int(x.get("index", -1)),
                )
                for x in data["exchanges"]
            ],
            ignored=list(data["ignored"]),
            strict_volatile=bool(data.get("strict_volatile", False)),
            totals=dict(data["counts"]) if data.get("listed") == "differing" else None,
            listed=str(data.get("listed", "all")),
        )


# --- JSON diff ----------------------------------------------------------------------------------------


class _Delta(NamedTuple):
    segs: tuple[Segment, ...]
    kind: str
    before: Any
    after: Any

    def change(self) -> Change:
        volatile = self.kind == "changed" and is_volatile(self.before, self.after)
        return Change(format_path(self.segs), self.kind, self.before, self.after, volatile)


def _key_field(arr: list[Any]) -> str | None:
    """The field that identifies each element of an array of objects (unique strings), if any."""
    if not arr:
        return None
    for f in _KEY_FIELDS:
        values = [el.get(f) if isinstance(el, dict) else None for el in arr]
        if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
            return f
    return None


def _common_key_field(a: list[Any], b: list[Any]) -> str | None:
    fa, fb = _key_field(a), _key_field(b)
    if not a:
        return fb
    if not b:
        return fa
    return fa if fa == fb else None


def _element_segments(arr: list[Any]) -> list[Segment]:
    f = _key_field(arr)
    if f is None:
        return list(range(len(arr)))
    return [Item(f, el[f]) for el in arr]


def _same(a: Any, b: Any) -> bool:
    """Equal JSON scalars: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _strip(value: Any, cur: PathCursor) -> Any:
    """`value` without its ignored parts (for display)."""
    if cur.dead:
        return value
    if isinstance(value, dict):
        return {k: _strip(v, c) for k, v in value.items() if not (c := cur.child(k)).hit}
    if isinstance(value, list):
        segs = _element_segments(value)
        return [_strip(v, c) for v, s in zip(value, segs, strict=True) if not (c := cur.child(s)).hit]
    return value


def _normal(value: Any, cur: PathCursor) -> Any:
    """`value` without its ignored parts, keyed arrays sorted, integral floats as ints (for keys)."""
    if isinstance(value, dict):
        return {k: _normal(v, c) for k, v in value.items() if not (c := cur.child(k)).hit}
    if isinstance(value, list):
        segs = _element_segments(value)
        kept = [(s, _normal(v, c)) for v, s in zip(value, segs, strict=True) if not (c := cur.child(s)).hit]
        if segs and isinstance(segs[0], Item):
            kept.sort(key=lambda sv: sv[0].value)  # type: ignore[union-attr]
        return [v for _, v in kept]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _canon(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _walk(a: Any, b: Any, path: tuple[Segment, ...], cur: PathCursor, out: list[_Delta]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        pairs: Iterable[tuple[Segment, Any, Any]] = (
            (k, a.get(k, _ABSENT), b.get(k, _ABSENT)) for k in sorted(a.keys() | b.keys())
        )
    elif isinstance(a, list) and isinstance(b, list):
        f = _common_key_field(a, b)
        if f is None:
            pairs = (
                (i, a[i] if i < len(a) else _ABSENT, b[i] if i < len(b) else _ABSENT)
                for i in range(max(len(a), len(b)))
            )
        else:
            ma = {el[f]: el for el in a}
            mb = {el[f]: el for el in b}
            order = [*ma, *(k for k in mb if k not in ma)]
            pairs = ((Item(f, k), ma.get(k, _ABSENT), mb.get(k, _ABSENT)) for k in order)
    else:
        if not _same(a, b):
            out.append(_Delta(path, "changed", _strip(a, cur), _strip(b, cur)))
        return
    for seg, va, vb in pairs:
        c = cur.child(seg)
        if c.hit:
            continue
        p = (*path, seg)
        if vb is _ABSENT:
            out.append(_Delta(p, "removed", _strip(va, c), None))
        elif va is _ABSENT:
            out.append(_Delta(p, "added", None, _strip(vb, c)))
        else:
            _walk(va, vb, p, c, out)


_ABSENT: Any = object()


def diff_json(a: Any, b: Any, ignore: PathSet) -> list[Change]:
    """The differences between two JSON values, paths relative to them, ignored paths skipped."""
    out: list[_Delta] = []
    cur = ignore.cursor()
    if not cur.hit:
        _walk(a, b, (), cur, out)
    return [d.change() for d in out]


# --- exchanges ----------------------------------------------------------------------------------------


@dataclass
class _Note:
    method: str
    subject: Item | None
    view: dict[str, Any]


@dataclass(slots=True)
class _Exchange:
    role: str  # request | notification | response (an orphan) | invalid
    direction: str
    method: str
    subject: Item | None
    seq: int
    view: dict[str, Any]
    rpc_id: str | None = None  # only to tell apart the requests of one batch (they share a seq)
    response: dict[str, Any] | None = None
    answered: bool = False
    notes: list[_Note] = field(default_factory=list)
    key: str = ""
    interventions: list[str] = field(default_factory=list)
    round: tuple[int, int] | None = None  # (n, of): a round of a multi-round-trip conversation
    # The streamed diff's bookkeeping (`_Stream`): complete (no more messages will join it), left
    # out (wholly ignored), its place among its session's kept exchanges, its aligned partner.
    done: bool = False
    dropped: bool = False
    side: int = 0
    index: int = -1
    partner: _Exchange | None = None
    cursor: PathCursor | None = None  # its ignore cursor, once keyed
    raw: bytes | None = None  # the stored bytes it began with, when a whole row (the key's memo)
    # The lane (`_Stream`): the replay index of its twin, the replay exchange the lane did not build
    # because it would be this one at seq + offset; _NO_TWIN none, _DROPPED_TWIN a dropped one's.
    twin: int = -1

    @property
    def summary(self) -> str:
        text = _summary(self.method, self.subject)
        return f"{text} · round {self.round[0]} of {self.round[1]}" if self.round else text

    @property
    def params_compared(self) -> bool:
        """Aligned by method alone (or by conversation round), so the params are part of the comparison."""
        return self.role == "request" and (
            self.direction == "s2c" or self.method in _HANDSHAKE or self.round is not None
        )


def _summary(method: str, subject: Item | None) -> str:
    return method if subject is None else f"{method} {subject.field}={subject.value}"


def _opposite(direction: str) -> str:
    return "s2c" if direction == "c2s" else "c2s"


def _subject(params: Any) -> Item | None:
    """What a request is about: its tool/prompt name, resource uri, or completion ref."""
    if not isinstance(params, dict):
        return None
    for f in ("name", "uri"):
        if isinstance(params.get(f), str):
            return Item(f, params[f])
    ref = params.get("ref")
    if isinstance(ref, dict):
        for f in ("name", "uri"):
            if isinstance(ref.get(f), str):
                return Item("ref", ref[f])
    return None


def params_view(payload: dict[str, Any]) -> dict[str, Any]:
    """What the diff compares of a request: its params."""
    return {"params": payload["params"]} if "params" in payload else {}


def response_view(payload: dict[str, Any]) -> dict[str, Any]:
    """What the diff compares of a response: its result, or its error's code and message."""
    if "error" in payload:
        err = payload["error"]
        if isinstance(err, dict):
            return {"error": {k: err[k] for k in ("code", "message") if k in err}}
        return {"error": err}
    return {"result": payload.get("result")}


class _Parsed:
    """A message body parsed once for both sessions (`_Stream`): identical stored bytes give the same
    objects, and what the builder derives from them (subject and params view, response view) is
    worked out once. Nothing in the diff changes a payload or a view, so sharing them is safe, and
    `_identical` knows two shared views at once (`is`) without serialising them."""

    __slots__ = ("payload", "request", "response")

    def __init__(self, payload: Any) -> None:
        self.payload = payload
        self.request: tuple[Item | None, dict[str, Any]] | None = None  # subject, params view
        self.response: dict[str, Any] | None = None  # response view


def _request_view(m: _Part, payload: dict[str, Any]) -> tuple[Item | None, dict[str, Any]]:
    """A request's or notification's subject and params view (once per shared body)."""
    p = m.parsed
    if p is None:
        return _subject(payload.get("params")), params_view(payload)
    if p.request is None:
        p.request = (_subject(payload.get("params")), params_view(payload))
    return p.request


def _response_view(m: _Part, payload: dict[str, Any]) -> dict[str, Any]:
    p = m.parsed
    if p is None:
        return response_view(payload)
    if p.response is None:
        p.response = response_view(payload)
    return p.response


class _Part(NamedTuple):
    """One message for the builder: a record, or one item of a batch record (which shares its seq),
    with the recorder's pairing of it (`answers_seq`, and `related_seq` for progress/cancel)."""

    seq: int
    direction: str
    kind: str
    method: str | None
    rpc_id: str | None
    payload: Any
    answers_seq: int | None
    related_seq: int | None
    intervention: str | None = None
    raw: bytes | None = None  # the stored bytes of a whole-row message (not a batch's item)
    parsed: _Parsed | None = None  # its body as both sessions share it (`_Stream`)
    # The body its payload was parsed from, for a whole row read as stored (no intervention, not a
    # batch): two such parts with equal `body` and columns feed a builder alike (`_Stream`'s lane).
    body: bytes | None = None


_SHARE, _SHARE_BYTES = 64, 4096  # bodies parsed once for both sessions (`_expand`'s `shared`)


def _expand(
    messages: Iterable[MessageRecord],
    shared: dict[bytes, _Parsed] | None = None,
    watch: _StreamBuilder | None = None,
    lane: _Stream | None = None,
    side: int = 0,
) -> Iterable[_Part]:
    """Messages in order, a batch's items one by one, each with the recorder's stored pairing.

    A session recorded with interception is read as the server lived it (`store.interventions`):
    what it received (not what the inspector kept from it) and what it sent (not what the
    inspector made up); the marks of what is read go along as `intervention`.

    `shared` (the streamed diff's, one for both sessions): the common row's body, when small, is
    parsed once for two messages with the same bytes (`_Parsed`): the first one parses it and leaves
    it here, the next one takes it away, so a replay that agrees with its original reuses the
    original's parse. What finds no twin is let go past `_SHARE` entries: parsed bodies held longer
    survive into the collector's older generations (with 512 held, a 100k diff ran ~500 collections,
    1 s of CPU). `watch`: the builder to tell when a response may open
    a conversation (`protocol.conversations`: only an `input_required` result does, and its body
    says so). `lane` (the streamed diff's, `_Stream`): the original's side (`side` 0) leaves each
    record there as `lane.last`; in the lane, the replay's side yields a row that is the twin of
    that one (`_twin_records`) unread, as a `_TWIN` part holding the record."""
    loads, decode_error = bounded_loads, orjson.JSONDecodeError  # deep levels as text (json_depth)
    for m in messages:
        kind = m.kind
        if watch is not None and kind == "response" and not watch.input_required:
            raw = m.raw if isinstance(m.raw, bytes | bytearray) else str(m.raw or "").encode()
            watch.input_required = b'"input_required"' in raw
        if lane is not None:
            if side == 0:
                lane.last = m
            elif lane.mirror and (twin := lane.last) is not None and _twin_records(twin, m, lane.offset):
                yield _Part(m.seq, m.direction, _TWIN, None, None, m, None, None)
                continue
        meta = m.meta if isinstance(m.meta, dict) else None
        if not meta:
            # The common row (no interception, no link, no batch): read straight through.
            parsed = None
            if kind in _SKIPPED_KINDS:
                payload, body = None, b""
            else:
                body = m.raw if m.channel != "sse" else stored_body(m.channel, m.raw)
                if shared is not None and type(body) is bytes and len(body) <= _SHARE_BYTES:
                    parsed = shared.pop(body, None)
                    if parsed is None:
                        try:
                            payload = loads(body)
                        except decode_error:
                            payload = None
                        parsed = shared[body] = _Parsed(payload)  # for its twin
                        if len(shared) > _SHARE:  # let go at once: dropping the oldest one by one
                            shared.clear()  # walks the dict's freed slots each time
                    payload = parsed.payload
                else:
                    try:
                        payload = loads(body)
                    except (decode_error, TypeError):
                        payload = None
            if kind != "batch" or not isinstance(payload, list):
                yield _Part(
                    m.seq,
                    m.direction,
                    kind,
                    m.method,
                    m.rpc_id,
                    payload,
                    m.answers_seq,
                    None,
                    None,
                    m.raw,
                    parsed,
                    body if type(body) is bytes else None,
                )
                continue
            meta = {}
        elif not server_side(m.direction, meta):
            continue
        else:
            payload = _payload(m) if kind not in _SKIPPED_KINDS else None
        note = describe(meta) if meta else None
        if note is None and kind != "batch" and type(m.raw) is bytes:
            # Read as stored, one message: its columns and bytes say all the builder will do with it.
            body = b"" if kind in _SKIPPED_KINDS else stored_body(m.channel, m.raw)
            related = _int_or_none(meta.get("related_seq"))
            yield _Part(
                m.seq,
                m.direction,
                kind,
                m.method,
                m.rpc_id,
                payload,
                m.answers_seq,
                related,
                None,
                None,
                None,
                body,
            )
            continue
        if m.kind == "batch" and isinstance(payload, list):
            items = meta.get("items")
            items = items if isinstance(items, list) and len(items) == len(payload) else [{}] * len(payload)
            for el, pairing in zip(payload, items, strict=True):
                c = classify_value(el)
                p = pairing if isinstance(pairing, dict) else {}
                yield _Part(
                    m.seq,
                    m.direction,
                    c.kind.value,
                    c.method or p.get("request_method"),
                    c.rpc_id,
                    el,
                    _int_or_none(p.get("answers_seq")),
                    _int_or_none(p.get("related_seq")),
                    note,
                )
        else:
            yield _Part(
                m.seq,
                m.direction,
                m.kind,
                m.method,
                m.rpc_id,
                payload,
                m.answers_seq,
                _int_or_none(meta.get("related_seq")),
                note,
            )
    if lane is not None and side == 0:
        lane.last = None  # the original ended: nothing more is a twin


def _pull(records: Iterator[MessageRecord], back: list[MessageRecord]) -> Iterator[MessageRecord]:
    """`records`, after what was handed back to `back` (the record lane's, `_Stream._fast`)."""
    while True:
        if back:
            yield back.pop()
            continue
        m = next(records, None)
        if m is None:
            return
        yield m


_NOT_PLAIN: Any = object()


def _plain_link(m: MessageRecord) -> Any:
    """A row's `related_seq` (None: none) when `_expand` reads it as stored, one whole message (no
    intervention; the server's own side); else _NOT_PLAIN."""
    meta = m.meta if isinstance(m.meta, dict) else None
    if not meta:
        return None
    if len(meta) == 1 and "related_seq" in meta and m.direction in ("c2s", "s2c"):
        return _int_or_none(meta["related_seq"])  # the recorder's link alone: no mark to read
    if not server_side(m.direction, meta) or describe(meta) is not None:
        return _NOT_PLAIN
    return _int_or_none(meta.get("related_seq"))


class _Lite:
    """A request of the record lane (`_Stream._fast`): its records only, until it is counted equal
    with its twin or becomes an `_Exchange` (`_Stream._materialise`)."""

    __slots__ = ("answer", "direction", "index", "key", "notes", "record", "twin")

    def __init__(self, record: MessageRecord, index: int, twin: int, direction: str, key: str) -> None:
        self.record, self.index, self.twin, self.direction = record, index, twin, direction
        self.key = key  # "" unless something waited to be aligned (`_begin` keys it then)
        self.answer: MessageRecord | None = None
        self.notes: list[MessageRecord] = []


_TWIN = "(twin)"  # the kind of a replay part the lane did not read (`_expand`'s `lane`)
_SQL_TWIN: Any = object()  # `_Stream._fast`'s replay row when SQL found it the twin (`report.TwinRows`)


def _twin_records(a: MessageRecord, b: MessageRecord, offset: int) -> bool:
    """Two common rows (no meta, not a batch) that `_expand` would make twin parts (`_twin_parts`)
    at `offset`: the same bytes on the same channel, the same columns, the answer's link shifted."""
    raw = b.raw
    if type(raw) is not bytes or raw != a.raw or a.meta or b.meta or b.seq - a.seq != offset:
        return False
    if b.kind != a.kind or b.kind == "batch" or b.channel != a.channel or b.direction != a.direction:
        return False
    if b.method != a.method or b.rpc_id != a.rpc_id:
        return False
    x, y = a.answers_seq, b.answers_seq
    return x is None and y is None or (x is not None and y is not None and y - x == offset)


class _Builder:
    """Groups one session's messages into exchanges, as the recorder paired them.

    A response belongs to the request its stored `answers_seq` names, a progress or cancel
    notification to its `related_seq`: JSON-RPC ids are never matched again here, so reused
    or duplicate ids pair exactly as the recorder saw them."""

    def __init__(self) -> None:
        self.out: list[_Exchange] = []
        self.by_seq: dict[int, list[_Exchange]] = defaultdict(list)

    def feed(self, m: _Part) -> None:
        if m.kind in _SKIPPED_KINDS:
            return
        payload = m.payload if isinstance(m.payload, dict) else None
        if payload is not None and m.kind == "request":
            self._request(m, payload)
        elif payload is not None and m.kind in ("response", "error"):
            self._response(m, payload)
        elif payload is not None and m.kind == "notification":
            self._notification(m, payload)
        else:
            invalid = _Exchange("invalid", m.direction, "(invalid)", None, m.seq, {"payload": m.payload})
            invalid.interventions = [m.intervention] if m.intervention else []
            self.out.append(invalid)

    def _request(self, m: _Part, payload: dict[str, Any]) -> None:
        method = m.method or str(payload.get("method"))
        subject, view = _request_view(m, payload)
        ex = _Exchange("request", m.direction, method, subject, m.seq, view)
        ex.rpc_id, ex.raw = m.rpc_id, m.raw
        ex.interventions = [m.intervention] if m.intervention else []
        self.out.append(ex)
        self.by_seq[m.seq].append(ex)

    def _take(self, m: _Part) -> _Exchange | None:
        """The request the recorder paired this response with. The requests of one batch share its
        seq: among those, the one with the response's id (an error with id null: the first)."""
        if m.answers_seq is None:
            return None
        candidates = [
            ex for ex in self.by_seq.get(m.answers_seq, []) if not ex.answered and ex.direction != m.direction
        ]
        for ex in candidates:
            if ex.rpc_id == m.rpc_id:
                return ex
        return candidates[0] if candidates else None

    def _response(self, m: _Part, payload: dict[str, Any]) -> _Exchange | None:
        """Pair a response with its request; returns that request's exchange (None: an orphan)."""
        ex = self._take(m)
        if ex is None:
            orphan = _Exchange("response", m.direction, m.method or "(response)", None, m.seq, {})
            orphan.view = _response_view(m, payload)
            orphan.interventions = [m.intervention] if m.intervention else []
            self.out.append(orphan)
            return None
        ex.response = _response_view(m, payload)
        ex.answered = True
        if m.intervention:
            ex.interventions.append(m.intervention)
        return ex

    def _notification(self, m: _Part, payload: dict[str, Any]) -> None:
        method = m.method or str(payload.get("method"))
        note = _Note(method, *_request_view(m, payload))
        # Only the recorder's link (a progress token) ties a notification to a request. Arrival while
        # a request is in flight is timing: a server's timer log, or one sent on the GET stream
        # over HTTP, lands inside or outside a call from run to run, and stdio and HTTP recordings
        # would disagree. Those notifications are exchanges of their own, paired by content anywhere
        # in the session, so their interleaving never matters.
        opposite = _opposite(m.direction)
        for ex in self.by_seq.get(m.related_seq, []) if m.related_seq is not None else []:
            if ex.direction == opposite:
                ex.notes.append(note)
                if m.intervention:
                    ex.interventions.append(m.intervention)
                return
        alone = _Exchange("notification", m.direction, method, note.subject, m.seq, note.view)
        alone.raw = m.raw
        alone.interventions = [m.intervention] if m.intervention else []
        self.out.append(alone)


def _exchanges(messages: Sequence[MessageRecord], ignore: PathSet) -> list[_Exchange]:
    """A session's exchanges with their alignment keys; wholly ignored messages dropped."""
    b = _Builder()
    for m in _expand(messages):
        b.feed(m)
    rounds = _conversation_rounds(messages)
    out = []
    for ex in b.out:
        cur = ignore.cursor(ex.method, ex.subject)
        if cur.hit:
            continue
        if ex.role == "request" and (found := rounds.get(ex.seq)) is not None:
            # A multi-round-trip conversation: round n pairs with round n of the same request (new ids,
            # the echoed state and the answers given are compared, never taken for a new exchange).
            ex.round = found
            subject = [ex.subject.field, ex.subject.value] if ex.subject else None
            ex.key = _canon([ex.direction, ex.role, ex.method, subject, "round", found[0]])
        elif ex.params_compared:
            ex.key = _canon([ex.direction, ex.role, ex.method])
        else:
            ex.key = _canon([ex.direction, ex.role, ex.method, _normal(ex.view, cur)])
        out.append(ex)
    return out


_NO_TWIN, _DROPPED_TWIN = -1, -2  # `_Exchange.twin`: none; a dropped exchange's (no index)
_RETRY = 64  # twin steps out of the lane before trying to enter it again (`_Stream._enter`)
_MEMO, _MEMO_BYTES = 512, 4096  # keys remembered by stored bytes (`_Stream.memo`), bodies up to
_LATE = 256  # messages a request stays open for progress after its answer (the streamed diff)


class _StreamBuilder(_Builder):
    """A `_Builder` that lets go of what is complete: an answered request stays open for the
    notifications linked to it for `_LATE` more messages, then is `done` and forgotten here.
    The caller drains `out` (new exchanges, in order) and `released` (done requests)."""

    def __init__(self) -> None:
        super().__init__()
        self.fed = 0
        self.closing: deque[tuple[int, _Exchange]] = deque()
        self.released: list[_Exchange] = []
        self.input_required = False  # a conversation may open: `_conversation_rounds` is needed

    def feed(self, m: _Part) -> None:
        self.fed += 1
        super().feed(m)
        while self.closing and self.fed - self.closing[0][0] > _LATE:
            self._release(self.closing.popleft()[1])

    def _response(self, m: _Part, payload: dict[str, Any]) -> _Exchange | None:
        ex = super()._response(m, payload)
        if ex is not None:
            self.closing.append((self.fed, ex))
        return ex

    def _release(self, ex: _Exchange) -> None:
        held = self.by_seq.get(ex.seq)
        if held is not None:
            held[:] = [x for x in held if x is not ex]
            if not held:
                del self.by_seq[ex.seq]
        ex.done = True
        self.released.append(ex)

    def finish(self) -> None:
        """The session ended: every open request is done."""
        self.closing.clear()
        for held in list(self.by_seq.values()):
            for ex in held:
                ex.done = True
                self.released.append(ex)
        self.by_seq.clear()


@dataclass
class _Tally:
    """Exchanges per status (every status), counted as the streamed diff decides them."""

    counts: dict[str, int] = field(default_factory=lambda: {s: 0 for s in (*_STATUSES, "volatile")})

    def add(self, x: ExchangeDiff) -> None:
        self.counts[x.status] += 1
        self.counts["volatile"] += x.volatile_only


class _Stream:
    """The streamed diff of two sessions (issue 21): both are read together, message by message;
    an exchange is keyed when it begins and aligned at once (k-th with k-th of equal keys, as
    `_align`), and a pair is compared as soon as both sides are complete, then let go. What is
    held is what is not matched yet, the open requests, the results that are not `equal` (and
    equal ones when `keep_equal`) and one int per replay exchange (its partner: where an extra
    goes). The report comes out in the original's order, as `diff_sessions` always wrote it."""

    def __init__(
        self,
        ignore: PathSet,
        keep_equal: bool,
        rounds: tuple[dict[int, tuple[int, int]], dict[int, tuple[int, int]]] = ({}, {}),
        share: bool = True,
        lane: bool = True,
    ) -> None:
        self.ignore = ignore
        self.keep_equal = keep_equal
        self.rounds = rounds
        self.builders = (_StreamBuilder(), _StreamBuilder())
        self.sizes = [0, 0]
        self.waiting: dict[str, tuple[int, deque[_Exchange]]] = {}  # key -> (side, unmatched)
        self.partner_of_b = array("q")
        self.results: dict[int, ExchangeDiff] = {}
        self.tally = _Tally()
        self.cursors: dict[tuple[str, Item | None], PathCursor] = {}
        # Keys of the last exchanges begun, by their stored bytes: the other session's identical
        # message takes its key from here instead of normalising its params again. Lockstep reading
        # finds it within a few messages; what finds no twin is let go past _MEMO entries.
        self.memo: dict[tuple[str, str, str, bytes], tuple[int, str]] = {}
        # Bodies parsed once for both sessions (`_expand`); None: each session parses its own.
        self.shared: dict[bytes, _Parsed] | None = {} if share else None
        # The lane: while the replay mirrors the original (`_enter`), its builder is not fed, and
        # the original's exchanges stand for their twins (`_Exchange.twin`) until `_leave` makes
        # them. Not with conversation rounds (a round is looked up by each session's own seq).
        self.lane = lane and not (rounds[0] or rounds[1])
        self.mirror = False
        self.offset = 0  # replay seq - original seq of twins, in the lane
        self.fed_offset = 0  # the replay builder's `fed` - the original's, in the lane
        self.retry = 0
        self.entered = 0  # times the lane was entered (a figure for tests and profiles)
        self.taken = 0  # pairs of records the record lane took (`_fast`; the same)
        self.marked = 0  # of those, the replay's rows SQL found twins (`report.TwinRows`)
        self.last: MessageRecord | None = None  # the original's record read last (`_expand`)
        self.plain: dict[str, bool] = {}  # `_plain`, by method

    def run(self, original: Iterable[MessageRecord], replay: Iterable[MessageRecord]) -> None:
        shared, (a, b) = self.shared, self.builders
        lane = self.lane
        # The record lane (`_fast`) reads both sessions' records itself between two steps of the
        # parts; the records it does not take go back (`backs`), read first by `_pull`. Also with
        # `keep_equal` (the API's report: its first page of two 100k sessions took 5-6 s without).
        fast = lane
        ita, itb = iter(original), iter(replay)
        beside = getattr(replay, "beside", None) if fast else None
        if beside is not None:
            # The replay's rows compared with their twins in SQL (`report.TwinRows`): pages read
            # in the record lane fetch only the seq of a row equal to the original's at the offset.
            itb = beside(original, self._hint, self._known) or itb
        backs: tuple[list[MessageRecord], list[MessageRecord]] = ([], [])
        parts = (
            _expand(_pull(ita, backs[0]) if fast else ita, shared, a, self if lane else None, 0),
            _expand(_pull(itb, backs[1]) if fast else itb, shared, b, self if lane else None, 1),
        )
        drain = self._drain
        for pa, pb in zip_longest(*parts):
            if lane:
                if pb is not None and pb.kind is _TWIN:
                    pass  # in the lane, the twin of `pa` (`_expand` checked it from the records)
                elif pa is not None and pb is not None and _twin_parts(pa, pb):
                    if not self.mirror:
                        self.retry -= 1
                        if self.retry <= 0:
                            self._enter(pb.seq - pa.seq)
                    elif pb.seq - pa.seq != self.offset:
                        self._leave()
                elif self.mirror:
                    self._leave()
            if pa is not None:
                a.feed(pa)
                if a.out or a.released:
                    drain(0, a)
            if pb is not None:
                if self.mirror:  # its twin stands for what it would begin or complete
                    b.fed += 1
                    if (
                        fast
                        and pa is not None
                        and pa.body is not None
                        and (pb.kind is _TWIN or pb.body is not None)
                    ):
                        # A twin step of two whole records: both readers stand between records.
                        self._fast(ita, itb, backs)
                    continue
                if pb.kind is _TWIN:  # the lane was left while the original's builder drained
                    pb = next(iter(_expand([pb.payload], shared)))
                b.feed(pb)
                if b.out or b.released:
                    drain(1, b)
        if self.mirror:
            self._leave()
        for side in (0, 1):
            b = self.builders[side]
            b.finish()
            self._drain(side, b)

    def _fast(
        self,
        ita: Iterator[MessageRecord],
        itb: Iterator[MessageRecord],
        backs: tuple[list[MessageRecord], list[MessageRecord]],
    ) -> None:
        """The record lane: in the lane (`mirror`), with nothing waiting to be aligned, twin
        records (`_twin_records`, also with a `related_seq` link at the offset) are taken straight
        from both readers: no parse, no `_Part`, no `_Exchange`. A request is a `_Lite` (its
        record, the records that join it, its index and its twin's); its answer moves it to
        `closing` as the builder's would, and `_LATE` messages later it is counted equal, as
        `_twin_ready` would count it (with `keep_equal`, listed: `_listed` parses its request for
        the summary, the one parse of the exchange). The first pair this does not cover (not
        twins, a message for an exchange begun before, an orphan, a batch, an ignored method, the
        end) goes back to the readers, and the open lites become the original builder's exchanges
        (`_materialise`), as if it had been fed them: the lane goes on from there as before."""
        a, b = self.builders
        offset, counts = self.offset, self.tally.counts
        a_open, a_closing = a.by_seq, a.closing
        lites: dict[int, _Lite] = {}
        closing: deque[tuple[int, _Lite]] = deque()
        sizes, partner_of_b, plain, waiting = self.sizes, self.partner_of_b, self._plain, self.waiting
        late, taken = _LATE, 0
        # With `keep_equal` every equal exchange is listed: the record is parsed for its summary
        # when the lite is counted (`_listed`), as `_twin_ready` lists it.
        keep = self.keep_equal
        # `report.TwinRows`: `same` takes the replay's row when SQL found it the twin of `ra` (every
        # check below holds: the same columns, `answers_seq` at the offset, no meta on either side
        # or, at offset 0, the same).
        same, marked = getattr(itb, "same", None), 0
        while True:
            ra = next(ita, None)
            if ra is None:
                rb = next(itb, None)
                break
            if same is not None and same(ra.seq + offset, offset):
                rb, kind, x, related = _SQL_TWIN, ra.kind, ra.answers_seq, None
                raw = ra.raw
                marked += 1
                if ra.meta:  # the same meta on both sides (offset 0): the same link
                    related = _plain_link(ra)
                    if related is _NOT_PLAIN:
                        break
            else:
                rb = next(itb, None)
                if rb is None:
                    break
                raw = ra.raw
                if type(raw) is not bytes or rb.raw != raw or rb.seq - ra.seq != offset:
                    break
                kind = ra.kind
                if rb.kind != kind or rb.channel != ra.channel or rb.direction != ra.direction:
                    break
                if rb.method != ra.method or rb.rpc_id != ra.rpc_id:
                    break
                x, y = ra.answers_seq, rb.answers_seq
                if (x is None) != (y is None) or (x is not None and y - x != offset):  # type: ignore[operator]
                    break
                related = None
            if rb is not _SQL_TWIN and (ra.meta or rb.meta):  # read as stored, the links at the offset
                related, other = _plain_link(ra), _plain_link(rb)
                if related is _NOT_PLAIN or other is _NOT_PLAIN or (related is None) != (other is None):
                    break
                if related is not None and other - related != offset:
                    break
            if kind == "request":
                method = ra.method
                if method is None or not plain(method):
                    break
                key = ""
                if waiting and (key := self._lane_key(ra, "request")) in waiting:
                    break  # it would pair with what waits, not with its twin
                lites[ra.seq] = _Lite(ra, sizes[0], sizes[1], ra.direction, key)
                partner_of_b.append(sizes[0])
                sizes[0] += 1
                sizes[1] += 1
            elif kind == "response" or kind == "error":
                lite = lites.get(x) if x is not None else None
                if lite is None or lite.answer is not None or lite.direction == ra.direction:
                    break  # an orphan, or an answer to an exchange begun before the record lane
                if not (a.input_required and b.input_required) and b'"input_required"' in raw:
                    a.input_required = b.input_required = True  # the same bytes on both sides
                lite.answer = ra
                closing.append((a.fed + 1, lite))
            elif kind == "notification":
                lite = None
                if related is not None:
                    if related in a_open:
                        break
                    lite = lites.get(related)
                    if lite is not None and lite.direction != ra.direction:
                        lite.notes.append(ra)  # linked to its request, as the builder links it
                    else:
                        lite = None
                if lite is None:  # an exchange of its own, complete: equal to its twin
                    method = ra.method
                    if method is None or not plain(method):
                        break
                    if waiting and self._lane_key(ra, "notification") in waiting:
                        break
                    partner_of_b.append(sizes[0])
                    if keep:
                        self._listed(ra, sizes[0])
                    else:
                        counts["equal"] += 1
                    sizes[0] += 1
                    sizes[1] += 1
            elif kind not in _SKIPPED_KINDS:
                break
            fed = a.fed = a.fed + 1
            b.fed += 1
            if a_closing and fed - a_closing[0][0] > late:
                while a_closing and fed - a_closing[0][0] > late:
                    a._release(a_closing.popleft()[1])
                self._drain(0, a)
            while closing and fed - closing[0][0] > late:
                lite = lites.pop(closing.popleft()[1].record.seq)
                if keep:
                    self._listed(lite.record, lite.index)
                else:
                    counts["equal"] += 1
            taken += 1
        self.taken += taken
        self.marked += marked - (rb is _SQL_TWIN)
        if ra is not None:
            backs[0].append(ra)
        if rb is _SQL_TWIN:
            itb.unread()  # type: ignore[attr-defined]
        elif rb is not None:
            backs[1].append(rb)
        self._materialise(lites, closing)

    def _hint(self) -> int | None:
        """The offset `report.TwinRows` joins a page of the replay at: the lane's, None outside it."""
        return self.offset if self.mirror else None

    def _known(self, seq: int) -> MessageRecord | None:
        """The original's record `_expand` read last, when it is `seq` (`report.TwinRows` makes a
        marker the replay's record from it)."""
        last = self.last
        return last if last is not None and last.seq == seq else None

    def _listed(self, m: MessageRecord, index: int) -> None:
        """A record lane's exchange (a request's or a notification's own record) listed equal with
        `keep_equal`: what `_twin_ready` lists for the builder's exchange it stands for (its method
        and subject as `_Builder` takes them, the twin at the offset, no intervention in the lane)."""
        payload = _payload(m)
        method = m.method or str(payload.get("method"))
        x = ExchangeDiff(
            "equal",
            method,
            _summary(method, _subject(payload.get("params"))),
            m.seq,
            m.seq + self.offset,
            [],
            m.direction,
            [],
        )
        self.tally.add(x)
        self.results[index] = x

    def _lane_key(self, m: MessageRecord, role: str) -> str:
        """The key `_begin` gives a new exchange of the lane while something waits (a request or a
        notification of its own, read as stored, of a `_plain` method)."""
        method, direction = str(m.method), m.direction
        if role == "request" and (direction == "s2c" or method in _HANDSHAKE):
            return _canon([direction, role, method])
        payload = _payload(m)
        cur = self._cursor(method, _subject(payload.get("params")))
        return _canon([direction, role, method, _normal(params_view(payload), cur)])

    def _plain(self, method: str) -> bool:
        """No ignore pattern drops a whole `method` exchange, whatever its subject (so the record
        lane needs no parse to know it is kept)."""
        known = self.plain.get(method)
        if known is None:
            known = not self.ignore.cursor(method, None).hit and not self.ignore.scoped_by_subject(method)
            self.plain[method] = known
        return known

    def _materialise(self, lites: dict[int, _Lite], closing: deque[tuple[int, _Lite]]) -> None:
        """The record lane's open requests as the original builder's exchanges (each as the lane's
        `_begin` leaves it: its cursor, index and twin), answered and noted from their records, and
        the answered ones in `closing` after the builder's own (answered earlier)."""
        if not lites:
            return
        a, shared = self.builders[0], self.shared
        made: dict[int, _Exchange] = {}
        for seq, lite in lites.items():
            (p,) = _expand([lite.record], shared)
            a._request(p, p.payload)
            ex = a.out.pop()
            ex.cursor = self._cursor(ex.method, ex.subject)
            ex.index, ex.twin, ex.key = lite.index, lite.twin, lite.key
            for record in lite.notes:
                (q,) = _expand([record], shared)
                a._notification(q, q.payload)
            if lite.answer is not None:
                (r,) = _expand([lite.answer], shared)
                ex.response = _response_view(r, r.payload)
                ex.answered = True
            made[seq] = ex
        a.closing.extend((fed, made[lite.record.seq]) for fed, lite in closing)

    def _drain(self, side: int, b: _StreamBuilder) -> None:
        """Key and align the builder's new exchanges, compare the ones it completed (neither step
        feeds the builder, so its lists are emptied in place)."""
        if b.out:
            for ex in b.out:
                self._begin(side, ex)
            b.out.clear()
        if b.released:
            for ex in b.released:
                self._ready(ex)
            b.released.clear()

    def _begin(self, side: int, ex: _Exchange) -> None:
        """Key a new exchange and align it; non-requests are complete from the start."""
        cur = self.cursors.get((ex.method, ex.subject))
        if cur is None:
            cur = self._cursor(ex.method, ex.subject)
        if cur.hit:
            ex.dropped = True
            if self.mirror:
                ex.twin = _DROPPED_TWIN
            return
        if self.mirror:  # side 0: the replay is not fed in the lane
            # The key only says whom it pairs with: nothing waits, so its twin (and an exchange of
            # the lane is only ever compared with its twin: same key either way, `_compare`).
            if self.waiting:
                ex.key = (
                    _canon([ex.direction, ex.role, ex.method, _normal(ex.view, cur)])
                    if not ex.params_compared
                    else _canon([ex.direction, ex.role, ex.method])
                )
            if not self.waiting or ex.key not in self.waiting:
                # Its twin would take it from `waiting` at once: paired, nothing else changes.
                ex.cursor, ex.index = cur, self.sizes[0]
                ex.twin = self.sizes[1]
                self.sizes[0] += 1
                self.sizes[1] += 1
                self.partner_of_b.append(ex.index)
                if ex.role != "request":
                    ex.done = True
                    self._twin_ready(ex)
                return
            self._leave()  # an unmatched exchange of the same key would pair with one of them
        rounds = self.rounds[side]
        found = rounds.get(ex.seq) if rounds and ex.role == "request" else None
        if found is not None:
            ex.round = found
            subject = [ex.subject.field, ex.subject.value] if ex.subject else None
            ex.key = _canon([ex.direction, ex.role, ex.method, subject, "round", found[0]])
        elif ex.params_compared:
            ex.key = _canon([ex.direction, ex.role, ex.method])
        elif ex.raw is not None and len(ex.raw) <= _MEMO_BYTES:
            memo = (ex.direction, ex.role, ex.method, ex.raw)
            hit = self.memo.get(memo)
            if hit is not None and hit[0] != side:
                del self.memo[memo]
                ex.key = hit[1]
            else:
                ex.key = _canon([ex.direction, ex.role, ex.method, _normal(ex.view, cur)])
                if hit is None:
                    self.memo[memo] = (side, ex.key)
                    if len(self.memo) > _MEMO:
                        self.memo.clear()  # as `shared`: dropping the oldest walks freed slots
        else:
            ex.key = _canon([ex.direction, ex.role, ex.method, _normal(ex.view, cur)])
        ex.cursor = cur
        ex.side, ex.index = side, self.sizes[side]
        self.sizes[side] += 1
        if side == 1:
            self.partner_of_b.append(-1)
        held = self.waiting.get(ex.key)
        if held is not None and held[0] != side:
            other = held[1].popleft()
            if not held[1]:
                del self.waiting[ex.key]
            ex.partner, other.partner = other, ex
            a, b = (ex, other) if side == 0 else (other, ex)
            self.partner_of_b[b.index] = a.index
        elif held is not None:
            held[1].append(ex)
        else:
            self.waiting[ex.key] = (side, deque([ex]))
        if ex.role != "request":
            ex.done = True
            self._ready(ex)

    def _cursor(self, method: str, subject: Item | None) -> PathCursor:
        cur = self.cursors.get((method, subject))
        if cur is None:
            if len(self.cursors) > 4096:  # subjects are open-ended (uris)
                self.cursors.clear()
            cur = self.cursors[(method, subject)] = self.ignore.cursor(method, subject)
        return cur

    def _ready(self, ex: _Exchange) -> None:
        """A complete exchange: compare it with its partner if that one is complete too."""
        if ex.twin >= 0:
            self._twin_ready(ex)
            return
        other = ex.partner
        if ex.dropped or other is None or not other.done:
            return
        a, b = (ex, other) if ex.side == 0 else (other, ex)
        a.partner = b.partner = None  # compared: nothing holds either any more
        changes = [d.change() for d in _compare(a, b, self.ignore)]
        if not changes and not self.keep_equal and not a.interventions and not b.interventions:
            self.tally.counts["equal"] += 1  # counted, not listed: no report entry to build
            return
        x = ExchangeDiff(
            "changed" if changes else "equal",
            a.method,
            a.summary,
            a.seq,
            b.seq,
            changes,
            a.direction,
            [*a.interventions, *b.interventions],
        )
        self.tally.add(x)
        if changes or self.keep_equal or x.interventions:
            self.results[a.index] = x

    def _twin_ready(self, a: _Exchange) -> None:
        """A complete exchange of the lane: its twin is complete at the same step with the same
        content, so `_compare` would find nothing; the result `_ready` would give."""
        a.twin = _NO_TWIN
        if not self.keep_equal and not a.interventions:
            self.tally.counts["equal"] += 1
            return
        x = ExchangeDiff(
            "equal",
            a.method,
            a.summary,
            a.seq,
            a.seq + self.offset,
            [],
            a.direction,
            [*a.interventions, *a.interventions],
        )
        self.tally.add(x)
        self.results[a.index] = x

    def _enter(self, offset: int) -> None:
        """Enter the lane if the replay's builder mirrors the original's at `offset` (seq) right now:
        every open request on one side has its twin open on the other (seq + offset, one request
        per seq), as its aligned partner, with the same content so far and the same place in
        `closing`. Twin parts then change both alike, so only the original's builder is fed."""
        a, b = self.builders
        self.retry = _RETRY
        if len(a.by_seq) != len(b.by_seq) or len(a.closing) != len(b.closing) or a.released or b.released:
            return
        mirror: dict[int, _Exchange] = {}
        for seq, held in a.by_seq.items():
            other = b.by_seq.get(seq + offset)
            if other is None or len(held) != 1 or len(other) != 1 or not _mirrors(held[0], other[0]):
                return
            mirror[id(held[0])] = other[0]
        fed = b.fed - a.fed
        for (fa, xa), (fb, xb) in zip(a.closing, b.closing, strict=True):
            if fb - fa != fed or mirror.get(id(xa)) is not xb:
                return
        for held in a.by_seq.values():
            xa = held[0]
            xa.twin = _DROPPED_TWIN if xa.dropped else mirror[id(xa)].index
            xa.partner = None
        b.by_seq.clear()
        b.closing.clear()
        self.mirror, self.offset, self.fed_offset = True, offset, fed
        self.entered += 1

    def _leave(self) -> None:
        """Leave the lane: make the twins of the original's open exchanges in the replay's builder
        (paired, with the `closing` places they would have), as if it had been fed all along. Also
        those the original's builder released at this step (the lane left while draining it): the
        replay's releases them at its next message, as it would have."""
        a, b = self.builders
        offset, fed = self.offset, self.fed_offset
        made: dict[int, _Exchange] = {}
        for held in a.by_seq.values():
            for xa in held:
                if xa.twin != _NO_TWIN:
                    made[id(xa)] = self._make_twin(xa, offset)
        due = [self._make_twin(xa, offset) for xa in a.released if xa.twin != _NO_TWIN]
        b.closing = deque(
            [*((b.fed - _LATE, xb) for xb in due), *((fa + fed, made[id(xa)]) for fa, xa in a.closing)]
        )
        self.mirror = False
        self.retry = _RETRY

    def _make_twin(self, xa: _Exchange, offset: int) -> _Exchange:
        xb = _Exchange(
            xa.role,
            xa.direction,
            xa.method,
            xa.subject,
            xa.seq + offset,
            xa.view,
            xa.rpc_id,
            xa.response,
            xa.answered,
            list(xa.notes),
            xa.key,
            list(xa.interventions),
        )
        xb.side, xb.cursor, xb.raw = 1, xa.cursor, xa.raw
        if xa.twin == _DROPPED_TWIN:
            xb.dropped = True
        else:
            xb.index = xa.twin
            xa.partner, xb.partner = xb, xa
        xa.twin = _NO_TWIN
        self.builders[1].by_seq[xb.seq].append(xb)
        return xb

    def report(self) -> Iterator[ExchangeDiff]:
        """The results in the original's order; an extra after the exchange it followed (`_align`)."""
        missing: dict[int, ExchangeDiff] = {}
        extras_after: dict[int, list[ExchangeDiff]] = defaultdict(list)
        extras: list[_Exchange] = []
        for side, held in self.waiting.values():
            for ex in held:
                if side == 0:
                    missing[ex.index] = _only(ex, "missing")
                else:
                    extras.append(ex)
        if extras:
            extras.sort(key=lambda ex: ex.index)
            anchor, at = -1, 0
            for j, i in enumerate(self.partner_of_b):  # the last paired one before each extra
                if at < len(extras) and extras[at].index == j:
                    extras_after[anchor].append(_only(extras[at], "extra"))
                    at += 1
                elif i >= 0:
                    anchor = i
        self.waiting.clear()
        for x in (*missing.values(), *(y for ys in extras_after.values() for y in ys)):
            self.tally.add(x)
        at = 0  # the place in the whole report: an equal exchange only counted takes one too

        def placed(x: ExchangeDiff) -> ExchangeDiff:
            nonlocal at
            x.index, at = at, at + 1
            return x

        waiting = extras_after.pop(-1, [])
        for i in range(self.sizes[0]):
            if i in missing:
                yield placed(missing.pop(i))
                continue
            for x in waiting:
                yield placed(x)
            if i in self.results:
                yield placed(self.results.pop(i))
            else:
                at += 1  # paired, equal, counted and not listed (`keep_equal=False`)
            waiting = extras_after.pop(i, [])
        for x in waiting:
            yield placed(x)


def _twin_parts(pa: _Part, pb: _Part) -> bool:
    """Two messages a builder takes alike (seqs and their links shifted by one offset): the same
    body read as stored (no intervention, not a batch's item) and the same columns."""
    body = pa.body
    if body is None or pb.body != body:
        return False
    if pa.kind != pb.kind or pa.direction != pb.direction or pa.method != pb.method or pa.rpc_id != pb.rpc_id:
        return False
    offset = pb.seq - pa.seq
    for x, y in ((pa.answers_seq, pb.answers_seq), (pa.related_seq, pb.related_seq)):
        if (x is None) != (y is None) or (x is not None and y is not None and y - x != offset):
            return False
    return True


def _mirrors(xa: _Exchange, xb: _Exchange) -> bool:
    """Two open requests that are twins so far: paired with each other (or both dropped), the same
    content, so the same messages complete them alike and `_compare` would find nothing."""
    if xa.dropped or xb.dropped:
        paired = xa.dropped and xb.dropped and xa.partner is None and xb.partner is None
    else:
        paired = xa.partner is xb and xb.partner is xa
    return (
        paired
        and not xa.done
        and not xb.done
        and xa.round is None
        and xb.round is None
        and xa.role == xb.role
        and xa.direction == xb.direction
        and xa.method == xb.method
        and xa.rpc_id == xb.rpc_id
        and xa.answered == xb.answered
        and xa.subject == xb.subject
        and xa.key == xb.key
        and xa.interventions == xb.interventions
        and _identical(xa.view, xb.view)
        and _identical(xa.response, xb.response)
        and _same_notes(xa.notes, xb.notes)
    )


def _conversation_rounds(messages: Sequence[MessageRecord]) -> dict[int, tuple[int, int]]:
    """The seq of each request that is a round of a conversation (`protocol.conversations`): (n, of)."""
    rows = [
        {
            "seq": m.seq,
            "direction": m.direction,
            "channel": m.channel,
            "kind": m.kind,
            "method": m.method,
            "rpc_id": m.rpc_id,
            "answers_seq": m.answers_seq,
            "raw": m.raw,
            "meta": m.meta,
        }
        for m in messages
        if m.kind in ("request", "response", "error")
    ]
    out: dict[int, tuple[int, int]] = {}
    for conv in derive(rows).conversations:
        for rnd in conv.rounds:
            out[rnd.request_seq] = (rnd.n, len(conv.rounds))
    return out


_Prepared = tuple[_Note, PathCursor, str]  # a notification, its cursor, its multiset key


def _prepared_notes(ex: _Exchange, ignore: PathSet, cur: PathCursor) -> list[_Prepared]:
    """An exchange's notifications with their cursor and multiset key; wholly ignored ones dropped."""
    under = cur.child("notifications")
    out = []
    for n in ex.notes:
        nc = ignore.cursor(n.method, n.subject) | under.child(Item("", n.method))
        if not nc.hit:
            out.append((n, nc, _canon(_normal(n.view, nc))))
    return out


def _compare_notes(a: _Exchange, b: _Exchange, ignore: PathSet, cur: PathCursor) -> list[_Delta]:
    na, nb = _prepared_notes(a, ignore, cur), _prepared_notes(b, ignore, cur)
    out: list[_Delta] = []
    for method in sorted({n.method for n, _, _ in na} | {n.method for n, _, _ in nb}):
        la = [x for x in na if x[0].method == method]
        lb = [x for x in nb if x[0].method == method]
        only_a, only_b = _unmatched(la, lb), _unmatched(lb, la)
        head: tuple[Segment, ...] = ("notifications", Item("", method))
        for (xa, ca, _), (xb, _, _) in zip(only_a, only_b, strict=False):
            _walk(xa.view, xb.view, head, ca, out)
        if len(la) != len(lb):
            kind = "added" if not la else "removed" if not lb else "changed"
            out.append(_Delta(head, kind, len(la), len(lb)))
    return out


def _unmatched(mine: list[_Prepared], theirs: list[_Prepared]) -> list[_Prepared]:
    """The items of `mine` left over after the multiset intersection with `theirs` (in order)."""
    available = Counter(k for _, _, k in theirs)
    out = []
    for item in mine:
        if available[item[2]]:
            available[item[2]] -= 1
        else:
            out.append(item)
    return out


def _compare(a: _Exchange, b: _Exchange, ignore: PathSet) -> list[_Delta]:
    """The differences inside two paired exchanges: params (when aligned by method), response, notes."""
    cur = a.cursor if a.cursor is not None else ignore.cursor(a.method, a.subject)
    out: list[_Delta] = []
    if (a.params_compared or a.key != b.key) and not _identical(a.view, b.view):
        _walk(a.view, b.view, (), cur, out)
    if a.role == "request" and not _identical(a.response, b.response):
        _walk(a.response or {}, b.response or {}, (), cur, out)
    if (a.notes or b.notes) and not _same_notes(a.notes, b.notes):
        out.extend(_compare_notes(a, b, ignore, cur))
    return out


def _same_notes(a: list[_Note], b: list[_Note]) -> bool:
    """The same notifications in the same order: equal multisets, nothing for `_compare_notes`."""
    return len(a) == len(b) and all(
        x.method == y.method and _identical(x.view, y.view) for x, y in zip(a, b, strict=True)
    )


def _identical(a: Any, b: Any) -> bool:
    """The same JSON, byte for byte (types and key order included), so `_walk` would find nothing:
    most pairs of a long session are, and walking them was most of a 100k diff (issue 21). The same
    object (a body both sessions share, `_Parsed`) is identical without serialising it."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    try:
        return orjson.dumps(a) == orjson.dumps(b)
    except TypeError:  # an integer beyond 64 bits: walk it
        return False


def _align(xa: list[_Exchange], xb: list[_Exchange]) -> list[int | None]:
    """For each original exchange, the index of its replay partner (k-th with k-th of equal keys)."""
    queues: dict[str, deque[int]] = defaultdict(deque)
    for j, ex in enumerate(xb):
        queues[ex.key].append(j)
    return [queues[ex.key].popleft() if queues[ex.key] else None for ex in xa]


def _only(ex: _Exchange, status: str) -> ExchangeDiff:
    a, b = (ex.seq, None) if status == "missing" else (None, ex.seq)
    return ExchangeDiff(status, ex.method, ex.summary, a, b, [], ex.direction, [*ex.interventions])


def diff_sessions(
    original: Iterable[MessageRecord],
    replay: Iterable[MessageRecord],
    *,
    ignore: PathSet | None = None,
    strict_volatile: bool = False,
    keep_equal: bool = True,
    share: bool = True,
    lane: bool = True,
) -> SessionDiff:
    """Diff two sessions exchange by exchange (ignore: `DEFAULT_IGNORE` when None).

    Volatile changes are marked; they make the sessions differ only when `strict_volatile`.
    The sessions are read once, together (`_Stream`), so they may be streams of records as long
    as they can be read again (a list, `report.StoredMessages`): a session with a multi-round-trip
    conversation is read a second time for its rounds. `keep_equal=False` lists only the exchanges
    that differ or were intervened on (the counts still count every one): what the text report
    shows, in memory that does not grow with equal exchanges. `share=False`: each session parses its
    own bodies (the same report, slower: the reference the shared parse is tested against).
    `lane=False`: the replay's builder takes every message, also while it mirrors the original's
    (the reference the lane is tested against)."""
    ignore = ignore if ignore is not None else PathSet(DEFAULT_IGNORE)
    global runs
    runs += 1
    stream = _Stream(ignore, keep_equal, share=share, lane=lane)
    stream.run(original, replay)
    a_rounds, b_rounds = (b.input_required for b in stream.builders)
    if a_rounds or b_rounds:
        # A conversation's rounds pair round n with round n: known from the whole session only.
        rounds = (
            _conversation_rounds(list(original)) if a_rounds else {},
            _conversation_rounds(list(replay)) if b_rounds else {},
        )
        stream = _Stream(ignore, keep_equal, rounds, share, lane)
        stream.run(original, replay)
    exchanges = list(stream.report())
    listed = "all" if keep_equal else "differing"
    return SessionDiff(exchanges, list(ignore.patterns), strict_volatile, stream.tally.counts, listed)


# --- noise calibration --------------------------------------------------------------------------------


def _patterns_of(ex: _Exchange, deltas: list[_Delta], skip_volatile: bool = False) -> set[str]:
    """Patterns for the deltas of one exchange, scoped to it; keys that churn become `*`."""
    churn: dict[tuple[Segment, ...], set[str]] = defaultdict(set)
    for d in deltas:
        if d.kind != "changed" and d.segs and _churnable(d.segs[-1]):
            churn[d.segs[:-1]].add(d.kind)
    scope = format_scope(ex.method, ex.subject)
    out = set()
    for d in deltas:
        if skip_volatile and d.kind == "changed" and is_volatile(d.before, d.after):
            # A clock in a sentence: ignoring the whole string would hide a changed word. The
            # final diff marks such a value volatile instead, whatever the two runs said.
            continue
        segs = d.segs
        if d.kind != "changed" and segs and _churnable(segs[-1]) and len(churn[segs[:-1]]) == 2:
            segs = (*segs[:-1], ANY)
        out.add(f"{scope}:{format_path(segs)}")
    return out


def _churnable(seg: Segment) -> bool:
    """An object key or keyed element whose name itself may be volatile (not a notification method)."""
    return isinstance(seg, str) or (isinstance(seg, Item) and bool(seg.field))


def noise_patterns(
    run_a: Sequence[MessageRecord],
    run_b: Sequence[MessageRecord],
    *,
    ignore: PathSet | None = None,
    skip_volatile: bool = False,
) -> list[str]:
    """Calibration: patterns for every path that differs between two runs of the same traffic.

    Each pattern is scoped to its exchange (`tools/call[name=clock]:result.content[0].text`), so
    noise in one tool never hides changes in another. Unpaired exchanges are paired by method
    and subject to find what differs; one with no counterpart is ignored whole (`method:`).
    Patterns already in `ignore` are not repeated; the result is sorted. `skip_volatile`: values
    that differ only in clock-like parts give no pattern (the diff then marks them volatile
    rather than hiding a word that might change next to the clock).
    """
    ignore = ignore if ignore is not None else PathSet(DEFAULT_IGNORE)
    xa, xb = _exchanges(run_a, ignore), _exchanges(run_b, ignore)
    match = _align(xa, xb)
    found: set[str] = set()
    loose_b: dict[tuple[Any, ...], deque[_Exchange]] = defaultdict(deque)
    paired_b = {j for j in match if j is not None}
    for j, ex in enumerate(xb):
        if j not in paired_b:
            loose_b[(ex.direction, ex.role, ex.method, ex.subject)].append(ex)
    for i, a in enumerate(xa):
        partner = match[i]
        if partner is not None:
            found |= _patterns_of(a, _compare(a, xb[partner], ignore), skip_volatile)
            continue
        queue = loose_b[(a.direction, a.role, a.method, a.subject)]
        if queue:
            found |= _patterns_of(a, _compare(a, queue.popleft(), ignore), skip_volatile)
        else:
            found.add(f"{format_scope(a.method, a.subject)}:")
    for queue in loose_b.values():
        found |= {f"{format_scope(ex.method, ex.subject)}:" for ex in queue}
    known = set(ignore.patterns)
    return sorted(found - known)


# --- text report --------------------------------------------------------------------------------------

_MARK = {"equal": "=", "changed": "~", "missing": "-", "extra": "+"}
_ARROW = {"c2s": "->", "s2c": "<-"}


def _value_text(value: Any, width: int = 72) -> str:
    text = _canon(value) if not isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def _first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _window(text: str, at: int, width: int) -> str:
    """`width` characters of `text` around index `at`, with `...` where it was cut."""
    if len(text) <= width:
        return text
    start = max(0, min(at - width // 3, len(text) - width))
    end = start + width
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    body = text[start + len(head) : end - len(tail)]
    return head + body + tail


def _pair_text(before: Any, after: Any, width: int = 72) -> tuple[str, str]:
    """Both sides of a change, cut around their first difference so the two never print the same."""
    a, b = _value_text(before, 10**9), _value_text(after, 10**9)
    if len(a) <= width and len(b) <= width:
        return a, b
    # Both windows start at the same place, a third of a width before the first differing character.
    at = _first_difference(a, b)
    return _window(a, at, width), _window(b, at, width)


def _change_text(c: Change) -> str:
    if c.path.startswith("notifications[") and c.path.endswith("]") and isinstance(c.before, int):
        return f"{c.path}: {c.before} => {c.after} received"  # a count, whatever the kind
    if c.kind == "added":
        return f"{c.path}: added {_value_text(c.after)}"
    if c.kind == "removed":
        return f"{c.path}: removed (was {_value_text(c.before)})"
    deep = [isinstance(v, str) and v.startswith(DEEP_NOTE) for v in (c.before, c.after)]
    if any(deep):  # a subtree past the parse depth limit (`json_depth`): compared as its text
        a, b = (
            v[len(DEEP_NOTE) :] if d else _value_text(v, 10**9)
            for v, d in zip((c.before, c.after), deep, strict=True)
        )
        at = _first_difference(a, b)
        return f"{c.path}: {DEEP_NOTE}{_window(a, at, 72)} => {_window(b, at, 72)}"
    before, after = _pair_text(c.before, c.after)
    return f"{c.path}: {before} => {after}" + ("  (volatile)" if c.volatile else "")


def _seqs_text(x: ExchangeDiff) -> str:
    if x.original_seq is not None and x.replay_seq is not None:
        return f"#{x.original_seq} / #{x.replay_seq}"
    if x.original_seq is not None:
        return f"#{x.original_seq}, not in replay"
    return f"#{x.replay_seq}, only in replay"


def _ignored_text(ignored: Sequence[str], verbose: bool) -> str:
    if verbose:
        return f"ignored paths ({len(ignored)}): {', '.join(ignored) or 'none'}"
    defaults = set(DEFAULT_IGNORE)
    own = [p for p in ignored if p not in defaults]
    n = len(ignored) - len(own)
    text = f"ignored paths: {n} default ignores, --verbose to list"
    return text + (f"; also: {', '.join(own)}" if own else "")


def render_text(diff: SessionDiff, *, show_equal: bool = False, verbose: bool = False) -> str:
    """A readable plain-text report: the counts, then each exchange that differs and its paths.

    The default ignore patterns are counted, not listed, unless `verbose`.
    """
    c = diff.counts()
    total = sum(c[s] for s in _STATUSES)
    lines = [
        f"{total} exchange{'' if total == 1 else 's'}: {c['equal']} equal, {c['changed']} changed, "
        f"{c['missing']} missing, {c['extra']} extra"
    ]
    if c["volatile"]:
        how = "counted as changed (--strict-volatile)" if diff.strict_volatile else "not counted as changed"
        lines.append(f"{c['volatile']} changed only in volatile values (times, ids, counters): {how}")
    touched = sum(bool(x.interventions) for x in diff.exchanges)
    if touched:
        lines.append(
            f"{touched} {'exchange was' if touched == 1 else 'exchanges were'} intervened on when recorded:"
            " compared as the server"
            " received and sent them, not as the client saw them"
        )
    for x in diff.exchanges:
        if x.status == "equal" and not show_equal and not x.interventions:
            continue
        arrow = _ARROW.get(x.direction, "  ")
        status = "volatile" if x.volatile_only else x.status
        mark = "?" if x.volatile_only else _MARK[x.status]
        lines.append(f"{mark} {status:<7} {arrow} {x.summary}  ({_seqs_text(x)})")
        lines.extend(f"      intervened: {text} (not the server)" for text in x.interventions)
        lines.extend(f"      {_change_text(ch)}" for ch in x.changes)
    lines.append(_ignored_text(diff.ignored, verbose))
    lines.append("behaviour changed" if diff.changed else "behaviour unchanged")
    # Summaries and paths hold recorded names: each line with its control characters shown.
    return "\n".join(map(visible, lines))
