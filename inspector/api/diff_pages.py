"""`GET /api/diff` read page by page (issue 21): the computed report of two sessions is kept, so the
next page is a slice of it and not a second diff of both sessions.

A report is kept per (a, b, extra ignore patterns, strict_volatile, equal) with the state of both
sessions it was computed from (message count, status, end time: what changes while a session is
recorded, `store.writer`); a request that finds either session changed diffs them again. At most
`KEPT` reports and `HELD` listed exchanges are kept (the oldest used go first; a report listing
more than `HELD` is not kept), so memory is bounded whatever is asked. Two requests for the same
report wait for one diff (a lock per key, dropped when its last request is done, failed or not)."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.replay.compared import runs_compared
from inspector.replay.diff import DEFAULT_IGNORE, PathSet, SessionDiff, diff_sessions
from inspector.replay.paths import Item, parse_path
from inspector.store.models import Session
from inspector.store.wire import StoredMessages

__all__ = ["HELD", "KEPT", "DiffReports", "ignore_set", "page_of"]

KEPT = 4  # reports
HELD = 120_000  # listed exchanges over all kept reports (an equal=true 100k pair lists ~46k)

_Key = tuple[int, int, tuple[str, ...], bool, bool]
_Stamp = tuple[tuple[int, str, int | None], tuple[int, str, int | None]]


def _stamp(s: Session) -> tuple[int, str, int | None]:
    return (s.message_count, s.status, s.ended_ns)


def ignore_set(extra: Sequence[str]) -> PathSet:
    """`DEFAULT_IGNORE` plus `extra`; a bad pattern raises `InspectorError` naming it."""
    for pattern in extra:
        try:
            PathSet([pattern])
        except ValueError as exc:
            raise InspectorError(f"bad ignore pattern {pattern!r}: {exc}") from None
    return PathSet([*DEFAULT_IGNORE, *extra])


def path_segments(path: str) -> list[Any] | None:
    """A change's path as the JSON steps the UI follows into a side's `view` (`ChangeOut.segments`):
    a key (string), an index (number) or an element picked by a key field (`{field, value}`)."""
    try:
        segments = parse_path(path)
    except ValueError:
        return None
    return [{"field": s.field, "value": s.value} if isinstance(s, Item) else s for s in segments]


def page_of(
    result: SessionDiff,
    a: int,
    b: int,
    start: int,
    limit: int | None,
    summary: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The API's `DiffReport` dict of one page: the listed exchanges from index `start`, at most
    `limit`, and `next_cursor` (the index to start the next page at) when more are listed; the
    runs-compared `summary` (`replay.compared.runs_compared`) on the first page."""
    listed = result.exchanges
    first = bisect_left(listed, start, key=lambda x: x.index) if start else 0
    end = len(listed) if limit is None else min(len(listed), first + limit)
    doc = result.to_json_page(first, end)
    for exchange in doc["exchanges"]:
        for change in exchange["changes"]:
            change["segments"] = path_segments(change["path"])
    doc["next_cursor"] = str(listed[end].index) if end < len(listed) else None
    return {"a": a, "b": b, "summary": summary if start == 0 else None, **doc}


class _Kept:
    __slots__ = ("result", "stamp", "summary")

    def __init__(self, stamp: _Stamp, result: SessionDiff) -> None:
        self.stamp, self.result = stamp, result
        self.summary: dict[str, Any] | None = None  # made by the first request for the first page


class DiffReports:
    """The reports `/api/diff` computed, bounded (see the module's docstring). Thread-safe: pages are
    served from worker threads."""

    def __init__(self, kept: int = KEPT, held: int = HELD) -> None:
        self.kept, self.held = kept, held
        self._reports: OrderedDict[_Key, _Kept] = OrderedDict()
        self._lock = threading.Lock()
        # Per report being asked for: its lock and how many requests hold or wait for it.
        self._computing: dict[_Key, list[Any]] = {}
        self.computed = 0  # diffs run (the cache's misses, as `functools.lru_cache` counts them)

    def page(
        self,
        engine: Engine,
        a: Session,
        b: Session,
        extra_ignore: Sequence[str],
        strict_volatile: bool,
        *,
        equal: bool,
        start: int,
        limit: int | None,
    ) -> dict[str, Any]:
        """One page of the diff of `a` and `b` (blocking: call off the loop)."""
        assert a.id is not None and b.id is not None
        key: _Key = (a.id, b.id, tuple(extra_ignore), strict_volatile, equal)
        stamp: _Stamp = (_stamp(a), _stamp(b))
        with self._lock:
            entry = self._computing.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:  # one diff for requests that ask at once
                kept = self._get(key, stamp)
                if kept is None:
                    result = diff_sessions(
                        StoredMessages(engine, a.id),
                        StoredMessages(engine, b.id),
                        ignore=ignore_set(extra_ignore),
                        strict_volatile=strict_volatile,
                        keep_equal=equal,
                    )
                    kept = _Kept(stamp, result)
                    self._put(key, kept)
                    with self._lock:
                        self.computed += 1
                if start == 0 and kept.summary is None:
                    kept.summary = runs_compared(engine, kept.result, a.id, b.id)
        finally:  # also when the diff failed (a bad ignore pattern): no entry outlives its requests
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._computing[key]
        return page_of(kept.result, a.id, b.id, start, limit, kept.summary)

    @property
    def computing(self) -> int:
        """How many reports requests are computing or waiting for now (0 when idle)."""
        with self._lock:
            return len(self._computing)

    def _get(self, key: _Key, stamp: _Stamp) -> _Kept | None:
        with self._lock:
            found = self._reports.get(key)
            if found is None:
                return None
            if found.stamp != stamp:  # either session changed since: diff again
                del self._reports[key]
                return None
            self._reports.move_to_end(key)
            return found

    def _put(self, key: _Key, kept: _Kept) -> None:
        if len(kept.result.exchanges) > self.held:
            return
        with self._lock:
            self._reports[key] = kept
            self._reports.move_to_end(key)
            while len(self._reports) > self.kept or self._held() > self.held:
                self._reports.popitem(last=False)

    def _held(self) -> int:
        return sum(len(k.result.exchanges) for k in self._reports.values())
