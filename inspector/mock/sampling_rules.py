"""The spec's rules for `sampling/createMessage` (2025-11-25, sampling with tools), without IO.

`request_problems` checks what a server sent: tools only to a client that
declared `sampling.tools`, a `toolChoice` only with tools, and the tool-use
balance of the conversation (every assistant message with `tool_use` blocks
is followed by a user message made only of `tool_result` blocks answering
each of them, and tool results appear nowhere else).

`reply_problems` checks an answer before it is sent: an assistant message
with a model name; `tool_use` blocks only when the request offered tools and
the client declared `sampling.tools`, each naming an offered tool, with a
unique id and an input valid against the tool's `inputSchema`; the
`toolChoice` mode respected; `stopReason` consistent with the content
(`toolUse` exactly when there are tool_use blocks).

Both return readable sentences; an empty list means no problem.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

__all__ = ["blocks", "declares_sampling_tools", "reply_problems", "request_problems", "schema_problems"]

REPLY_BLOCKS = {"text", "image", "audio", "tool_use"}


def blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a single block or an array)."""
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def declares_sampling_tools(capabilities: Any) -> bool:
    sampling = capabilities.get("sampling") if isinstance(capabilities, dict) else None
    return isinstance(sampling, dict) and isinstance(sampling.get("tools"), dict)


def _offers_tools(params: dict[str, Any]) -> bool:
    return bool(params.get("tools"))


def request_problems(params: Any, capabilities: Any) -> list[str]:
    """What is wrong with a sampling request the server sent to a client with these capabilities."""
    if not isinstance(params, dict):
        return ["params is not an object"]
    out: list[str] = []
    if (_offers_tools(params) or params.get("toolChoice") is not None) and not declares_sampling_tools(
        capabilities
    ):
        out.append(
            "the server sent tools/toolChoice to a client that did not declare the sampling.tools capability"
        )
    if params.get("toolChoice") is not None and not _offers_tools(params):
        out.append("toolChoice is set but no tools are offered")
    messages = params.get("messages")
    if not isinstance(messages, list) or not messages:
        out.append("messages is missing or empty")
        return out
    out.extend(_balance_problems(messages))
    return out


def _balance_problems(messages: list[Any]) -> list[str]:
    out: list[str] = []
    expected: set[str] | None = None  # tool_use ids the next message must answer
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        content = blocks(message.get("content")) if isinstance(message, dict) else []
        types = [b.get("type") for b in content]
        results = {str(b.get("toolUseId")) for b in content if b.get("type") == "tool_result"}
        if "tool_result" in types:
            if role != "user":
                out.append(f"messages[{i}]: tool_result blocks must be in a user message")
            if any(t != "tool_result" for t in types):
                out.append(f"messages[{i}]: a message with tool results must contain only tool results")
            if expected is None:
                out.append(f"messages[{i}]: tool results that follow no assistant tool_use")
            else:
                missing, extra = sorted(expected - results), sorted(results - expected)
                if missing:
                    out.append(f"messages[{i}]: no tool_result for tool_use id {', '.join(missing)}")
                if extra:
                    out.append(f"messages[{i}]: tool_result for unknown tool_use id {', '.join(extra)}")
            expected = None
            continue
        if expected is not None:
            out.append(
                f"messages[{i}]: the tool_use of messages[{i - 1}] must be followed by a user message "
                "of tool results"
            )
            expected = None
        uses = [b for b in content if b.get("type") == "tool_use"]
        if uses:
            if role != "assistant":
                out.append(f"messages[{i}]: tool_use blocks must be in an assistant message")
            expected = {str(b.get("id")) for b in uses}
    if expected is not None:
        out.append(
            f"messages[{len(messages) - 1}]: tool_use {', '.join(sorted(expected))} has no tool_result"
        )
    return out


def reply_problems(result: Any, params: Any, capabilities: Any) -> list[str]:
    """What is wrong with `result` as the answer to a sampling request with `params`."""
    if not isinstance(result, dict):
        return ["the reply must be an object (a CreateMessageResult)"]
    params = params if isinstance(params, dict) else {}
    out: list[str] = []
    if result.get("role") != "assistant":
        out.append('role must be "assistant"')
    if not isinstance(result.get("model"), str) or not result.get("model"):
        out.append("model must be a non-empty string")
    content = blocks(result.get("content"))
    if not content:
        out.append("content must be a block or a non-empty array of blocks")
    for i, block in enumerate(content):
        if block.get("type") not in REPLY_BLOCKS:
            out.append(f"content[{i}]: type {block.get('type')!r} is not allowed in a reply")
        elif block.get("type") == "text" and not isinstance(block.get("text"), str):
            out.append(f"content[{i}]: a text block needs a text string")
    uses = [b for b in content if b.get("type") == "tool_use"]
    stop = result.get("stopReason")
    if stop is not None and not isinstance(stop, str):
        out.append("stopReason must be a string")
    if uses:
        out.extend(_tool_use_problems(uses, params, capabilities))
        if stop != "toolUse":
            out.append('a reply with tool_use blocks must have stopReason "toolUse"')
    elif stop == "toolUse":
        out.append('stopReason "toolUse" needs at least one tool_use block')
    mode = (
        (params.get("toolChoice") or {}).get("mode") if isinstance(params.get("toolChoice"), dict) else None
    )
    if mode == "required" and not uses:
        out.append('toolChoice mode "required": the reply must use at least one tool')
    return out


def _tool_use_problems(uses: list[dict[str, Any]], params: dict[str, Any], capabilities: Any) -> list[str]:
    out: list[str] = []
    if not _offers_tools(params):
        return ["tool_use blocks, but the request offered no tools"]
    if not declares_sampling_tools(capabilities):
        out.append("tool_use blocks need the sampling.tools capability, which this client did not declare")
    mode = params["toolChoice"].get("mode") if isinstance(params.get("toolChoice"), dict) else None
    if mode == "none":
        out.append('toolChoice mode "none": the reply must not use tools')
    tools = {t.get("name"): t for t in params["tools"] if isinstance(t, dict)}
    seen: set[str] = set()
    for block in uses:
        name, bid = block.get("name"), block.get("id")
        label = f"tool_use {bid!r}"
        if not isinstance(bid, str) or not bid:
            out.append("every tool_use needs a non-empty id")
        elif bid in seen:
            out.append(f"{label}: duplicate id")
        else:
            seen.add(bid)
        if name not in tools:
            out.append(f"{label}: {name!r} is not one of the offered tools ({', '.join(map(str, tools))})")
            continue
        if not isinstance(block.get("input"), dict):
            out.append(f"{label}: input must be an object")
            continue
        out.extend(f"{label}: {p}" for p in schema_problems(block["input"], tools[name].get("inputSchema")))
    return out


def schema_problems(value: Any, schema: Any) -> list[str]:
    """`value` checked against a JSON Schema (2020-12), one sentence per error."""
    if not isinstance(schema, dict):
        return []
    try:
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except SchemaError as exc:
        return [f"the schema itself is invalid: {exc.message}"]
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors]
