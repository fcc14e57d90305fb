"""Does a client's answer to a server-to-client request follow the spec? Sans-IO.

`check_answer(method, params, answer, client_capabilities)` returns findings
(`Finding(level, rule, text)`, level `error` for a MUST, `warning` for a
SHOULD) about the client's answer to `sampling/createMessage`,
`elicitation/create`, `roots/list` or `ping` (2025-11-25 client features):
sampling content and stop reason, tool_use/tool_result balance and toolChoice;
an elicitation answer's action and content against the requested schema;
roots as `file://` URIs. Also what the request itself assumed of the client
(capabilities declared). Kept in one module so the mock client's sampling
rules can be unified with it later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import jsonschema

__all__ = ["Finding", "check_answer", "check_sampling_messages"]


@dataclass(frozen=True)
class Finding:
    level: str  # error | warning
    rule: str
    text: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def check_sampling_messages(messages: Any) -> list[Finding]:
    """Tool use balance in a conversation: each assistant tool_use answered by the next user message,
    which holds only tool_result blocks whose toolUseIds match."""
    out: list[Finding] = []
    if not isinstance(messages, list):
        return [Finding("error", "sampling.messages", "messages must be a list")]
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        blocks = _blocks(message.get("content"))
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results and len(results) != len(blocks):
            out.append(
                Finding(
                    "error",
                    "sampling.tool-result-only",
                    f"messages[{i}] mixes tool_result with other content",
                )
            )
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        if message.get("role") != "assistant" or not uses:
            continue
        follow = messages[i + 1] if i + 1 < len(messages) and isinstance(messages[i + 1], dict) else None
        if follow is None:
            continue  # the conversation ends with the tool use: the caller is to answer it
        answered = {
            b.get("toolUseId") for b in _blocks(follow.get("content")) if b.get("type") == "tool_result"
        }
        missing = [u.get("id") for u in uses if u.get("id") not in answered]
        if follow.get("role") != "user" or missing:
            out.append(
                Finding(
                    "error",
                    "sampling.tool-balance",
                    f"tool_use {missing or '(all)'} of messages[{i}] not answered by tool_result in messages[{i + 1}]",
                )
            )
    return out


def _sampling(params: dict[str, Any], result: dict[str, Any], caps: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    if params.get("tools") and (caps.get("sampling") or {}).get("tools") is None:
        out.append(
            Finding(
                "warning",
                "sampling.tools-capability",
                "tools were sent although the client did not declare sampling.tools",
            )
        )
    if result.get("role") != "assistant":
        out.append(Finding("error", "sampling.role", f"role must be assistant, got {result.get('role')!r}"))
    if not isinstance(result.get("model"), str):
        out.append(Finding("error", "sampling.model", "model (the name of the model used) is missing"))
    blocks = _blocks(result.get("content"))
    if not blocks:
        out.append(Finding("error", "sampling.content", "content is missing"))
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    stop = result.get("stopReason")
    if uses and stop != "toolUse":
        out.append(
            Finding(
                "warning",
                "sampling.stop-reason",
                f"tool_use content with stopReason {stop!r} (expected toolUse)",
            )
        )
    if stop == "toolUse" and not uses:
        out.append(Finding("error", "sampling.stop-reason", "stopReason toolUse without tool_use content"))
    offered = {t.get("name") for t in params.get("tools") or [] if isinstance(t, dict)}
    for use in uses:
        if not params.get("tools"):
            out.append(
                Finding("error", "sampling.tool-not-offered", "tool_use although no tools were offered")
            )
            break
        if use.get("name") not in offered:
            out.append(
                Finding(
                    "error",
                    "sampling.tool-not-offered",
                    f"tool_use of {use.get('name')!r}, not an offered tool",
                )
            )
        if not use.get("id"):
            out.append(Finding("error", "sampling.tool-use-id", "tool_use without an id"))
    mode = (params.get("toolChoice") or {}).get("mode")
    if mode == "none" and uses:
        out.append(Finding("error", "sampling.tool-choice", "toolChoice none, but the answer uses a tool"))
    if mode == "required" and params.get("tools") and not uses:
        out.append(
            Finding("warning", "sampling.tool-choice", "toolChoice required, but the answer uses no tool")
        )
    # The request's own conversation (composed by hand in the UI) must be balanced too.
    return out + (check_sampling_messages(params["messages"]) if "messages" in params else [])


def _elicitation(params: dict[str, Any], result: dict[str, Any], caps: dict[str, Any]) -> list[Finding]:
    out: list[Finding] = []
    mode = params.get("mode") or "form"
    declared = caps.get("elicitation")
    if declared is None:
        out.append(
            Finding(
                "warning", "elicitation.capability", "the client did not declare the elicitation capability"
            )
        )
    elif mode == "url" and "url" not in declared:
        out.append(
            Finding(
                "warning",
                "elicitation.url-capability",
                "URL mode sent, but the client did not declare elicitation.url",
            )
        )
    action = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        return [
            *out,
            Finding(
                "error", "elicitation.action", f"action must be accept, decline or cancel, got {action!r}"
            ),
        ]
    content = result.get("content")
    if action != "accept" or mode == "url":
        if content is not None:
            out.append(
                Finding("warning", "elicitation.content", f"content sent with action {action} in {mode} mode")
            )
        return out
    if not isinstance(content, dict):
        return [
            *out,
            Finding("error", "elicitation.content", "an accepted form answer needs content (an object)"),
        ]
    for key, value in content.items():
        flat = isinstance(value, str | int | float | bool) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
        if not flat:
            out.append(Finding("error", "elicitation.primitive", f"content.{key} is not a primitive value"))
    schema = params.get("requestedSchema")
    if isinstance(schema, dict):
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
        for err in validator.iter_errors(content):
            where = ".".join(str(p) for p in err.absolute_path) or "content"
            out.append(Finding("error", "elicitation.schema", f"{where}: {err.message}"))
    return out


def _roots(result: dict[str, Any]) -> list[Finding]:
    roots = result.get("roots")
    if not isinstance(roots, list):
        return [Finding("error", "roots.list", "roots must be a list")]
    out = []
    for i, root in enumerate(roots):
        uri = root.get("uri") if isinstance(root, dict) else None
        if not isinstance(uri, str) or not uri.startswith("file://"):
            out.append(
                Finding("error", "roots.file-uri", f"roots[{i}].uri must be a file:// URI, got {uri!r}")
            )
        if isinstance(root, dict) and "name" in root and not isinstance(root["name"], str):
            out.append(Finding("error", "roots.name", f"roots[{i}].name must be a string"))
    return out


def check_answer(
    method: str,
    params: dict[str, Any] | None,
    answer: dict[str, Any] | None,
    capabilities: dict[str, Any] | None = None,
) -> list[Finding]:
    """Findings about the client's JSON-RPC answer (`{result}` or `{error}`, None: no answer in time)."""
    params, caps = params or {}, capabilities or {}
    if answer is None:
        return [Finding("error", "answer.timeout", "the client did not answer in time")]
    if "error" in answer:
        err = answer["error"]
        if not (
            isinstance(err, dict) and isinstance(err.get("code"), int) and isinstance(err.get("message"), str)
        ):
            return [
                Finding("error", "answer.error-shape", "a JSON-RPC error needs an integer code and a message")
            ]
        return []
    result = answer.get("result")
    if not isinstance(result, dict):
        return [Finding("error", "answer.result", "the result must be an object")]
    if method == "sampling/createMessage":
        if caps.get("sampling") is None:
            return [
                Finding("warning", "sampling.capability", "the client did not declare sampling"),
                *_sampling(params, result, caps),
            ]
        return _sampling(params, result, caps)
    if method == "elicitation/create":
        return _elicitation(params, result, caps)
    if method == "roots/list":
        found = _roots(result)
        return (
            found
            if caps.get("roots") is not None
            else [Finding("warning", "roots.capability", "the client did not declare roots"), *found]
        )
    return []
