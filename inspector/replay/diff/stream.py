"""The streamed diff of two sessions (`diff_sessions`): both read together, exchanges aligned as
they begin and compared as they complete, in memory that does not grow with equal exchanges."""

from __future__ import annotations

from array import array
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from inspector.replay.diff.compare import _compare, _health, _only
from inspector.replay.diff.exchanges import (
    _HANDSHAKE,
    _Builder,
    _conversation_rounds,
    _response_view,
    _RpcExchange,
    _subject,
    _summary,
    params_view,
)
from inspector.replay.diff.ignore import DEFAULT_IGNORE
from inspector.replay.diff.lane import (
    _DROPPED_TWIN,
    _NO_TWIN,
    _NOT_PLAIN,
    _LaneRequest,
    _mirrors,
    _plain_link,
    _pull,
    _twin_parts,
)
from inspector.replay.diff.model import _STATUSES, ExchangeDiff, SessionDiff
from inspector.replay.diff.records import _SKIPPED_KINDS, _TWIN, _expand, _Parsed, _payload, _RpcMessage
from inspector.replay.diff.tree import _canon, _normal
from inspector.replay.paths import Item, PathCursor, PathSet

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord


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
        self.closing: deque[tuple[int, _RpcExchange]] = deque()
        self.released: list[_RpcExchange] = []
        self.input_required = False  # a conversation may open: `_conversation_rounds` is needed

    def feed(self, m: _RpcMessage) -> None:
        self.fed += 1
        super().feed(m)
        while self.closing and self.fed - self.closing[0][0] > _LATE:
            self._release(self.closing.popleft()[1])

    def _response(self, m: _RpcMessage, payload: dict[str, Any]) -> _RpcExchange | None:
        ex = super()._response(m, payload)
        if ex is not None:
            self.closing.append((self.fed, ex))
        return ex

    def _release(self, ex: _RpcExchange) -> None:
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
    ) -> None:
        self.ignore = ignore
        self.keep_equal = keep_equal
        self.rounds = rounds
        self.builders = (_StreamBuilder(), _StreamBuilder())
        self.sizes = [0, 0]
        self.waiting: dict[str, tuple[int, deque[_RpcExchange]]] = {}  # key -> (side, unmatched)
        self.partner_of_b = array("q")
        self.results: dict[int, ExchangeDiff] = {}
        self.tally = _Tally()
        self.cursors: dict[tuple[str, Item | None], PathCursor] = {}
        # Keys of the last exchanges begun, by their stored bytes: the other session's identical
        # message takes its key from here instead of normalising its params again. Lockstep reading
        # finds it within a few messages; what finds no twin is let go past _MEMO entries.
        self.memo: dict[tuple[str, str, str, bytes], tuple[int, str]] = {}
        # Bodies parsed once for both sessions (`_expand`).
        self.shared: dict[bytes, _Parsed] = {}
        # The lane: while the replay mirrors the original (`_enter`), its builder is not fed, and
        # the original's exchanges stand for their twins (`_RpcExchange.twin`) until `_leave` makes
        # them. Not with conversation rounds (a round is looked up by each session's own seq).
        self.lane = not (rounds[0] or rounds[1])
        self.mirror = False
        self.offset = 0  # replay seq - original seq of twins, in the lane
        self.fed_offset = 0  # the replay builder's `fed` - the original's, in the lane
        self.retry = 0
        self.entered = 0  # times the lane was entered (a figure for tests and profiles)
        self.taken = 0  # pairs of records the record lane took (`_fast`; the same)
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
        from both readers: no parse, no `_RpcMessage`, no `_RpcExchange`. A request is a `_LaneRequest` (its
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
        lites: dict[int, _LaneRequest] = {}
        closing: deque[tuple[int, _LaneRequest]] = deque()
        sizes, partner_of_b, plain, waiting = self.sizes, self.partner_of_b, self._plain, self.waiting
        late, taken = _LATE, 0
        # With `keep_equal` every equal exchange is listed: the record is parsed for its summary
        # when the lite is counted (`_listed`), as `_twin_ready` lists it.
        keep = self.keep_equal
        while True:
            ra = next(ita, None)
            if ra is None:
                rb = next(itb, None)
                break
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
            if ra.meta or rb.meta:  # read as stored, the links at the offset
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
                lites[ra.seq] = _LaneRequest(ra, sizes[0], sizes[1], ra.direction, key)
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
        if ra is not None:
            backs[0].append(ra)
        if rb is not None:
            backs[1].append(rb)
        self._materialise(lites, closing)

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

    def _materialise(self, lites: dict[int, _LaneRequest], closing: deque[tuple[int, _LaneRequest]]) -> None:
        """The record lane's open requests as the original builder's exchanges (each as the lane's
        `_begin` leaves it: its cursor, index and twin), answered and noted from their records, and
        the answered ones in `closing` after the builder's own (answered earlier)."""
        if not lites:
            return
        a, shared = self.builders[0], self.shared
        made: dict[int, _RpcExchange] = {}
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

    def _begin(self, side: int, ex: _RpcExchange) -> None:
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

    def _ready(self, ex: _RpcExchange) -> None:
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
        if changes:
            x.health = _health(a, b)
        self.tally.add(x)
        if changes or self.keep_equal or x.interventions:
            self.results[a.index] = x

    def _twin_ready(self, a: _RpcExchange) -> None:
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
        mirror: dict[int, _RpcExchange] = {}
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
        made: dict[int, _RpcExchange] = {}
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

    def _make_twin(self, xa: _RpcExchange, offset: int) -> _RpcExchange:
        xb = _RpcExchange(
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
        extras: list[_RpcExchange] = []
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


def diff_sessions(
    original: Iterable[MessageRecord],
    replay: Iterable[MessageRecord],
    *,
    ignore: PathSet | None = None,
    strict_volatile: bool = False,
    keep_equal: bool = True,
) -> SessionDiff:
    """Diff two sessions exchange by exchange (ignore: `DEFAULT_IGNORE` when None).

    Volatile changes are marked; they make the sessions differ only when `strict_volatile`.
    The sessions are read once, together (`_Stream`), so they may be streams of records as long
    as they can be read again (a list, `store.wire.StoredMessages`): a session with a multi-round-trip
    conversation is read a second time for its rounds. `keep_equal=False` lists only the exchanges
    that differ or were intervened on (the counts still count every one): what the text report
    shows, in memory that does not grow with equal exchanges."""
    ignore = ignore if ignore is not None else PathSet(DEFAULT_IGNORE)
    stream = _Stream(ignore, keep_equal)
    stream.run(original, replay)
    a_rounds, b_rounds = (b.input_required for b in stream.builders)
    if a_rounds or b_rounds:
        # A conversation's rounds pair round n with round n: known from the whole session only.
        rounds = (
            _conversation_rounds(list(original)) if a_rounds else {},
            _conversation_rounds(list(replay)) if b_rounds else {},
        )
        stream = _Stream(ignore, keep_equal, rounds)
        stream.run(original, replay)
    exchanges = list(stream.report())
    listed = "all" if keep_equal else "differing"
    return SessionDiff(exchanges, list(ignore.patterns), strict_volatile, stream.tally.counts, listed)
