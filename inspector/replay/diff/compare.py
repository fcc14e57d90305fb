"""Two paired exchanges compared (params, response, notifications as a multiset), and the
k-th-with-k-th alignment of whole sessions."""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from typing import TYPE_CHECKING

from inspector.replay.diff.exchanges import _Note, _RpcExchange
from inspector.replay.diff.model import ExchangeDiff
from inspector.replay.diff.tree import _canon, _Delta, _identical, _normal, _walk
from inspector.replay.paths import Item, PathCursor, PathSet, Segment

if TYPE_CHECKING:
    pass


_Prepared = tuple[_Note, PathCursor, str]  # a notification, its cursor, its multiset key


def _prepared_notes(ex: _RpcExchange, ignore: PathSet, cur: PathCursor) -> list[_Prepared]:
    """An exchange's notifications with their cursor and multiset key; wholly ignored ones dropped."""
    under = cur.child("notifications")
    out = []
    for n in ex.notes:
        nc = ignore.cursor(n.method, n.subject) | under.child(Item("", n.method))
        if not nc.hit:
            out.append((n, nc, _canon(_normal(n.view, nc))))
    return out


def _compare_notes(a: _RpcExchange, b: _RpcExchange, ignore: PathSet, cur: PathCursor) -> list[_Delta]:
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


def _compare(a: _RpcExchange, b: _RpcExchange, ignore: PathSet) -> list[_Delta]:
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


def _align(xa: list[_RpcExchange], xb: list[_RpcExchange]) -> list[int | None]:
    """For each original exchange, the index of its replay partner (k-th with k-th of equal keys)."""
    queues: dict[str, deque[int]] = defaultdict(deque)
    for j, ex in enumerate(xb):
        queues[ex.key].append(j)
    return [queues[ex.key].popleft() if queues[ex.key] else None for ex in xa]


def _outcome(ex: _RpcExchange) -> str | None:
    """How a request ended: `ok`, `error` (an error response or an `isError: true` result) or
    `unanswered`; None for what is not a request."""
    if ex.role != "request":
        return None
    if not ex.answered or ex.response is None:
        return "unanswered"
    if "error" in ex.response:
        return "error"
    result = ex.response.get("result")
    return "error" if isinstance(result, dict) and result.get("isError") is True else "ok"


def _health(a: _RpcExchange, b: _RpcExchange) -> str | None:
    """`regressed` (a's answer ok, b's failed or missing), `fixed` (the other way), else None."""
    before, after = _outcome(a), _outcome(b)
    if before == "ok" and after in ("error", "unanswered"):
        return "regressed"
    if before in ("error", "unanswered") and after == "ok":
        return "fixed"
    return None


def _only(ex: _RpcExchange, status: str) -> ExchangeDiff:
    a, b = (ex.seq, None) if status == "missing" else (None, ex.seq)
    return ExchangeDiff(status, ex.method, ex.summary, a, b, [], ex.direction, [*ex.interventions])
