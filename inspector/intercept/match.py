"""The match language of intercept rules and breakpoints: which messages a rule applies to.

Sans-IO. `Seen` is one message as a transport saw it (its exact bytes, its
direction, what JSON-RPC says it is); `Match` is the filter, with the
timeline's fields (direction, kind, method with `tools/*` prefixes, text)
plus the tool/prompt/resource name and JSON path predicates (`where`):

    params.arguments.message == "hi"     result.isError == true
    params.arguments.n > 3               error.code exists
    params.name != "echo"                params.name ~ "^get_"     (regex search)
    params.cursor not exists             params.items[0].id <= 10

The value on the right is JSON (strings in double quotes). A response is
matched by the method and name of the request it answers: `Tracker`
remembers them by id. Every `where` expression is checked when the rule is
made, so a typo is an error at load time, not a rule that never matches.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, field_validator

from inspector.protocol.jsonrpc import Kind, classify

__all__ = ["KINDS", "Match", "Seen", "Tracker", "compile_where"]

KINDS = ("request", "notification", "response", "error")
_JSONRPC_KINDS = frozenset((*KINDS, "batch"))
_OTHER = {"c2s": "s2c", "s2c": "c2s"}


def _name_of(payload: Any) -> str | None:
    """A request's tool/prompt name (`params.name`) or resource `params.uri`."""
    params = payload.get("params") if isinstance(payload, dict) else None
    if not isinstance(params, dict):
        return None
    name = params.get("name")
    if isinstance(name, str):
        return name
    uri = params.get("uri")
    return uri if isinstance(uri, str) else None


class Tracker:
    """Remembers requests' method and name by id, per direction, so responses match by them.

    Bounded (`limit` open requests per direction, oldest forgotten first) and thread-safe."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._open: dict[str, OrderedDict[str, tuple[str, str | None]]] = {
            "c2s": OrderedDict(),
            "s2c": OrderedDict(),
        }
        self._lock = threading.Lock()

    def request(self, direction: str, rpc_id: str, method: str, name: str | None) -> None:
        table = self._open.get(direction)
        if table is None:
            return
        with self._lock:
            table[rpc_id] = (method, name)
            if len(table) > self.limit:
                table.popitem(last=False)

    def answer(self, direction: str, rpc_id: str) -> tuple[str | None, str | None]:
        """The (method, name) of the request a response travelling in `direction` answers."""
        with self._lock:
            table = self._open.get(_OTHER.get(direction, ""))
            found = table.pop(rpc_id, None) if table is not None else None
        return found if found is not None else (None, None)


@dataclass(frozen=True, slots=True)
class Seen:
    """One message as a transport saw it. `raw` is exactly its bytes (a stdio line with its
    terminator, an HTTP body, an SSE event's data); `kind` is request, notification,
    response, error, batch, or None for bytes that are not JSON-RPC."""

    direction: str
    raw: bytes
    obj: Any = None
    kind: str | None = None
    method: str | None = None
    name: str | None = None
    rpc_id: str | None = None

    @classmethod
    def of(cls, direction: str, raw: bytes, tracker: Tracker | None = None) -> Seen:
        """Classify `raw`; a request is remembered in `tracker`, a response looks its request up."""
        c = classify(raw)
        if c.kind in (Kind.REQUEST, Kind.NOTIFICATION):
            name = _name_of(c.payload)
            if c.kind is Kind.REQUEST and tracker is not None and c.rpc_id is not None and c.method:
                tracker.request(direction, c.rpc_id, c.method, name)
            return cls(direction, raw, c.payload, c.kind.value, c.method, name, c.rpc_id)
        if c.kind in (Kind.RESPONSE, Kind.ERROR):
            method = name = None
            if tracker is not None and c.rpc_id is not None:
                method, name = tracker.answer(direction, c.rpc_id)
            return cls(direction, raw, c.payload, c.kind.value, method, name, c.rpc_id)
        if c.kind is Kind.BATCH:
            return cls(direction, raw, c.payload, "batch")
        return cls(direction, raw, c.payload if c.payload is not None else None, None)

    @property
    def terminator(self) -> bytes:
        """The line terminator `raw` ends with (b"" for an HTTP body or a partial line)."""
        if self.raw.endswith(b"\r\n"):
            return b"\r\n"
        return b"\n" if self.raw.endswith(b"\n") else b""

    @property
    def body(self) -> bytes:
        """`raw` without its terminator."""
        t = self.terminator
        return self.raw[: len(self.raw) - len(t)] if t else self.raw


# --- JSON path predicates -------------------------------------------------------------------

_MISSING = object()
_WHERE = re.compile(
    r"^\s*(?P<path>[A-Za-z_$][\w$-]*(?:\[\d+\])*(?:\.[A-Za-z_$][\w$-]*(?:\[\d+\])*)*)\s*"
    r"(?:(?P<op>==|!=|>=|<=|>|<|~)\s*(?P<value>.+?)|(?P<exists>not\s+exists|exists))\s*$"
)
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [key if key else int(idx) for key, idx in _STEP.findall(path)]


def _lookup(obj: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(step, int):
            if not isinstance(obj, list) or step >= len(obj):
                return _MISSING
            obj = obj[step]
        else:
            if not isinstance(obj, dict) or step not in obj:
                return _MISSING
            obj = obj[step]
    return obj


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):  # true is not 1 in JSON
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    return bool(a == b)


_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
}


def compile_where(expr: str) -> Callable[[Any], bool]:
    """One `where` expression as a predicate over a message object; ValueError says what is wrong."""
    m = _WHERE.match(expr)
    if m is None:
        raise ValueError(
            f"cannot read {expr!r}: write PATH OP VALUE (OP one of == != > >= < <= ~) "
            'or PATH exists / PATH not exists, e.g. params.name == "echo"'
        )
    steps = _steps(m["path"])
    if m["exists"]:
        want = not m["exists"].startswith("not")
        return lambda obj: (_lookup(obj, steps) is not _MISSING) == want
    op, text = m["op"], m["value"]
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValueError(
            f'in {expr!r} the value {text} is not JSON: strings need double quotes, e.g. "hi"'
        ) from None
    if op == "==":
        return lambda obj: _json_equal(_lookup(obj, steps), value)
    if op == "!=":
        return lambda obj: not _json_equal(_lookup(obj, steps), value)
    if op == "~":
        if not isinstance(value, str):
            raise ValueError(f'in {expr!r} ~ needs a regular expression in a JSON string, e.g. "^get_"')
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise ValueError(f"in {expr!r} the regular expression is not valid: {exc}") from None
        return lambda obj: isinstance(v := _lookup(obj, steps), str) and pattern.search(v) is not None
    if not (_is_number(value) or isinstance(value, str)):
        raise ValueError(f"in {expr!r} {op} compares numbers or strings, not {text}")
    compare = _ORDER[op]

    def ordered(obj: Any) -> bool:
        v = _lookup(obj, steps)
        if _is_number(value):
            return _is_number(v) and compare(v, value)
        return isinstance(v, str) and compare(v, value)

    return ordered


@functools.lru_cache(maxsize=4096)
def _compiled(expr: str) -> Callable[[Any], bool]:
    """`compile_where`, once per expression (a Match keeps only its text: it compares and copies as data)."""
    return compile_where(expr)


def _method_matches(patterns: list[str], method: str | None) -> bool:
    if method is None:
        return False
    return any(p == method or p.endswith("*") and method.startswith(p[:-1]) for p in patterns)


class Match(BaseModel):
    """Which messages: every field given must hold (an empty Match matches every JSON-RPC message).

    `kind`, `method` and `name` are lists (any one may match); `method` and `name` take a
    `prefix*`; `where` predicates must all hold; `text` is a case-insensitive substring of
    the raw bytes."""

    model_config = ConfigDict(extra="forbid")

    direction: Literal["c2s", "s2c"] | None = None
    kind: list[Literal["request", "notification", "response", "error"]] = Field(default_factory=list)
    method: list[str] = Field(default_factory=list)
    name: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list)
    text: str | None = None

    @field_validator("kind", "method", "name", "where", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("where")
    @classmethod
    def _check_where(cls, v: list[str]) -> list[str]:
        for expr in v:
            compile_where(expr)
        return v

    def matches(self, seen: Seen) -> bool:
        if seen.kind not in _JSONRPC_KINDS:
            return False
        if self.direction is not None and seen.direction != self.direction:
            return False
        if self.kind and seen.kind not in self.kind:
            return False
        if self.method and not _method_matches(self.method, seen.method):
            return False
        if self.name and not _method_matches(self.name, seen.name):
            return False
        if self.text is not None and self.text.lower().encode() not in seen.raw.lower():
            return False
        return all(_compiled(expr)(seen.obj) for expr in self.where)
