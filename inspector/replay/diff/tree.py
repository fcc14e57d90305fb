"""The JSON tree compare: two values walked side by side, ignored paths skipped, keyed arrays
aligned by key (`uri`, `uriTemplate`, `name`), other arrays by index."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from inspector.replay.diff.model import Change
from inspector.replay.paths import Item, PathCursor, PathSet, Segment, format_path
from inspector.replay.volatile import is_volatile

if TYPE_CHECKING:
    pass


_KEY_FIELDS = ("uri", "uriTemplate", "name")


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
