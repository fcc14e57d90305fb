"""Matching requests against recorded ones: JSON-aware, never by JSON-RPC id.

Sans-IO. A request matches a recorded one when the methods are equal and
the params are equal after normalisation: key order never matters, and the
policy removes what should not count.

- strict: params must be equal (absent params equal `{}`), except `_meta.progressToken` (chosen per
  run by the client) and the 2026-07-28 envelope in `_meta`
  (`io.modelcontextprotocol/...`: protocol version, client info and
  capabilities describe the client, not the question);
- lenient: `_meta` is ignored entirely, and keys the recorded request did
  not have are ignored in the incoming one.

Extra ignored paths are dotted (`arguments.when`, `*` for one segment).
`AnswerBook` hands out recorded answers in recorded order for repeated
identical requests, then the last one again; for a request with no match
it names the nearest recorded request and what differed. `fit` says how
well a request fits a book without taking an answer (a mock server playing
several recordings picks the one to answer from with it); `fresh` is the
same book with its answers not yet handed out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.errors import InspectorError

__all__ = ["AnswerBook", "MatchPolicy", "Miss"]


_ENVELOPE_PREFIX = "io.modelcontextprotocol/"


@dataclass(frozen=True)
class MatchPolicy:
    mode: str = "strict"  # strict | lenient
    ignore: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in ("strict", "lenient"):
            raise ValueError(f"match mode must be strict or lenient, got {self.mode!r}")

    @classmethod
    def named(cls, mode: str) -> MatchPolicy:
        """The policy a `--match` option names: an unknown name is the user's error (InspectorError)."""
        try:
            return cls(mode)
        except ValueError as exc:
            raise InspectorError(str(exc)) from None

    def normalize(self, params: Any, recorded: Any = None) -> Any:
        """Params with ignored paths removed (and, leniently, keys the recorded params lack).

        Absent params are empty params: `tools/list` with no params and with `{}` ask the same."""
        if params is None:
            return {}
        if not isinstance(params, dict):
            return params
        out = dict(params)
        meta = out.get("_meta")
        if self.mode == "lenient":
            out.pop("_meta", None)
        elif isinstance(meta, dict):
            meta = {
                k: v for k, v in meta.items() if k != "progressToken" and not k.startswith(_ENVELOPE_PREFIX)
            }
            if meta:
                out["_meta"] = meta
            else:
                out.pop("_meta")
        for path in self.ignore:
            out = _drop(out, path.split("."))
        if self.mode == "lenient" and isinstance(recorded, dict):
            out = {k: v for k, v in out.items() if k in recorded}
        return out

    def key(self, method: str, params: Any, recorded: Any = None) -> bytes:
        return orjson.dumps([method, self.normalize(params, recorded)], option=orjson.OPT_SORT_KEYS)


def _drop(value: Any, parts: list[str]) -> Any:
    if not parts or not isinstance(value, dict):
        return value
    head, rest = parts[0], parts[1:]
    keys = list(value) if head == "*" else [head]
    out = dict(value)
    for k in keys:
        if k not in out:
            continue
        if rest:
            out[k] = _drop(out[k], rest)
        else:
            del out[k]
    return out


@dataclass
class Miss:
    """Why a request matched nothing: the nearest recorded request and what differed."""

    method: str
    nearest_params: Any | None
    differences: list[str]

    def message(self) -> str:
        if self.nearest_params is None:
            return f"mcp-inspect mock: no recorded request with method {self.method!r}"
        return (
            f"mcp-inspect mock: no recorded {self.method} matches these params; nearest recorded params "
            f"{orjson.dumps(self.nearest_params).decode()} differ at {', '.join(self.differences) or '(nothing)'}"
        )

    def data(self) -> dict[str, Any]:
        return {"method": self.method, "nearestParams": self.nearest_params, "differences": self.differences}


@dataclass
class _Entry:
    method: str
    params: Any
    answers: list[Any] = field(default_factory=list)
    used: int = 0
    sent: list[bytes] = field(default_factory=list)  # each answer's request as it was sent (`_identity`)
    exact_used: dict[bytes, int] = field(default_factory=dict)


class AnswerBook:
    """Recorded requests and their answers, looked up by method and normalised params."""

    def __init__(self, policy: MatchPolicy | None = None) -> None:
        self.policy = policy or MatchPolicy()
        self._entries: list[_Entry] = []

    def add(self, method: str, params: Any, answer: Any) -> None:
        """Record that `method(params)` was answered with `answer` (in recorded order)."""
        for entry in self._entries:
            if entry.method == method and self._same(entry.params, params):
                entry.answers.append(answer)
                entry.sent.append(_identity(params))
                return
        self._entries.append(_Entry(method, params, [answer], sent=[_identity(params)]))

    def extend(self, items: Iterable[tuple[str, Any, Any]]) -> None:
        for method, params, answer in items:
            self.add(method, params, answer)

    def _same(self, recorded: Any, incoming: Any) -> bool:
        return self.policy.key("", incoming, recorded) == self.policy.key("", recorded, recorded)

    def _find(self, method: str, params: Any) -> _Entry | None:
        for entry in self._entries:
            if entry.method == method and self._same(entry.params, params):
                return entry
        return None

    def take(self, method: str, params: Any, *, exact: bool = False) -> tuple[bool, Any]:
        """(True, answer) for the next recorded answer, then the last one again; (False, None) if none.

        `exact`: the answers given to requests sent exactly as this one (`fit` 2) come first, in
        their order, then the last of them again; a request sent otherwise takes the next answer."""
        entry = self._find(method, params)
        if entry is None:
            return False, None
        sent = _identity(params)
        if exact and sent in entry.sent:
            mine = [a for a, s in zip(entry.answers, entry.sent, strict=True) if s == sent]
            n = entry.exact_used.get(sent, 0)
            entry.exact_used[sent] = n + 1
            return True, mine[min(n, len(mine) - 1)]
        answer = entry.answers[min(entry.used, len(entry.answers) - 1)]
        entry.used += 1
        return True, answer

    def fit(self, method: str, params: Any) -> int | None:
        """How well `method(params)` fits this book, taking nothing: None when it matches no recorded
        request; 1 when it matches under the policy; 2 when the params are also the recorded ones
        exactly as one of the recorded ones, `_meta` included (the 2026-07-28 envelope: who the
        client said it was, with what protocol version and capabilities), except the per-run
        `_meta.progressToken`."""
        entry = self._find(method, params)
        if entry is None:
            return None
        return 2 if _identity(params) in entry.sent else 1

    def fresh(self) -> AnswerBook:
        """The same recorded requests and answers, none handed out yet (its own counters)."""
        book = AnswerBook(self.policy)
        book._entries = [_Entry(e.method, e.params, e.answers, sent=e.sent) for e in self._entries]
        return book

    def miss(self, method: str, params: Any) -> Miss:
        """The nearest recorded request with this method, and the params paths that differ."""
        candidates = [e for e in self._entries if e.method == method]
        if not candidates:
            return Miss(method, None, [])
        best = min(
            candidates,
            key=lambda e: len(_differences(self.policy.normalize(e.params), self.policy.normalize(params))),
        )
        return Miss(
            method,
            best.params,
            _differences(self.policy.normalize(best.params), self.policy.normalize(params)),
        )

    def __len__(self) -> int:
        return len(self._entries)


def _identity(params: Any) -> bytes:
    """Params as they were sent (key order aside), but for the progress token (chosen per run)."""
    if params is None:
        params = {}
    if isinstance(params, dict) and isinstance(params.get("_meta"), dict):
        meta = {k: v for k, v in params["_meta"].items() if k != "progressToken"}
        params = {k: v for k, v in params.items() if k != "_meta"}
        if meta:
            params["_meta"] = meta
    return orjson.dumps(params, option=orjson.OPT_SORT_KEYS)


def _differences(a: Any, b: Any, path: str = "params") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{path}.{key}")
            else:
                out.extend(_differences(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [path]
