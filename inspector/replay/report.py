"""`replay` and `diff` for the CLI (and the API): run, compare, print, choose the exit status."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import anyio
import orjson
from sqlalchemy import (
    Connection,
    Dialect,
    Engine,
    Integer,
    Text,
    and_,
    bindparam,
    case,
    cast,
    or_,
    select,
    type_coerce,
)
from sqlalchemy.sql.compiler import SQLCompiler

from inspector.auth.connect import AuthRequest
from inspector.capture.pause import refuse_metadata_only
from inspector.capture.redact import missing_secrets_message
from inspector.errors import InspectorError
from inspector.replay.diff import (
    DEFAULT_IGNORE,
    PathSet,
    SessionDiff,
    diff_sessions,
    noise_patterns,
    render_text,
)
from inspector.replay.driver import ReplayOutcome, run_replay
from inspector.replay.matching import MatchPolicy
from inspector.store import bodies, get_session
from inspector.store.models import Message, Session
from inspector.terminal_text import visible, visible_json

__all__ = [
    "EXIT_CHANGED",
    "EXIT_FAILED",
    "EXIT_SAME",
    "StoredMessages",
    "TwinRows",
    "Verdict",
    "WireRecord",
    "diff_recorded",
    "replay_and_diff",
    "replay_verdict",
    "wire",
]

EXIT_SAME, EXIT_CHANGED, EXIT_FAILED = 0, 1, 2


class WireRecord(NamedTuple):
    """The columns the diff reads of one stored message (`store.models.MessageRecord`). A named
    tuple: a frozen dataclass set each field through `object.__setattr__`, a tenth of a streamed
    diff's time (issue 21)."""

    seq: int
    direction: str
    channel: str
    raw: bytes
    kind: str
    method: str | None
    rpc_id: str | None
    answers_seq: int | None
    meta: Any


_m = Message.__table__  # type: ignore[attr-defined]
# `meta` as its text, parsed with orjson below (SQLAlchemy's JSON type runs the json module on each
# row: a sixth of a streamed diff's time); PostgreSQL's driver hands over the parsed value itself.
_WIRE_COLUMNS = [
    type_coerce(_m.c[name], Text) if name == "meta" else _m.c[name] for name in WireRecord._fields
]


def _meta(value: Any) -> Any:
    if isinstance(value, str | bytes):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:  # an integer beyond 64 bits
            return json.loads(value)
    return value


class StoredMessages:
    """A stored session's message records as the diff reads them, streamed: each pass reads keyset
    pages of `page` rows (one short connection each), so only a page is held at a time (issue 21).
    Iterable more than once (the diff reads a session again when it has conversation rounds)."""

    def __init__(self, engine: Engine, session_id: int, *, page: int = 2000) -> None:
        self.engine, self.session_id, self.page = engine, session_id, page

    def __iter__(self) -> Iterator[WireRecord]:
        after = -1
        new, fix = tuple.__new__, _fixed
        while True:
            with self.engine.connect() as conn:
                rows = _page(conn, _statement(conn.dialect, self.page), self.session_id, after)
                large = [r[9] for r in rows if r[9]]
                whole = bodies.load(conn, large) if large else {}
            # A record made as it is read, not a page of them at once (`_records`): the collector
            # never untracks a `WireRecord` (a tuple subclass), so 2,000 held at once were promoted
            # through its generations and brought full collections; made one by one, each dies
            # young (diff28: a 100k diff's CPU median 1.40 vs 1.73 s, same process, 10 rounds).
            for row in rows:
                if row[9] is None and row[8] is None and type(row[3]) is bytes:
                    yield new(WireRecord, row[:9])
                else:
                    yield fix(row, whole)
            if len(rows) < self.page:
                return
            after = rows[-1][0]

    def beside(
        self, original: object, hint: Callable[[], int | None], known: Callable[[int], Any]
    ) -> TwinRows | None:
        """This session (a replay) read beside `original` (its recording, in the same store) for
        the diff's record lane: see `TwinRows`. None when `original` is not a stored session here."""
        if not isinstance(original, StoredMessages) or original.engine is not self.engine:
            return None
        return TwinRows(self, original.session_id, hint, known)


class TwinRows:
    """A replay's records read beside its original's (the diff's record lane, `diff._Stream._fast`,
    issue 21): a page read while the lane has an offset (`hint()`) joins each replay row to the
    original's row at `seq - offset` and, where the two rows are twins in every column the diff
    reads (the same bytes, kind, channel, direction, method, id, `answers_seq` at the offset, no
    `meta`, no blob), fetches only the replay's seq: a marker. `same(seq, offset)` takes the next
    row when it is such a marker (the lane then reads only the original's record); `__next__`
    always gives a whole record: a marker becomes the original's record at the offset when
    `known(seq)` has it (the diff's last original record), else the page is read again from there
    without the join. The SQL says "twins" only where the record comparison would (`=` on the same
    column types, NULLs equal); any other row is read whole, as `StoredMessages` reads it."""

    def __init__(
        self,
        stored: StoredMessages,
        original_id: int,
        hint: Callable[[], int | None],
        known: Callable[[int], Any],
    ) -> None:
        self.stored, self.original_id, self.hint, self.known = stored, original_id, hint, known
        self.rows: list[Any] = []  # records, and markers (a replay seq: its twin is at seq - k)
        self.i = 0
        self.k = 0  # the offset the page's rows were joined at
        self.after = -1
        self.done = False

    def __iter__(self) -> TwinRows:
        return self

    def __next__(self) -> WireRecord:
        if self.i >= len(self.rows) and not self._fill():
            raise StopIteration
        row = self.rows[self.i]
        self.i += 1
        if type(row) is not int:
            return row
        k = self.k
        twin = self.known(row - k)
        if twin is not None and twin.seq == row - k:
            return _shifted(twin, k)
        if not self._fill(row - 1, join=False):  # read whole from here
            raise StopIteration
        self.i = 1
        return self.rows[0]

    def same(self, seq: int, offset: int) -> bool:
        """The next row is a marker for `seq` joined at `offset`: taken."""
        i = self.i
        if i >= len(self.rows):
            if not self._fill():
                return False
            i = 0
        row = self.rows[i]
        if row.__class__ is int and row == seq and self.k == offset:
            self.i = i + 1
            return True
        return False

    def unread(self) -> None:
        """Put back the marker `same` took last."""
        self.i -= 1

    def _fill(self, after: int | None = None, join: bool = True) -> bool:
        if after is None:
            if self.done:
                return False
            after = self.after
        k = self.hint() if join else None
        stored = self.stored
        with stored.engine.connect() as conn:
            if k is None:
                rows = _page(conn, _statement(conn.dialect, stored.page), stored.session_id, after)
                records = _records(conn, rows)
            else:
                compiled = _joined(conn.dialect, stored.page)
                rows = _page(conn, compiled, stored.session_id, after, self.original_id, k)
                records = _records(conn, rows, marked=True)
        self.rows, self.i, self.k = records, 0, k or 0
        self.done = len(rows) < stored.page
        if rows:
            self.after = rows[-1][0]
        return bool(rows)


def _records(conn: Connection, rows: list[Any], marked: bool = False) -> list[Any]:
    """A page's records: the common row (no blob, no meta, bytes already) made in C (`tuple.__new__`,
    what `_make` does; a per-row generator step was a fifth of reading); `marked` (`TwinRows`' joined
    page): a row whose twin was found is its seq alone."""
    large = [r[9] for r in rows if r[9]]
    whole = bodies.load(conn, large) if large else {}
    new, fix = tuple.__new__, _fixed
    if marked:
        return [
            row[0]
            if row[10] is not None
            else new(WireRecord, row[:9])
            if row[9] is None and row[8] is None and type(row[3]) is bytes
            else fix(row, whole)
            for row in rows
        ]
    return [
        new(WireRecord, row[:9])
        if row[9] is None and row[8] is None and type(row[3]) is bytes
        else fix(row, whole)
        for row in rows
    ]


def _shifted(r: WireRecord, k: int) -> WireRecord:
    """The replay's record of a marker: its twin's columns, seq and `answers_seq` at the offset (a
    `meta` only at offset 0: the same value)."""
    x = r.answers_seq
    return WireRecord(
        r.seq + k,
        r.direction,
        r.channel,
        r.raw,
        r.kind,
        r.method,
        r.rpc_id,
        None if x is None else x + k,
        r.meta,
    )


def _fixed(row: Any, whole: dict[str, bytes]) -> WireRecord:
    """A row with its blob's bytes, its `meta` parsed, its `raw` as bytes."""
    sha, meta, raw = row[9], row[8], row[3]
    raw = whole[sha] if sha else raw if isinstance(raw, bytes) else bytes(raw)
    return WireRecord._make((*row[:3], raw, *row[4:8], _meta(meta)))


def _page(conn: Connection, compiled: SQLCompiler, session_id: int, after: int, *joined: int) -> list[Any]:
    """One keyset page of the wire columns as the driver's own tuples: SQLAlchemy's per-row result
    processing was more than half of reading (issue 21). The statement is SQLAlchemy's, compiled
    once per dialect and page size (`_statement`, `_joined`: a compile per page was ~6% of a
    streamed diff); `joined`: the original's session id and the offset (`_joined`)."""
    values: dict[str, int] = {"session_id": session_id, "after": after}
    if joined:
        values["original"], values["offset"] = joined
    params = compiled.construct_params(values)
    args: Any = tuple(params[k] for k in compiled.positiontup or ()) if compiled.positional else params
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(compiled.string, args)
        return list(cursor.fetchall())
    finally:
        cursor.close()


@functools.lru_cache(maxsize=16)
def _statement(dialect: Dialect, limit: int) -> SQLCompiler:
    stmt = (
        select(*_WIRE_COLUMNS, _m.c.body_sha256)
        .where(_m.c.session_id == bindparam("session_id"), _m.c.seq > bindparam("after"))
        .order_by(_m.c.seq)
        .limit(limit)
    )
    return stmt.compile(dialect=dialect)


@functools.lru_cache(maxsize=16)
def _joined(dialect: Dialect, limit: int) -> SQLCompiler:
    """`_statement`'s page of the replay joined to the original's rows at the offset: a row whose
    twin is there (`TwinRows`) has only its seq and the twin's (the last column), the others all
    their columns."""
    b, a = _m.alias("b"), _m.alias("a")
    offset = bindparam("offset", type_=Integer)
    twin = and_(
        a.c.session_id == bindparam("original", type_=Integer),
        a.c.seq == b.c.seq - offset,
        a.c.raw == b.c.raw,
        a.c.kind == b.c.kind,
        a.c.channel == b.c.channel,
        a.c.direction == b.c.direction,
        a.c.method.is_not_distinct_from(b.c.method),
        a.c.rpc_id.is_not_distinct_from(b.c.rpc_id),
        (a.c.answers_seq + offset).is_not_distinct_from(b.c.answers_seq),
        # No meta on either side, or (at offset 0 only: a link in it would be shifted) the same
        # text, which parses to the same value.
        or_(
            and_(a.c.meta.is_(None), b.c.meta.is_(None)),
            and_(offset == 0, cast(a.c.meta, Text) == cast(b.c.meta, Text)),
        ),
        a.c.body_sha256.is_(None),
        b.c.body_sha256.is_(None),
    )
    whole = [type_coerce(b.c.meta, Text) if name == "meta" else b.c[name] for name in WireRecord._fields[1:]]
    stmt = (
        select(b.c.seq, *(case((a.c.seq.is_(None), c)) for c in [*whole, b.c.body_sha256]), a.c.seq)
        .select_from(b.outerjoin(a, twin))
        .where(b.c.session_id == bindparam("session_id"), b.c.seq > bindparam("after"))
        .order_by(b.c.seq)
        .limit(limit)
    )
    return stmt.compile(dialect=dialect)


def wire(engine: Engine, session_id: int, *, page: int = 5000) -> list[WireRecord]:
    """A session's message records, the diff's input: only the columns it reads, in keyset pages of
    plain tuples (no ORM objects, no identity map; issue 21: a third of a 100k diff's time and most
    of its memory went to `Message` instances). `StoredMessages` streams them instead."""
    return list(StoredMessages(engine, session_id, page=page))


def _print(
    diff: SessionDiff,
    json_out: bool,
    extra: dict | None = None,
    verbose: bool = False,
    show_equal: bool = False,
) -> None:
    if json_out:
        doc = {**diff.to_json(), **(extra or {})}
        sys.stdout.write(visible_json(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()) + "\n")
    else:
        sys.stdout.write(render_text(diff, verbose=verbose, show_equal=show_equal) + "\n")


def _paths(patterns: Sequence[str]) -> PathSet:
    try:
        return PathSet(patterns)
    except ValueError as exc:
        raise InspectorError(f"bad --ignore pattern: {exc}") from None


def diff_recorded(
    engine: Engine,
    ref_a: str,
    ref_b: str,
    *,
    ignore: Sequence[str] = (),
    json_out: bool = False,
    verbose: bool = False,
    strict_volatile: bool = False,
    all_exchanges: bool = False,
) -> int:
    """`mcp-inspect diff`: the counts and the exchanges that differ (or were intervened on), each
    with its `index` in the whole report; `all_exchanges` (`--all`) lists the equal ones too. Only
    what differs is held, so a long session that mostly agrees diffs in flat memory."""
    a, b = get_session(engine, ref_a), get_session(engine, ref_b)
    assert a.id is not None and b.id is not None
    result = diff_sessions(
        StoredMessages(engine, a.id),
        StoredMessages(engine, b.id),
        ignore=_paths([*DEFAULT_IGNORE, *ignore]),
        strict_volatile=strict_volatile,
        keep_equal=all_exchanges,
    )
    _print(result, json_out, {"a": a.id, "b": b.id}, verbose, show_equal=all_exchanges)
    return EXIT_CHANGED if result.changed else EXIT_SAME


def _failed(outcome: ReplayOutcome) -> str | None:
    if outcome.error:
        return outcome.error
    if outcome.sent == 0:
        return "the recording has no client messages to replay"
    return None


@dataclass
class Verdict:
    """What a replay found: `problem` when it could not run, else the diff against the recording."""

    original: int
    replay: int
    problem: str | None = None
    diff: SessionDiff | None = None
    noise: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    unmatched_server_requests: list[str] = field(default_factory=list)
    missing_secrets: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        if self.problem is not None or self.diff is None:
            return EXIT_FAILED
        return EXIT_CHANGED if self.diff.changed or self.timeouts else EXIT_SAME


def replay_verdict(
    engine: Engine,
    original: Session,
    target: Sequence[str] | str,
    *,
    calibrate: bool = False,
    ignore: Sequence[str] = (),
    match: str = "strict",
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    timeout: float = 30.0,
    strict_volatile: bool = False,
    auth: AuthRequest | None = None,
    say: Callable[[str], None] = lambda text: None,
) -> Verdict:
    """Replay `original` against `target` (twice with `calibrate`) and diff it; prints nothing
    (`say` gets progress lines). Bad patterns or match modes raise InspectorError first."""
    assert original.id is not None
    refuse_metadata_only(original, "replayed")
    _paths([*DEFAULT_IGNORE, *ignore])  # a bad pattern is refused before anything runs
    try:
        policy = MatchPolicy(match)
    except ValueError as exc:
        raise InspectorError(str(exc)) from None
    runs = 2 if calibrate else 1
    outcomes: list[ReplayOutcome] = []
    for i in range(runs):
        say(f"replaying session {original.id} ({i + 1}/{runs}) ...")
        outcome = anyio.run(
            lambda: run_replay(
                engine,
                original,
                target,
                timeout=timeout,
                policy=policy,
                headers=headers,
                secrets=secrets,
                auth=auth,
            )
        )
        problem = _failed(outcome)
        if problem:
            return Verdict(
                original.id, outcome.session_id, problem=problem, missing_secrets=outcome.missing_secrets
            )
        outcomes.append(outcome)
    patterns = [*DEFAULT_IGNORE, *ignore]
    noise: list[str] = []
    if calibrate:
        noise = noise_patterns(
            wire(engine, outcomes[0].session_id),
            wire(engine, outcomes[1].session_id),
            ignore=PathSet(patterns),
            skip_volatile=not strict_volatile,
        )
        patterns += noise
    replayed = outcomes[-1]
    result = diff_sessions(
        StoredMessages(engine, original.id),
        StoredMessages(engine, replayed.session_id),
        ignore=PathSet(patterns),
        strict_volatile=strict_volatile,
    )
    return Verdict(
        original.id,
        replayed.session_id,
        diff=result,
        noise=noise,
        timeouts=replayed.timeouts,
        unmatched_server_requests=replayed.unmatched_server_requests,
        missing_secrets=outcomes[0].missing_secrets,
    )


def replay_and_diff(
    engine: Engine,
    ref: str,
    target: Sequence[str] | str,
    *,
    calibrate: bool = False,
    ignore: Sequence[str] = (),
    match: str = "strict",
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    timeout: float = 30.0,
    json_out: bool = False,
    verbose: bool = False,
    strict_volatile: bool = False,
    auth: AuthRequest | None = None,
) -> int:
    """`mcp-inspect replay`: run `replay_verdict`, print the report, return the exit status."""
    original = get_session(engine, ref)
    verdict = replay_verdict(
        engine,
        original,
        target,
        calibrate=calibrate,
        ignore=ignore,
        match=match,
        headers=headers,
        secrets=secrets,
        timeout=timeout,
        strict_volatile=strict_volatile,
        auth=auth,
        say=lambda text: print(f"[mcp-inspect] {visible(text)}", file=sys.stderr, flush=True),
    )
    if verdict.missing_secrets:
        print(f"[mcp-inspect] warning: {missing_secrets_message(verdict.missing_secrets)}", file=sys.stderr)
    if verdict.problem is not None or verdict.diff is None:
        print(f"[mcp-inspect] the replay could not run: {visible(verdict.problem)}", file=sys.stderr)
        print(
            f"[mcp-inspect] replay of session {verdict.original} recorded as session {verdict.replay}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    extra = {
        "original": verdict.original,
        "replay": verdict.replay,
        "calibration_noise": verdict.noise,
        "timeouts": verdict.timeouts,
        "unmatched_server_requests": verdict.unmatched_server_requests,
    }
    _print(verdict.diff, json_out, extra, verbose)
    if not json_out:
        if verdict.noise:
            print(
                f"calibration: ignored {len(verdict.noise)} noisy path(s): {visible(', '.join(verdict.noise))}",
                file=sys.stderr,
            )
        print(f"[mcp-inspect] replay recorded as session {verdict.replay}", file=sys.stderr)
    return verdict.exit_status
