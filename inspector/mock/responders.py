"""How the mock client answers the server's requests without a person, and what it refuses to send.

A `Responder` per method: `manual` (the inbox), `fixed` (a configured
result), `reject` (an error, by default -1 "rejected by the user") or
`recorded` (the answer the client gave to the matching server request of a
recorded session, found with the replay's `AnswerBook`; when nothing
matches, `fallback` says whether to reject or to ask a person).

Without a responder, `ping` is answered at once and `roots/list` from the
workspace's roots list when one is set; everything else waits in the inbox.

`answer_problems` checks an answer before it is sent: a sampling reply
against the spec's rules (`sampling_rules`), an accepted form elicitation
against the requested schema, a roots list against the root rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine

from inspector.mock import sampling_rules
from inspector.replay.matching import AnswerBook, MatchPolicy
from inspector.replay.plan import plan_replay
from inspector.store import get_session, iter_messages

__all__ = [
    "MODES",
    "REJECTED",
    "Responder",
    "answer_problems",
    "automatic_answer",
    "load_recorded",
    "validate_roots",
]

MODES = ("manual", "fixed", "reject", "recorded")
FALLBACKS = ("reject", "manual")
REJECTED = {"code": -1, "message": "rejected by the user"}
ELICIT_ACTIONS = ("accept", "decline", "cancel")


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


def load_recorded(engine: Engine, responder: Responder) -> AnswerBook:
    """The answers the client of a recorded session gave to its server's requests (LookupError: no session)."""
    if responder.book is None:
        assert responder.session_id is not None
        get_session(engine, responder.session_id)
        rows = list(iter_messages(engine, responder.session_id))
        responder.book = plan_replay(rows, MatchPolicy(responder.match, responder.ignore)).answers
    return responder.book


def automatic_answer(
    engine: Engine, responder: Responder | None, method: str, params: Any, roots: list[dict[str, Any]] | None
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


def validate_roots(roots: Any) -> list[dict[str, Any]]:
    """Roots as the spec wants them (a `file://` URI each, an optional string name); ValueError otherwise."""
    if not isinstance(roots, list):
        raise ValueError("roots must be a list of {uri, name?} objects")
    out: list[dict[str, Any]] = []
    for i, root in enumerate(roots):
        if not isinstance(root, dict) or not isinstance(root.get("uri"), str):
            raise ValueError(f"roots[{i}]: each root needs a uri string")
        uri = root["uri"]
        parts = urlsplit(uri)
        if parts.scheme != "file" or not parts.path.startswith("/"):
            raise ValueError(f"roots[{i}]: {uri!r} is not a file:// URI with an absolute path")
        name = root.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"roots[{i}]: name must be a string")
        extra = set(root) - {"uri", "name", "_meta"}
        if extra:
            raise ValueError(f"roots[{i}]: unknown field(s) {', '.join(sorted(extra))}")
        out.append({"uri": uri, **({"name": name} if name else {})})
    return out


def answer_problems(method: str, params: Any, answer: dict[str, Any], capabilities: Any) -> list[str]:
    """Why this answer must not be sent (an error answer is always fine)."""
    if "result" not in answer:
        return []
    result = answer["result"]
    if method == "sampling/createMessage":
        return sampling_rules.reply_problems(result, params, capabilities)
    if method == "roots/list":
        try:
            validate_roots(result.get("roots") if isinstance(result, dict) else None)
        except ValueError as exc:
            return [str(exc)]
        return []
    if method == "elicitation/create":
        return _elicit_problems(params if isinstance(params, dict) else {}, result)
    return []


def _elicit_problems(params: dict[str, Any], result: Any) -> list[str]:
    if not isinstance(result, dict) or result.get("action") not in ELICIT_ACTIONS:
        return [f"action must be one of {', '.join(ELICIT_ACTIONS)}"]
    url_mode = params.get("mode") == "url"
    content = result.get("content")
    if result["action"] != "accept" or url_mode:
        return ["content is only sent with an accepted form"] if content is not None else []
    if not isinstance(content, dict):
        return ["an accepted form needs its content (an object)"]
    problems = sampling_rules.schema_problems(content, params.get("requestedSchema"))
    return [f"content {p}" for p in problems]
