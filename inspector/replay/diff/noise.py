"""Noise calibration: patterns for every path that differs between two runs of the same traffic."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from inspector.replay.diff.compare import _align, _compare
from inspector.replay.diff.exchanges import _exchanges, _RpcExchange
from inspector.replay.diff.ignore import DEFAULT_IGNORE
from inspector.replay.diff.tree import _Delta
from inspector.replay.paths import ANY, Item, PathSet, Segment, format_path, format_scope
from inspector.replay.volatile import is_volatile

if TYPE_CHECKING:
    from inspector.store.models import MessageRecord


def _patterns_of(ex: _RpcExchange, deltas: list[_Delta], skip_volatile: bool = False) -> set[str]:
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
    loose_b: dict[tuple[Any, ...], deque[_RpcExchange]] = defaultdict(deque)
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
