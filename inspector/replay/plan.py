"""What a replay sends, and when: derived from a recorded session, without IO.

The client's messages are sent again in recorded order, byte for byte. A
session recorded with interception is replayed as the server received it:
messages the inspector kept from the server are left out, the copies it sent
instead (edits, duplicates) are sent, and its own answers are never taken for
the server's (`store.interventions`). Before
each one, the replay waits for the responses the original client had already
received at that point (ordering comes from the recording, never from
sleeps). The client's answers to server requests are not sent verbatim: the
server's requests get new ids in a new run, so they are answered from the
recording by matching method and params (`AnswerBook`).

Opaque values a server hands out and a client echoes back (2026-07-28
`requestState`, pagination cursors, task ids) differ between runs: the
replay learns the mapping from each original response to its replay
counterpart and substitutes it in later client messages (`Substitutions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.capture.redact import Secrets
from inspector.protocol import Kind, classify
from inspector.protocol.json_depth import loads as bounded_loads
from inspector.replay.matching import AnswerBook, MatchPolicy
from inspector.store.interventions import server_side
from inspector.store.models import Message

__all__ = ["ReplayPlan", "Step", "Substitutions", "plan_replay", "recorded_secret_headers"]

_CLIENT_KINDS = {"request", "notification", "response", "error", "batch", "invalid"}
# Keys whose values the server chooses and the client sends back.
ECHOED_KEYS = frozenset({"requestState", "nextCursor", "cursor", "taskId", "elicitationId"})


@dataclass
class Step:
    """One client message to send, after the responses it waited for in the original."""

    seq: int
    raw: bytes
    await_ids: list[str]  # canonical JSON ids of requests whose responses must have arrived
    request_ids: list[str]  # ids this message asks for answers to (requests in it)
    method: str | None
    ts_ns: int = 0  # when the original client sent it (a load replay `--as-recorded` keeps the gaps)


@dataclass
class ReplayPlan:
    steps: list[Step]
    final_await: list[str]  # requests answered in the original after the client's last message
    answers: AnswerBook
    responses: dict[str, Any] = field(default_factory=dict)  # original response payloads by request id


def plan_replay(rows: list[Message], policy: MatchPolicy | None = None) -> ReplayPlan:
    """Build the replay plan of a recorded session (its rows in seq order)."""
    answers = AnswerBook(policy)
    by_seq = {m.seq: m for m in rows}
    steps: list[Step] = []
    answered: list[str] = []  # request ids answered so far, in order
    awaited = 0
    requests_by_seq: dict[int, str] = {}
    responses: dict[str, Any] = {}
    for m in rows:
        # Interventions (issue 17): replay what the server received and compare with what it sent.
        # A c2s row the inspector kept from the server is not sent (its injected copy is), an s2c
        # row the inspector made up is not the server's answer (the server's own one is, even when
        # the client never got it).
        if not server_side(m.direction, m.meta):
            continue
        if m.direction == "s2c" and m.kind in ("response", "error") and m.answers_seq in requests_by_seq:
            rid = requests_by_seq[m.answers_seq]
            answered.append(rid)
            responses[rid] = _payload(m)
            continue
        if m.direction == "c2s" and m.kind in ("response", "error") and m.answers_seq is not None:
            request = by_seq.get(m.answers_seq)
            if request is not None and request.direction == "s2c":
                req = _payload(request)
                ans = _payload(m)
                if isinstance(req, dict) and isinstance(ans, dict):
                    answers.add(req.get("method", ""), req.get("params"), ans)
            continue
        if m.direction != "c2s" or m.kind not in _CLIENT_KINDS or not m.raw.strip():
            continue
        msg = classify(m.raw.rstrip(b"\r\n"))
        items = msg.items if msg.kind is Kind.BATCH else [msg]
        ids = [i.rpc_id for i in items if i.kind is Kind.REQUEST and i.rpc_id is not None]
        for rid in ids:
            requests_by_seq[m.seq] = rid
        steps.append(Step(m.seq, m.raw.rstrip(b"\r\n"), answered[awaited:], ids, m.method, m.ts_ns))
        awaited = len(answered)
    return ReplayPlan(steps, answered[awaited:], answers, responses)


def recorded_secret_headers(
    rows: list[Message], secrets: Secrets, skip: frozenset[str] = frozenset()
) -> dict[str, str]:
    """The headers the original client sent that were stored redacted, with their secrets put back.

    A header whose secrets were not all given is left out (`secrets.missing` names them); so are
    the (lower-case) names in `skip`, e.g. `authorization` when OAuth gets a fresh token."""
    headers: dict[str, str] = {}
    for m in rows:
        if m.channel != "http-request" or not m.http_headers:
            continue
        for name, value in m.http_headers:
            if "[secret:" not in value or name.lower() in headers or name.lower() in skip:
                continue
            before = len(secrets.missing)
            filled = secrets.text(value)
            if len(secrets.missing) == before and "[secret:" not in filled:
                headers[name.lower()] = filled
    return headers


def _payload(m: Message) -> Any:
    try:
        return bounded_loads(m.body)  # `Substitutions.learn` recurses: deep levels as text
    except orjson.JSONDecodeError:
        return None


class Substitutions:
    """Server-chosen values of the original run mapped to those of the replay."""

    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}

    def learn(self, original: Any, replay: Any) -> None:
        """Compare an original response with its replay counterpart; remember echoed values that changed."""
        if isinstance(original, dict) and isinstance(replay, dict):
            for key, value in original.items():
                other = replay.get(key)
                if (
                    key in ECHOED_KEYS
                    and isinstance(value, str)
                    and isinstance(other, str)
                    and value != other
                ):
                    self.mapping[value] = other
                else:
                    self.learn(value, other)
        elif isinstance(original, list) and isinstance(replay, list):
            for a, b in zip(original, replay, strict=False):
                self.learn(a, b)

    def apply(self, raw: bytes) -> bytes:
        """The message with every learned original value replaced (as whole JSON strings)."""
        for old, new in self.mapping.items():
            encoded_old = orjson.dumps(old)
            if encoded_old in raw:
                raw = raw.replace(encoded_old, orjson.dumps(new))
        return raw
