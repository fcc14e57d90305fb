"""The control channel's request bodies, checked: sans-IO, a body in, what to do out.

A resolution of a paused message (forward, drop, edit with `raw` JSON text,
respond with `result`, `error` or `raw`) becomes the action and the bytes to
send, framed like the held message; a rule body becomes a `Rule`; the switches
their booleans. A refusal is a `ControlError` carrying the HTTP status the
channel answers with. `engine.Commands` applies them to an `Interceptor`; the
channel itself (the loopback listener, its token, its announcement) is
`inspector.control.server`, which reaches them through `Interceptor.commands`.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError

from inspector.errors import ControlError
from inspector.intercept.match import Seen
from inspector.intercept.rules import HTTP_ONLY_ACTIONS, Rule

__all__ = ["ACTIONS", "frame_like", "one_switch", "reply_to", "resolution", "rule_for", "sent_for"]

ACTIONS = ("forward", "drop", "edit", "respond")


def frame_like(original: bytes, obj: Any) -> bytes:
    """`obj` as compact JSON framed like `original`: the same line terminator (a stdio line keeps
    its newline; an HTTP body or SSE data has none), never a newline inside (NDJSON)."""
    body = orjson.dumps(obj)
    for end in (b"\r\n", b"\n"):
        if original.endswith(end):
            return body + end
    return body


def reply_to(rpc_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-RPC response the inspector sends in the peer's place."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result if result is not None else {}
    return message


def resolution(body: dict[str, Any]) -> str:
    """The action a resolution names (its fields checked)."""
    action = body.get("action")
    if action not in ACTIONS:
        raise ControlError(422, f"`action` must be one of {', '.join(ACTIONS)}")
    extra = set(body) - {"action", "raw", "result", "error"}
    if extra:
        raise ControlError(422, f"unknown field(s) {sorted(extra)}: action, raw, result, error")
    return str(action)


def sent_for(seen: Seen, action: str, body: dict[str, Any]) -> bytes | None:
    """The bytes a resolution sends in place of held message `seen` (None: the message itself, or nothing)."""
    if action == "edit":
        return frame_like(seen.raw, _parse_json_text(body.get("raw"), "edit"))
    if action == "respond":
        if seen.kind != "request" or seen.rpc_id is None:
            raise ControlError(409, f"only a request can be answered; this message is a {seen.kind}")
        given = [k for k in ("raw", "result", "error") if body.get(k) is not None]
        if len(given) != 1:
            raise ControlError(422, "respond takes exactly one of `result`, `error` or `raw`")
        rpc_id = seen.obj.get("id") if isinstance(seen.obj, dict) else seen.rpc_id  # as sent: 1, not "1"
        if given[0] == "raw":
            reply = _parse_json_text(body["raw"], "respond")
        elif given[0] == "error":
            reply = reply_to(rpc_id, error=_check_error(body["error"]))
        else:
            reply = reply_to(rpc_id, result=body["result"])
        return frame_like(seen.raw, reply)
    if body.get("raw") is not None:
        raise ControlError(422, f"{action} takes no `raw` (use edit to change the message)")
    return None


def rule_for(body: dict[str, Any], kind: str) -> Rule:
    """The rule a body describes, for a process of `kind` (a stdio wrap takes no HTTP-only action)."""
    try:
        rule = Rule.model_validate(body)
    except ValidationError as exc:
        raise ControlError(422, f"not a rule: {_first_error(exc)}") from None
    if "wrap" in kind and rule.action in HTTP_ONLY_ACTIONS:  # stdio-wrap
        raise ControlError(422, f"action {rule.action} applies to HTTP only (proxy), not to a stdio wrap")
    return rule


def one_switch(body: dict[str, Any], key: str) -> bool:
    """The value of a body that is exactly `{key: true|false}`."""
    value = body.get(key)
    if type(value) is not bool or set(body) != {key}:
        raise ControlError(422, f'the body must be {{"{key}": true|false}}')
    return value


def _parse_json_text(text: Any, what: str) -> Any:
    if not isinstance(text, str) or not text.strip():
        raise ControlError(422, f"{what} needs `raw`: the message as JSON text")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ControlError(422, f"`raw` is not valid JSON: {exc}") from None


def _check_error(error: Any) -> dict[str, Any]:
    if not isinstance(error, dict):
        raise ControlError(422, "`error` must be an object {code, message, data?}")
    code, message = error.get("code"), error.get("message")
    if type(code) is not int:
        raise ControlError(422, "`error.code` must be an integer (a JSON-RPC error code)")
    if not isinstance(message, str):
        raise ControlError(422, "`error.message` must be a string")
    extra = set(error) - {"code", "message", "data"}
    if extra:
        raise ControlError(422, f"`error` takes code, message and data only, not {sorted(extra)}")
    return error


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "rule"
    return f"{where}: {err.get('msg', 'invalid')}"
