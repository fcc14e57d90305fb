"""Does an exchange of a server-to-client request follow the spec (2025-11-25 client features)? Sans-IO.

One home for the rules both the mock client (refusing a person's answer
before it is sent, flagging the server's request) and `mcp-inspect serve`
(judging a real client's answer) apply:

- `check_request(method, params, capabilities)`: what the server's request
  breaks or assumes of the client (capabilities not declared, elicitation
  modes the client does not support, the sampling request's shape and
  tool-use balance).
- `check_answer(method, params, answer, capabilities)`: what the client's
  JSON-RPC answer (`{result}` or `{error}`; None: none in time) breaks:
  sampling (`sampling_rules`), elicitation action and content against the
  requested schema (formats included), roots as `file://` URIs, ping empty.
- `check_exchange`: both, request first.
- `valid_roots(roots)`: a roots list normalised, or ValueError naming what
  is wrong (for roots a person configures).
- `openable_url(url)`: whether a URL elicitation's URL may be opened at all
  (http or https with a host; `javascript:`, `data:`, `file:` are shown only).

Each returns `Finding`s: level `error` for a MUST of the spec, `warning` for
a SHOULD (or for what the spec only describes).
"""

from __future__ import annotations

from typing import Any

from inspector.protocol import sampling_rules
from inspector.protocol.rule_findings import ERROR, WARNING, Finding, schema_error, schema_findings, split_uri

__all__ = ["Finding", "check_answer", "check_exchange", "check_request", "openable_url", "valid_roots"]

SAMPLING, ELICIT, ROOTS = "sampling/createMessage", "elicitation/create", "roots/list"
ELICIT_ACTIONS = ("accept", "decline", "cancel")
PRIMITIVES = ("string", "number", "integer", "boolean")


def check_request(method: str, params: Any, capabilities: Any) -> list[Finding]:
    """What the server's request breaks, or assumes of a client with these capabilities."""
    caps = capabilities if isinstance(capabilities, dict) else {}
    if method == SAMPLING:
        return sampling_rules.request_findings(params, caps)
    if method == ELICIT:
        return _elicit_request(params if isinstance(params, dict) else {}, caps)
    if method == ROOTS and caps.get("roots") is None:
        return [Finding(WARNING, "roots.capability", "the client did not declare the roots capability")]
    return []


def check_answer(method: str, params: Any, answer: dict[str, Any] | None, capabilities: Any) -> list[Finding]:
    """What the client's answer breaks."""
    if answer is None:
        return [Finding(ERROR, "answer.timeout", "the client did not answer in time")]
    if "error" in answer:
        err = answer["error"]
        if isinstance(err, dict) and isinstance(err.get("code"), int) and isinstance(err.get("message"), str):
            return []
        return [
            Finding(
                ERROR, "answer.error-shape", "a JSON-RPC error needs an integer code and a message string"
            )
        ]
    result = answer.get("result")
    if not isinstance(result, dict):
        return [Finding(ERROR, "answer.result", "the result must be an object")]
    if method == SAMPLING:
        return sampling_rules.reply_findings(result, params, capabilities)
    if method == ELICIT:
        return _elicit_answer(params if isinstance(params, dict) else {}, result)
    if method == ROOTS:
        return _roots(result.get("roots"))
    if method == "ping" and set(result) - {"_meta"}:
        return [Finding(ERROR, "ping.empty", "the answer to ping must be an empty result")]
    return []


def check_exchange(
    method: str, params: Any, answer: dict[str, Any] | None, capabilities: Any
) -> list[Finding]:
    return check_request(method, params, capabilities) + check_answer(method, params, answer, capabilities)


def _elicit_modes(declared: Any) -> set[str]:
    if not isinstance(declared, dict):
        return set()
    return {m for m in ("form", "url") if isinstance(declared.get(m), dict)} or {"form"}  # {}: form only


def _elicit_request(params: dict[str, Any], caps: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    mode = params.get("mode", "form")
    if mode not in ("form", "url"):
        return [Finding(ERROR, "elicitation.mode", f'mode must be "form" or "url", got {mode!r}')]
    if caps.get("elicitation") is None:
        out.append(
            Finding(
                WARNING, "elicitation.capability", "the client did not declare the elicitation capability"
            )
        )
    elif mode not in _elicit_modes(caps["elicitation"]):
        out.append(
            Finding(
                ERROR,
                "elicitation.mode-capability",
                f"{mode} mode sent, but the client did not declare elicitation.{mode}",
            )
        )
    if not isinstance(params.get("message"), str):
        out.append(Finding(ERROR, "elicitation.message", "message (a string) is required"))
    if mode == "url":
        url = params.get("url")
        parts = split_uri(url)
        if parts is None:
            out.append(Finding(ERROR, "elicitation.url", f"url must be a valid absolute URL, got {url!r}"))
        elif not openable_url(url):
            # The spec: the client MUST open the URL "in a secure manner"; javascript:, data: or file:
            # would run or read in the browser itself, so the inspector shows them and never opens them.
            out.append(
                Finding(
                    ERROR,
                    "elicitation.url-scheme",
                    f"only http(s) URLs with a host are opened; {parts[0]}: is shown, never opened",
                )
            )
        if not isinstance(params.get("elicitationId"), str) or not params.get("elicitationId"):
            out.append(Finding(ERROR, "elicitation.id", "a URL mode request needs an elicitationId string"))
        return out
    return out + _requested_schema(params.get("requestedSchema"))


def openable_url(url: Any) -> bool:
    """An http(s) URL with a host: the only kind a URL elicitation may open (the spec: "in a secure manner")."""
    parts = split_uri(url)
    return parts is not None and parts[0].lower() in ("http", "https") and bool(parts[1])


def _requested_schema(schema: Any) -> list[Finding]:
    rule = "elicitation.requested-schema"
    if not isinstance(schema, dict):
        return [Finding(ERROR, rule, "a form mode request needs a requestedSchema object")]
    if (why := schema_error(schema)) is not None:
        return [Finding(ERROR, rule, f"requestedSchema is not a valid JSON Schema: {why}")]
    if schema.get("type") != "object":
        return [Finding(ERROR, rule, 'requestedSchema must be of type "object"')]
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if kind == "array":
            items = prop.get("items")
            flat = isinstance(items, dict) and ("enum" in items or "anyOf" in items)
        else:
            flat = kind in PRIMITIVES
        if not flat:
            out.append(
                Finding(
                    WARNING, rule, f"property {name!r} is not a primitive (string, number, boolean, enum)"
                )
            )
    return out


def _elicit_answer(params: dict[str, Any], result: dict[str, Any]) -> list[Finding]:
    action = result.get("action")
    if action not in ELICIT_ACTIONS:
        return [
            Finding(
                ERROR,
                "elicitation.action",
                f"action must be one of {', '.join(ELICIT_ACTIONS)}, got {action!r}",
            )
        ]
    mode = params.get("mode") or "form"
    content = result.get("content")
    if action != "accept" or mode == "url":
        if content is None:
            return []
        return [
            Finding(
                WARNING,
                "elicitation.content",
                f"content is only sent with an accepted form (here: {action} in {mode} mode)",
            )
        ]
    if not isinstance(content, dict):
        return [
            Finding(ERROR, "elicitation.content", "an accepted form answer needs its content (an object)")
        ]
    out = [
        Finding(ERROR, "elicitation.primitive", f"content/{key} is not a primitive value")
        for key, value in content.items()
        if not (
            isinstance(value, str | int | float | bool)
            or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        )
    ]
    return out + schema_findings(
        content, params.get("requestedSchema"), ERROR, "elicitation.schema", "content"
    )


def _roots(roots: Any) -> list[Finding]:
    if not isinstance(roots, list):
        return [Finding(ERROR, "roots.list", "roots must be a list of {uri, name?} objects")]
    out: list[Finding] = []
    for i, root in enumerate(roots):
        uri = root.get("uri") if isinstance(root, dict) else None
        parts = split_uri(uri)
        if parts is None or parts[0] != "file" or not parts[2].startswith("/"):
            out.append(
                Finding(
                    ERROR, "roots.file-uri", f"roots[{i}]: {uri!r} is not a file:// URI with an absolute path"
                )
            )
        if not isinstance(root, dict):
            continue
        if root.get("name") is not None and not isinstance(root["name"], str):
            out.append(Finding(ERROR, "roots.name", f"roots[{i}]: name must be a string"))
        if extra := sorted(set(root) - {"uri", "name", "_meta"}):
            out.append(
                Finding(
                    WARNING,
                    "roots.fields",
                    f"roots[{i}]: field(s) the spec does not define: {', '.join(extra)}",
                )
            )
    return out


def valid_roots(roots: Any) -> list[dict[str, Any]]:
    """`roots` as `{uri, name?}` objects, or ValueError naming every problem (errors and warnings)."""
    found = _roots(roots)
    if found:
        raise ValueError("; ".join(f.describe() for f in found))
    return [{"uri": r["uri"], **({"name": r["name"]} if r.get("name") else {})} for r in roots]
