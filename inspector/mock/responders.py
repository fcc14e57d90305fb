"""How the mock client answers the server's requests without a person, and what it refuses to send.

A `Responder` per method: `manual` (the inbox), `fixed` (a configured
result), `reject` (an error, by default -1 "rejected by the user") or
`recorded` (the answer the client gave to the matching server request of a
recorded session, found with the replay's `AnswerBook`; when nothing
matches, `fallback` says whether to reject or to ask a person).

Without a responder, `ping` is answered at once and `roots/list` from the
workspace's roots list when one is set; everything else waits in the inbox.
What a person's answer must not break is `inspector.protocol.client_answers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.replay.matching import AnswerBook
    from inspector.store.db import Store

__all__ = [
    "MODES",
    "REJECTED",
    "Responder",
    "automatic_answer",
    "load_recorded",
]

MODES = ("manual", "fixed", "reject", "recorded")
FALLBACKS = ("reject", "manual")
REJECTED = {"code": -1, "message": "rejected by the user"}


@dataclass
class Responder:
    """How one kind of server request is answered."""

    mode: str = "manual"  # manual | fixed | reject | recorded
    answer: Any = None  # the result for `fixed`
    error: dict[str, Any] | None = None  # the error for `reject` (default: code -1, user rejected)
    session_id: int | None = None  # `recorded`: the session whose answers are reused
    match: str = "strict"  # `recorded`: MatchPolicy mode
    ignore: tuple[str, ...] = ()  # `recorded`: params paths left out of matching
    fallback: str = "reject"  # `recorded`, nothing matched: reject | manual
    book: AnswerBook | None = field(default=None, repr=False)  # loaded once per responder

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"responder mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.fallback not in FALLBACKS:
            raise ValueError(f"fallback must be reject or manual, got {self.fallback!r}")
        if self.mode == "recorded" and self.session_id is None:
            raise ValueError("a recorded responder needs the session_id of a recorded session")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode, "answer": self.answer, "error": self.error}
        if self.mode == "recorded":
            out.update(
                session_id=self.session_id, match=self.match, ignore=list(self.ignore), fallback=self.fallback
            )
        return out


def load_recorded(engine: Store, responder: Responder) -> AnswerBook:
    """The answers the client of a recorded session gave to its server's requests (LookupError: no session).
    The replay's matching is imported here: a client without a `recorded` responder never loads it."""
    if responder.book is None:
        from inspector.replay.matching import MatchPolicy
        from inspector.replay.plan import plan_replay
        from inspector.store import get_session, iter_messages

        assert responder.session_id is not None
        get_session(engine, responder.session_id)
        rows = list(iter_messages(engine, responder.session_id))
        responder.book = plan_replay(rows, MatchPolicy(responder.match, responder.ignore)).answers
    return responder.book


def automatic_answer(
    engine: Store, responder: Responder | None, method: str, params: Any, roots: list[dict[str, Any]] | None
) -> tuple[str, dict[str, Any]] | None:
    """(who answered, {"result"} or {"error"}) when no person is needed; None to ask a person."""
    if responder is None:
        if method == "ping":
            return "auto (ping)", {"result": {}}
        if method == "roots/list" and roots is not None:
            return "auto (workspace roots)", {"result": {"roots": roots}}
        return None
    if responder.mode == "fixed":
        return "fixed", {"result": responder.answer}
    if responder.mode == "reject":
        return "reject", {"error": responder.error or dict(REJECTED)}
    if responder.mode == "recorded":
        book = load_recorded(engine, responder)
        found, message = book.take(method, params)
        if found and isinstance(message, dict) and ("result" in message or "error" in message):
            key = "result" if "result" in message else "error"
            return f"recorded (session {responder.session_id})", {key: message[key]}
        if responder.fallback == "manual":
            return None
        miss = book.miss(method, params)
        error = {"code": REJECTED["code"], "message": miss.message(), "data": miss.data()}
        return f"recorded (session {responder.session_id}): no match, rejected", {"error": error}
    return None
