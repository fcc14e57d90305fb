"""JSON paths for the semantic diff: their readable text, and ignore patterns over them.

Sans-IO, no dependencies beyond the standard library.

A path is a tuple of segments: an object key (`str`), an array index (`int`),
or an array element picked by a key field (`Item`, for arrays of tools,
prompts, resources... that the diff aligns by `name`/`uri`/`uriTemplate`).
Its text is what the reports show and what users type back as patterns::

    result.content[0].text
    result.tools[name=weather].inputSchema.required[1]
    result._meta["io.modelcontextprotocol/serverInfo"]     (keys with . [ ] : " or spaces are quoted)
    notifications[notifications/progress]                    (an Item with no field)

A pattern is a path that may use `*` (exactly one segment of any kind) and
`**` (any number of segments, none included), optionally scoped to the
messages of one method (and subject) and optionally negated::

    **.requestState                         anywhere, in every message
    initialize:result.serverInfo.version    only in initialize exchanges
    tools/call[name=clock]:result.content   only in tools/call name=clock
    tools/call[name=clock]:                 (empty path) the whole exchange
    !server/discover:result._meta["io.modelcontextprotocol/serverInfo"]
    "odd method:name"[name=x]:params.y       (a method with blanks, [ ] : " or a leading ! is quoted)

The last pattern that matches a path decides (a `!` pattern re-includes
it). As in `.gitignore`, a path below an ignored path is ignored whatever
later patterns say. Bad pattern text raises `ValueError` with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "ANY",
    "ANY_DEEP",
    "Item",
    "PathCursor",
    "PathSet",
    "Segment",
    "Wildcard",
    "format_path",
    "format_scope",
    "parse_path",
]


@dataclass(frozen=True, order=True)
class Item:
    """An array element identified by a key field's value: `[name=weather]` (`[value]` when field is "")."""

    field: str
    value: str


@dataclass(frozen=True)
class Wildcard:
    """`*` (one segment) or `**` (any number of segments); only in patterns."""

    text: str


ANY = Wildcard("*")
ANY_DEEP = Wildcard("**")

Segment = str | int | Item | Wildcard

_BARE_KEY = re.compile(r"[^.\[\]\"\s:=]+")
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_BARE_VALUE = re.compile(r"[^\]\"\s](?:[^\]\"]*[^\]\"\s])?")  # no ] or ", no surrounding blanks
_INDEX = re.compile(r"-?[0-9]+")
_BARE_METHOD = re.compile(r"[^\s\[\]\":!][^\s\[\]\":]*")
_DECODER = json.JSONDecoder()


# --- text ---------------------------------------------------------------------------------------------


def _key_text(key: str, first: bool) -> str:
    if _BARE_KEY.fullmatch(key) and key not in ("*", "**"):
        return key if first else "." + key
    return "[" + json.dumps(key, ensure_ascii=False) + "]"


def _item_text(item: Item) -> str:
    value = item.value
    if item.field:
        if _BARE_VALUE.fullmatch(value):
            return f"[{item.field}={value}]"
        return f"[{item.field}={json.dumps(value, ensure_ascii=False)}]"
    if _BARE_VALUE.fullmatch(value) and "=" not in value and value != "*" and not _INDEX.fullmatch(value):
        return f"[{value}]"
    return "[=" + json.dumps(value, ensure_ascii=False) + "]"


def format_path(path: Sequence[Segment]) -> str:
    """The readable text of a path; `parse_path` reads it back to the same segments."""
    out: list[str] = []
    for i, seg in enumerate(path):
        if isinstance(seg, Wildcard):
            out.append(seg.text if i == 0 else "." + seg.text)
        elif isinstance(seg, bool):  # a bool is an int to Python, never a JSON index
            raise TypeError(f"not a path segment: {seg!r}")
        elif isinstance(seg, int):
            out.append(f"[{seg}]")
        elif isinstance(seg, Item):
            if not _FIELD.fullmatch(seg.field) and seg.field:
                raise ValueError(f"not a key field name: {seg.field!r}")
            out.append(_item_text(seg))
        else:
            out.append(_key_text(seg, i == 0))
    return "".join(out)


def format_scope(method: str, subject: Item | None = None) -> str:
    """The scope part of a pattern: `tools/call`, `tools/call[name=echo]` (odd methods quoted)."""
    text = method if _BARE_METHOD.fullmatch(method) else json.dumps(method, ensure_ascii=False)
    return text + (_item_text(subject) if subject is not None else "")


def _json_string(text: str, pos: int, where: str) -> tuple[str, int]:
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad quoted string in {where!r}: {exc.msg}") from None
    if not isinstance(value, str):
        raise ValueError(f"expected a quoted string at {pos} in {where!r}")
    return value, end


def _bracket(text: str, pos: int) -> tuple[Segment, int]:
    """Parse `[...]` starting at `pos` (just after the `[`); return the segment and the position after `]`."""
    if text.startswith('"', pos):
        key, end = _json_string(text, pos, text)
        seg: Segment = key
    elif text.startswith("=", pos):
        value, end = _json_string(text, pos + 1, text)
        seg = Item("", value)
    else:
        close = text.find("]", pos)
        m = _FIELD.match(text, pos)
        if m and text.startswith('="', m.end()):
            value, end = _json_string(text, m.end() + 1, text)
            seg = Item(m.group(), value)
        elif close < 0:
            raise ValueError(f"unclosed [ in {text!r}")
        else:
            inner, end = text[pos:close], close
            if not inner:
                raise ValueError(f"empty [] in {text!r}")
            if _INDEX.fullmatch(inner):
                seg = int(inner)
            elif m and text.startswith("=", m.end()) and m.end() < close:
                seg = Item(m.group(), text[m.end() + 1 : close])
            else:
                seg = Item("", inner)
    if not text.startswith("]", end):
        raise ValueError(f"expected ] at {end} in {text!r}")
    return seg, end + 1


def parse_path(text: str, *, wildcards: bool = False) -> tuple[Segment, ...]:
    """Read a path's text (as `format_path` writes it); `wildcards` allows `*` and `**`."""
    segs: list[Segment] = []
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        if ch == "[":
            seg, pos = _bracket(text, pos + 1)
            segs.append(seg)
            continue
        if ch == ".":
            if not segs:
                raise ValueError(f"path cannot start with '.': {text!r}")
            pos += 1
        elif segs:
            raise ValueError(f"expected . or [ at {pos} in {text!r}")
        m = _BARE_KEY.match(text, pos)
        if not m:
            raise ValueError(f"expected a key at {pos} in {text!r}")
        word, pos = m.group(), m.end()
        if word in ("*", "**"):
            if not wildcards:
                raise ValueError(f"wildcard {word!r} is only allowed in patterns: {text!r}")
            segs.append(ANY if word == "*" else ANY_DEEP)
        else:
            segs.append(word)
    return tuple(segs)


# --- patterns -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pattern:
    negated: bool
    method: str | None
    subject: Item | None
    segs: tuple[Segment, ...]


def _split_scope(text: str) -> tuple[str | None, str]:
    """Find the scope separator `:` outside brackets and quoted strings."""
    in_bracket, quoted, escaped = False, False, False
    for i, ch in enumerate(text):
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif in_bracket:
            if ch == "]":
                in_bracket = False
        elif ch == "[":
            in_bracket = True
        elif ch == ":":
            return text[:i], text[i + 1 :]
    return None, text


def _parse_pattern(text: str) -> _Pattern:
    body = text.strip()
    negated = body.startswith("!")
    if negated:
        body = body[1:]
    scope, path = _split_scope(body)
    method: str | None = None
    subject: Item | None = None
    if scope is not None:
        if scope.startswith('"'):
            method, rest = _json_string(scope, 0, text)
        else:
            rest = scope.find("[")
            method = scope if rest < 0 else scope[:rest]
            rest = len(scope) if rest < 0 else rest
            if not _BARE_METHOD.fullmatch(method):
                raise ValueError(f"bad method scope in pattern {text!r} (quote odd method names)")
        if rest < len(scope):
            seg, end = _bracket(scope, rest + 1) if scope[rest] == "[" else (None, rest)
            if not isinstance(seg, Item) or not seg.field or end != len(scope):
                raise ValueError(f"scope subject must look like [name=value] in pattern {text!r}")
            subject = seg
    elif not path:
        raise ValueError("empty ignore pattern")
    return _Pattern(negated, method, subject, parse_path(path, wildcards=True))


_State = frozenset[tuple[int, int]]  # (pattern index, position in its segments)


@dataclass(frozen=True)
class _Node:
    """One state of the patterns' automaton, with its transitions (built once, then reused)."""

    hit: bool
    literal: dict[Segment, _State]  # segments some pattern names at this point
    other: _State  # where any other segment leads (through * and **)
    # The cursors one segment down, built once per segment (issue 21: a diff asks for the same
    # children of the same node for every exchange); bounded, since keys and indexes are open-ended.
    kids: dict[Segment, PathCursor] = field(default_factory=dict, compare=False)


class PathSet:
    """A list of ignore patterns, matched against paths (module docstring: the syntax).

    Matching runs a small automaton over the path's segments. Its states are
    sets of positions in the patterns, so there are finitely many; each is
    built once and cached, and walking a JSON value costs a dict lookup per node.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns: list[str] = list(patterns)
        self._compiled = [_parse_pattern(p) for p in self.patterns]
        self._nodes: dict[_State, _Node] = {}
        self._roots: dict[tuple[str | None, Item | None], _State] = {}

    def __repr__(self) -> str:
        return f"PathSet({self.patterns!r})"

    def __add__(self, other: PathSet | Iterable[str]) -> PathSet:
        more = other.patterns if isinstance(other, PathSet) else list(other)
        return PathSet([*self.patterns, *more])

    def cursor(self, method: str | None = None, subject: Item | None = None) -> PathCursor:
        """A cursor at the root of one message of `method` (about `subject`), to walk down from."""
        states = self._roots.get((method, subject))
        if states is None:
            if len(self._roots) > 4096:  # subjects are open-ended (uris): keep the cache bounded
                self._roots.clear()
            states = self._roots[(method, subject)] = self._closure(
                (i, 0)
                for i, p in enumerate(self._compiled)
                if (p.method is None or p.method == method) and (p.subject is None or p.subject == subject)
            )
        return PathCursor(self, states)

    def scoped_by_subject(self, method: str) -> bool:
        """Whether a pattern applies to some messages of `method` only by their subject (`[name=..]`):
        then what is ignored in one of them depends on its body."""
        return any(p.subject is not None and p.method in (None, method) for p in self._compiled)

    def matches(
        self, path: Sequence[Segment], method: str | None = None, subject: Item | None = None
    ) -> bool:
        """True when `path` (or a path above it) is ignored; scoped patterns need `method`/`subject`."""
        cur = self.cursor(method, subject)
        if cur.hit:
            return True
        for seg in path:
            cur = cur.child(seg)
            if cur.hit:
                return True
            if cur.dead:
                return False
        return False

    def _closure(self, states: Iterable[tuple[int, int]]) -> _State:
        out: set[tuple[int, int]] = set()
        for p, i in states:
            segs = self._compiled[p].segs
            out.add((p, i))
            while i < len(segs) and segs[i] is ANY_DEEP:
                i += 1
                out.add((p, i))
        return frozenset(out)

    def _node(self, states: _State) -> _Node:
        node = self._nodes.get(states)
        if node is None:
            node = self._nodes[states] = self._build(states)
        return node

    def _build(self, states: _State) -> _Node:
        done: list[int] = []
        anything: list[tuple[int, int]] = []  # moves any segment makes: ** stays, * advances
        named: dict[Segment, list[tuple[int, int]]] = {}
        for p, i in states:
            segs = self._compiled[p].segs
            if i == len(segs):
                done.append(p)
                continue
            want = segs[i]
            if want is ANY_DEEP:
                anything.append((p, i))
            elif want is ANY:
                anything.append((p, i + 1))
            else:
                named.setdefault(want, []).append((p, i + 1))
        hit = bool(done) and not self._compiled[max(done)].negated  # the last matching pattern decides
        literal = {seg: self._closure([*anything, *moves]) for seg, moves in named.items()}
        return _Node(hit, literal, self._closure(anything))


class PathCursor:
    """Where a walk down one JSON value stands among the patterns of a `PathSet`.

    `hit`: this node is ignored; `dead`: nothing below it can be.
    """

    __slots__ = ("_node", "_set", "_states", "hit")

    def __init__(self, pathset: PathSet, states: _State) -> None:
        self._set = pathset
        self._states = states
        self._node = pathset._node(states)
        self.hit: bool = self._node.hit

    @property
    def dead(self) -> bool:
        return not self._states

    def child(self, seg: Segment) -> PathCursor:
        """The cursor one segment further down."""
        if not self._states:
            return self
        kids = self._node.kids
        kid = kids.get(seg)
        if kid is None:
            kid = PathCursor(self._set, self._node.literal.get(seg, self._node.other))
            if len(kids) < 512:
                kids[seg] = kid
        return kid

    def __or__(self, other: PathCursor) -> PathCursor:
        """Both cursors at once (the same node reached two ways, e.g. relative and prefixed)."""
        return PathCursor(self._set, self._states | other._states)
