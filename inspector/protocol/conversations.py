"""Conversations and retry pairs over a session's rows, without IO.

Two things a person reads as one, although they cross the wire as several
JSON-RPC requests with different ids (2026-07-28):

- a multi-round-trip request (MRTR): a request answered by
  `resultType: "input_required"` (`inputRequests`, an opaque `requestState`),
  then retries of the same method with the same params apart from
  `inputResponses`/`requestState` (a new id, the echoed state), until a complete
  result or an error. One `Conversation` with numbered `Round`s;
- a retry pair: a request whose answer never came (its HTTP response or event
  stream broke before the result; this revision has no `Last-Event-ID`
  resumption, the client MUST re-issue the request with a new id) followed by
  the same request again with a new id. `RetryPair(original, retry)`.

`derive(rows)` takes rows in seq order (dicts with the `Message` columns:
seq, direction, channel, kind, method, rpc_id, answers_seq, raw, meta) and
returns both; `by_seq` turns them into a per-seq dict for the views.
Nothing is stored: the API derives this per session (docs/decisions/0011-derived-views-not-stored.md),
so older recordings get it too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.protocol.sse import stored_body

__all__ = ["Conversation", "Derived", "RetryPair", "Round", "by_seq", "derive"]

ROUND_KEYS = ("inputResponses", "requestState")  # what changes between the rounds of one conversation


@dataclass(slots=True)
class Round:
    """One round: the request, what the server asked for, what the client answered with next."""

    n: int
    request_seq: int
    rpc_id: str | None
    response_seq: int | None = None
    result_type: str | None = None  # input_required, complete, error, or None (no answer)
    input_requests: dict[str, str] = field(default_factory=dict)  # key -> method the server asked
    input_responses: list[str] = field(default_factory=list)  # keys this round's request answered
    attempts: list[int] = field(default_factory=list)  # earlier seqs of this round whose answer broke

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "request_seq": self.request_seq,
            "rpc_id": self.rpc_id,
            "response_seq": self.response_seq,
            "result_type": self.result_type,
            "input_requests": self.input_requests,
            "input_responses": self.input_responses,
            "attempts": self.attempts,
        }


@dataclass(slots=True)
class Conversation:
    """A multi-round-trip request: its rounds in order; `outcome` complete, error or open."""

    id: int  # the seq of its first request
    method: str
    name: str | None  # the tool or prompt name, or the resource URI
    rounds: list[Round] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        last = self.rounds[-1].result_type if self.rounds else None
        return last if last in ("complete", "error") else "open"

    @property
    def final_seq(self) -> int | None:
        return self.rounds[-1].response_seq if self.outcome != "open" else None

    def seqs(self) -> list[int]:
        out: list[int] = []
        for r in self.rounds:
            out += [*r.attempts, r.request_seq] + ([r.response_seq] if r.response_seq is not None else [])
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "method": self.method,
            "name": self.name,
            "outcome": self.outcome,
            "final_seq": self.final_seq,
            "rounds": [r.to_json() for r in self.rounds],
        }


@dataclass(frozen=True, slots=True)
class RetryPair:
    """`retry` re-issued the request `original` (a new id) after `original`'s answer broke."""

    original: int
    retry: int
    method: str
    broken: str  # what the recording says about the original's answer

    def to_json(self) -> dict[str, Any]:
        return {"original": self.original, "retry": self.retry, "method": self.method, "broken": self.broken}


@dataclass(slots=True)
class Derived:
    conversations: list[Conversation]
    retries: list[RetryPair]

    def to_json(self) -> dict[str, Any]:
        return {
            "conversations": [c.to_json() for c in self.conversations],
            "retries": [r.to_json() for r in self.retries],
            "by_seq": {str(k): v for k, v in by_seq(self).items()},
        }


@dataclass(slots=True)
class _Req:
    seq: int
    method: str
    rpc_id: str | None
    body: bytes  # parsed only when needed (most requests never are: see `params`)
    exchange: Any
    response_seq: int | None = None
    result: Any = None
    result_type: str | None = None  # input_required, complete, error; None: no answer received
    _params: dict[str, Any] | None = None

    @property
    def params(self) -> dict[str, Any]:
        if self._params is None:
            doc = _parse(self.body)
            params = doc.get("params") if isinstance(doc, dict) else None
            self._params = params if isinstance(params, dict) else {}
        return self._params

    @property
    def may_continue(self) -> bool:
        """Could this be a later round (it carries `inputResponses` or `requestState`)? A byte check
        first: parsing every request of a long session is what makes this slow."""
        if b'"inputResponses"' not in self.body and b'"requestState"' not in self.body:
            return False
        return any(k in self.params for k in ROUND_KEYS)


def _bytes_of(row: Mapping[str, Any]) -> bytes:
    raw = row.get("raw")
    if isinstance(raw, str):
        raw = raw.encode()
    if not isinstance(raw, bytes | bytearray):
        return b""
    return stored_body(row.get("channel") or "", bytes(raw))


def _parse(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _key(method: str, params: Mapping[str, Any], drop: tuple[str, ...]) -> str:
    """What must be equal for two requests to be the same request (`_meta` aside: it carries
    per-request things such as the progress token, often the id itself)."""
    kept = {k: v for k, v in params.items() if k != "_meta" and k not in drop}
    return method + "\0" + json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)


def _name(params: Mapping[str, Any]) -> str | None:
    for k in ("name", "uri"):
        if isinstance(params.get(k), str):
            return str(params[k])
    return None


def _requests(rows: Iterable[Mapping[str, Any]]) -> tuple[list[_Req], dict[Any, str]]:
    """The client's requests with their answers, and the problems recorded per HTTP exchange."""
    reqs: dict[int, _Req] = {}
    problems: dict[Any, str] = {}
    for row in rows:
        meta = row.get("meta")
        if not isinstance(meta, dict):
            meta = {}
        if meta.get("problem") and meta.get("exchange") is not None:
            problems.setdefault(meta["exchange"], str(meta["problem"]))
        kind = row.get("kind")
        if kind == "request" and row.get("direction") == "c2s" and row.get("method"):
            seq = int(row["seq"])
            reqs[seq] = _Req(seq, str(row["method"]), row.get("rpc_id"), _bytes_of(row), meta.get("exchange"))
        elif kind in ("response", "error") and row.get("answers_seq") in reqs:
            req = reqs[int(row["answers_seq"])]
            held = meta.get("intercept")
            if isinstance(held, dict) and held.get("delivered") is False:
                # The server answered; the client never got it.
                if meta.get("exchange") is not None:
                    problems.setdefault(meta["exchange"], "the answer was not delivered (intercepted)")
                continue
            if req.response_seq is not None:
                continue
            req.response_seq = int(row["seq"])
            req.result_type = "error" if kind == "error" else "complete"
            body = _bytes_of(row) if kind == "response" else b""
            if b'"input_required"' in body:
                doc = _parse(body)
                req.result = doc.get("result") if isinstance(doc, dict) else None
                if isinstance(req.result, dict) and req.result.get("resultType") == "input_required":
                    req.result_type = "input_required"
    return sorted(reqs.values(), key=lambda r: r.seq), problems


def derive(rows: Iterable[Mapping[str, Any]]) -> Derived:
    """The conversations and retry pairs of a session's rows (in seq order)."""
    reqs, problems = _requests(rows)
    # Retry pairs: an unanswered request, then the same request (same method and params) with a new id.
    retries: list[RetryPair] = []
    retried: dict[int, int] = {}  # original seq -> retry seq
    waiting: dict[str, _Req] = {}  # full key -> the latest unanswered request under it
    waiting_methods: Counter[str] = Counter()
    for req in reqs:
        if not waiting_methods[req.method] and req.response_seq is not None:
            continue  # nothing of this method waits for a retry, and this one was answered
        full = _key(req.method, req.params, ())
        prior = waiting.pop(full, None)
        if prior is not None:
            waiting_methods[prior.method] -= 1
            if prior.rpc_id != req.rpc_id:
                broken = problems.get(prior.exchange, "no answer was recorded")
                retries.append(RetryPair(prior.seq, req.seq, req.method, broken))
                retried[prior.seq] = req.seq
        if req.response_seq is None:
            if (replaced := waiting.get(full)) is not None:
                waiting_methods[replaced.method] -= 1
            waiting[full] = req
            waiting_methods[req.method] += 1
    # Conversations: an input_required answer opens one; a retry with the round keys continues it.
    conversations: list[Conversation] = []
    open_by_key: dict[str, Conversation] = {}
    pending_attempts: dict[int, list[int]] = {}  # retry seq -> the broken attempts before it
    for original, retry in retried.items():
        pending_attempts[retry] = [*pending_attempts.pop(original, []), original]
    for req in reqs:
        if req.seq in retried:  # its answer broke: the retry stands for it
            continue
        rt = req.result_type
        later = bool(open_by_key) and req.may_continue
        if not later and rt != "input_required":
            continue
        key = _key(req.method, req.params, ROUND_KEYS)
        conv = open_by_key.get(key) if later else None
        if conv is None and rt != "input_required":
            continue
        if conv is None:
            conv = Conversation(req.seq, req.method, _name(req.params))
            conversations.append(conv)
        answered = req.params.get("inputResponses")
        rnd = Round(
            len(conv.rounds) + 1,
            req.seq,
            req.rpc_id,
            req.response_seq,
            rt,
            input_responses=sorted(answered) if isinstance(answered, dict) else [],
            attempts=pending_attempts.get(req.seq, []),
        )
        asked = (
            req.result.get("inputRequests")
            if rt == "input_required" and isinstance(req.result, dict)
            else None
        )
        if isinstance(asked, dict):
            rnd.input_requests = {
                str(k): str(v.get("method")) if isinstance(v, dict) else "?" for k, v in asked.items()
            }
        conv.rounds.append(rnd)
        if rt == "input_required":
            open_by_key[key] = conv
        else:
            open_by_key.pop(key, None)
    return Derived(conversations, retries)


def by_seq(derived: Derived) -> dict[int, dict[str, Any]]:
    """Per seq: `conversation` (id, round, rounds, outcome, role), `retry_of`, `retried_by`."""
    out: dict[int, dict[str, Any]] = {}
    for conv in derived.conversations:
        total = len(conv.rounds)
        for rnd in conv.rounds:
            parts = [(s, "attempt") for s in rnd.attempts] + [(rnd.request_seq, "request")]
            if rnd.response_seq is not None:
                parts.append((rnd.response_seq, "final" if rnd.response_seq == conv.final_seq else "answer"))
            for seq, role in parts:
                out.setdefault(seq, {})["conversation"] = {
                    "id": conv.id,
                    "round": rnd.n,
                    "rounds": total,
                    "outcome": conv.outcome,
                    "role": role,
                }
    for pair in derived.retries:
        out.setdefault(pair.retry, {})["retry_of"] = pair.original
        out.setdefault(pair.original, {})["retried_by"] = pair.retry
    return out
