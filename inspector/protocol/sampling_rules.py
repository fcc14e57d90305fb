"""The spec's rules for `sampling/createMessage` (2025-11-25, sampling with tools). Sans-IO.

`request_findings` judges what the server sent: the capabilities it
assumed (`sampling`, `sampling.tools` for tools and toolChoice,
`sampling.context` for includeContext), the request's shape, and the
conversation's tool-use balance (every assistant message with `tool_use`
blocks is followed by a user message made only of `tool_result` blocks
answering each of them; tool results appear nowhere else).

`reply_findings` judges the client's `CreateMessageResult`: an assistant
message with a model name and well-formed blocks; `tool_use` blocks only
when tools were offered and `sampling.tools` declared, each naming an
offered tool, with a unique id and an input valid against its
`inputSchema`; the `toolChoice` mode respected; `stopReason` consistent
with the content.
"""

from __future__ import annotations

from typing import Any

from inspector.protocol.rule_findings import ERROR, WARNING, Finding, blocks, schema_findings

__all__ = ["declares_sampling_tools", "reply_findings", "request_findings"]

REPLY_BLOCKS = ("text", "image", "audio", "tool_use")
TOOL_CHOICES = ("auto", "required", "none")


def declares_sampling_tools(capabilities: Any) -> bool:
    sampling = capabilities.get("sampling") if isinstance(capabilities, dict) else None
    return isinstance(sampling, dict) and isinstance(sampling.get("tools"), dict)


def _sampling_cap(capabilities: Any) -> Any:
    return capabilities.get("sampling") if isinstance(capabilities, dict) else None


def _mode(params: dict[str, Any]) -> Any:
    choice = params.get("toolChoice")
    return choice.get("mode") if isinstance(choice, dict) else None


def request_findings(params: Any, capabilities: Any) -> list[Finding]:
    """What a sampling request sent to a client with these capabilities breaks."""
    if not isinstance(params, dict):
        return [Finding(ERROR, "sampling.params", "params must be an object")]
    out: list[Finding] = []
    cap = _sampling_cap(capabilities)
    if cap is None:
        out.append(
            Finding(WARNING, "sampling.capability", "the client did not declare the sampling capability")
        )
    offers = bool(params.get("tools"))
    choice = params.get("toolChoice")
    if (offers or choice is not None) and not declares_sampling_tools(capabilities):
        out.append(
            Finding(
                ERROR,
                "sampling.tools-capability",
                "the server sent tools/toolChoice to a client that did not declare the sampling.tools capability",
            )
        )
    if choice is not None:
        if _mode(params) not in TOOL_CHOICES:
            out.append(
                Finding(
                    ERROR, "sampling.tool-choice", f"toolChoice mode must be one of {', '.join(TOOL_CHOICES)}"
                )
            )
        if not offers:
            out.append(Finding(WARNING, "sampling.tool-choice", "toolChoice is set but no tools are offered"))
    if params.get("includeContext") in ("thisServer", "allServers") and not (
        isinstance(cap, dict) and isinstance(cap.get("context"), dict)
    ):
        out.append(
            Finding(
                WARNING,
                "sampling.include-context",
                f"includeContext {params['includeContext']!r} without the client's sampling.context capability",
            )
        )
    tokens = params.get("maxTokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        out.append(Finding(ERROR, "sampling.max-tokens", "maxTokens (an integer) is required"))
    messages = params.get("messages")
    if not isinstance(messages, list) or not messages:
        out.append(Finding(ERROR, "sampling.messages", "messages is missing or empty"))
        return out
    return out + message_findings(messages)


def message_findings(messages: list[Any]) -> list[Finding]:
    """Roles and the tool-use balance of a conversation."""
    out: list[Finding] = []
    expected: set[str] | None = None  # tool_use ids the next message must answer

    def bad(rule: str, text: str) -> None:
        out.append(Finding(ERROR, rule, text))

    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            bad("sampling.message-role", f"messages[{i}]: role must be user or assistant, got {role!r}")
        content = blocks(message.get("content")) if isinstance(message, dict) else []
        types = [b.get("type") for b in content]
        if "tool_result" in types:
            results = {str(b.get("toolUseId")) for b in content if b.get("type") == "tool_result"}
            if role != "user":
                bad(
                    "sampling.tool-result-role",
                    f"messages[{i}]: tool_result blocks must be in a user message",
                )
            if any(t != "tool_result" for t in types):
                bad(
                    "sampling.tool-result-only",
                    f"messages[{i}]: a message with tool results must contain only tool results",
                )
            if expected is None:
                bad("sampling.tool-balance", f"messages[{i}]: tool results that follow no assistant tool_use")
            else:
                missing, extra = sorted(expected - results), sorted(results - expected)
                if missing:
                    bad(
                        "sampling.tool-balance",
                        f"messages[{i}]: no tool_result for tool_use id {', '.join(missing)}",
                    )
                if extra:
                    bad(
                        "sampling.tool-balance",
                        f"messages[{i}]: tool_result for unknown tool_use id {', '.join(extra)}",
                    )
            expected = None
            continue
        if expected is not None:
            bad(
                "sampling.tool-balance",
                f"messages[{i}]: the tool_use of messages[{i - 1}] must be followed by a user message of tool results",
            )
            expected = None
        uses = [b for b in content if b.get("type") == "tool_use"]
        if uses:
            if role != "assistant":
                bad(
                    "sampling.tool-use-role",
                    f"messages[{i}]: tool_use blocks must be in an assistant message",
                )
            expected = {str(b.get("id")) for b in uses}
    if expected is not None:
        bad(
            "sampling.tool-balance",
            f"messages[{len(messages) - 1}]: tool_use {', '.join(sorted(expected))} has no tool_result",
        )
    return out


def reply_findings(result: dict[str, Any], params: Any, capabilities: Any) -> list[Finding]:
    """What `result` breaks as the answer to a sampling request with `params`."""
    params = params if isinstance(params, dict) else {}
    out: list[Finding] = []
    if result.get("role") != "assistant":
        out.append(Finding(ERROR, "sampling.role", f'role must be "assistant", got {result.get("role")!r}'))
    if not isinstance(result.get("model"), str) or not result.get("model"):
        out.append(
            Finding(ERROR, "sampling.model", "model (the name of the model used) must be a non-empty string")
        )
    content = blocks(result.get("content"))
    if not content:
        out.append(
            Finding(ERROR, "sampling.content", "content must be a block or a non-empty array of blocks")
        )
    out.extend(_block_findings(content))
    uses = [b for b in content if b.get("type") == "tool_use"]
    stop = result.get("stopReason")
    if stop is not None and not isinstance(stop, str):
        out.append(Finding(ERROR, "sampling.stop-reason", "stopReason must be a string"))
    if uses:
        out.extend(_tool_use_findings(uses, params, capabilities))
        if stop != "toolUse":
            out.append(
                Finding(
                    WARNING,
                    "sampling.stop-reason",
                    f'a reply with tool_use blocks should have stopReason "toolUse", not {stop!r}',
                )
            )
    elif stop == "toolUse":
        out.append(
            Finding(ERROR, "sampling.stop-reason", 'stopReason "toolUse" needs at least one tool_use block')
        )
    if _mode(params) == "required" and not uses:
        out.append(
            Finding(
                ERROR,
                "sampling.tool-choice",
                'toolChoice mode "required": the reply must use at least one tool',
            )
        )
    return out


def _block_findings(content: list[dict[str, Any]]) -> list[Finding]:
    out: list[Finding] = []
    for i, block in enumerate(content):
        kind = block.get("type")
        if kind not in REPLY_BLOCKS:
            out.append(
                Finding(ERROR, "sampling.content", f"content[{i}]: type {kind!r} is not allowed in a reply")
            )
        elif kind == "text" and not isinstance(block.get("text"), str):
            out.append(Finding(ERROR, "sampling.content", f"content[{i}]: a text block needs a text string"))
        elif kind in ("image", "audio") and not all(
            isinstance(block.get(k), str) for k in ("data", "mimeType")
        ):
            out.append(
                Finding(
                    ERROR,
                    "sampling.content",
                    f"content[{i}]: an {kind} block needs data and mimeType strings",
                )
            )
    return out


def _tool_use_findings(
    uses: list[dict[str, Any]], params: dict[str, Any], capabilities: Any
) -> list[Finding]:
    if not params.get("tools"):
        return [
            Finding(ERROR, "sampling.tool-not-offered", "tool_use blocks, but the request offered no tools")
        ]
    out: list[Finding] = []
    if not declares_sampling_tools(capabilities):
        out.append(
            Finding(
                ERROR,
                "sampling.tools-capability",
                "tool_use blocks need the sampling.tools capability, which this client did not declare",
            )
        )
    if _mode(params) == "none":
        out.append(
            Finding(ERROR, "sampling.tool-choice", 'toolChoice mode "none": the reply must not use tools')
        )
    tools = {t.get("name"): t for t in params["tools"] if isinstance(t, dict)}
    seen: set[str] = set()
    for block in uses:
        name, bid = block.get("name"), block.get("id")
        label = f"tool_use {bid!r}"
        if not isinstance(bid, str) or not bid:
            out.append(Finding(ERROR, "sampling.tool-use-id", "every tool_use needs a non-empty id"))
        elif bid in seen:
            out.append(Finding(ERROR, "sampling.tool-use-id", f"{label}: duplicate id"))
        else:
            seen.add(bid)
        if name not in tools:
            offered = ", ".join(map(str, tools))
            out.append(
                Finding(
                    ERROR,
                    "sampling.tool-not-offered",
                    f"{label}: {name!r} is not one of the offered tools ({offered})",
                )
            )
        elif not isinstance(block.get("input"), dict):
            out.append(Finding(ERROR, "sampling.tool-input", f"{label}: input must be an object"))
        else:
            schema = tools[name].get("inputSchema")
            out.extend(
                schema_findings(block["input"], schema, WARNING, "sampling.tool-input", f"{label} input")
            )
    return out
