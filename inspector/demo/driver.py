"""Drive a demo server end to end with the SDK client and report what happened.

`drive_demo(params, mode=...)` launches the server command over stdio, lists
everything, calls every demo tool, reads the resources (static and templated),
renders the prompt, asks for a completion, and answers the server's sampling,
elicitation and roots requests automatically with fixed data (the
`SAMPLING_REPLY`, `BOOKING` and `DEMO_ROOT` constants). On a handshake-era
connection it also sends ``logging/setLevel``; on 2026-07-28 it opts in to log
messages per request through ``_meta`` instead (the client's ``log_level``).

CLI: ``python -m inspector.demo.driver [--mode legacy|auto] -- COMMAND ARGS...``
(without a command it runs ``python -m inspector.demo``; ``--url URL`` targets a
streamable-HTTP server instead) prints a summary to stderr.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import anyio
import mcp
from mcp.client._transport import Transport
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    Implementation,
    ListRootsResult,
    LoggingLevel,
    LoggingMessageNotificationParams,
    PromptReference,
    Root,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import FileUrl

from inspector.demo.report import DemoReport, LogEvent, ProgressEvent, ServerRequestEvent, ToolOutcome

SAMPLING_MODEL = "demo-model"
SAMPLING_REPLY = "The answer is 42."
DEMO_ROOT = "file:///tmp/demo-project"
LOG_LEVEL: LoggingLevel = "info"
BOOKING: dict[str, str | int | float | bool] = {
    "name": "Ada Lovelace",
    "date": "2030-12-10",
    "party_size": 4,
    "seating": "outdoor",
    "vegetarian": True,
    "budget_per_person": 42.5,
}
TOOL_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("echo", {"text": "hello inspector"}),
    ("weather", {"city": "Lisbon"}),
    ("count_slowly", {"n": 3}),
    ("fail", {"reason": "demo failure"}),
    ("ask_llm", {"question": "What is six times seven?"}),
    ("book_table", {"restaurant": "Chez MCP"}),
    ("list_client_roots", {}),
    ("edit_note", {"name": "shopping", "text": "- tea"}),
)
TEMPLATED_URIS = ("demo://notes/welcome", "demo://notes/does-not-exist")
PROMPT_ARGS = {"code": "def add(a, b):\n    return a - b", "language": "python"}


class _Responder:
    """The client callbacks: answer server requests with fixed data and record what arrived."""

    def __init__(self, report: DemoReport) -> None:
        self.report = report

    def _record(self, context: ClientRequestContext, method: str, detail: str) -> None:
        self.report.server_requests.append(ServerRequestEvent(method, context.request_id, detail))

    async def sampling(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        texts: list[str] = []
        for message in params.messages:
            blocks = message.content if isinstance(message.content, list) else [message.content]
            texts.extend(block.text for block in blocks if isinstance(block, TextContent))
        self._record(context, "sampling/createMessage", "\n".join(texts))
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=SAMPLING_REPLY),
            model=SAMPLING_MODEL,
            stop_reason="endTurn",
        )

    async def elicitation(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self._record(context, "elicitation/create", params.message)
        if params.mode != "form":
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content=dict(BOOKING))

    async def roots(self, context: ClientRequestContext) -> ListRootsResult:
        self._record(context, "roots/list", "")
        return ListRootsResult(roots=[Root(uri=FileUrl(DEMO_ROOT), name="demo-project")])

    async def logging(self, params: LoggingMessageNotificationParams) -> None:
        self.report.logs.append(LogEvent(level=params.level, logger=params.logger, data=params.data))


def _outcome(result: CallToolResult) -> ToolOutcome:
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    structured = result.structured_content if isinstance(result.structured_content, dict) else None
    return ToolOutcome(text=text, is_error=result.is_error, structured=structured)


def _content_text(contents: Sequence[Any]) -> str:
    return "\n".join(str(getattr(item, "text", "")) for item in contents)


async def drive_demo(
    server_params: mcp.StdioServerParameters | str | Transport, *, mode: str = "legacy"
) -> DemoReport:
    """Connect to the server and exercise every demo feature.

    `server_params` is a command to launch over stdio, or a streamable-HTTP URL
    (e.g. ``http://127.0.0.1:8765/mcp`` for ``python -m inspector.demo --transport
    streamable-http``). `mode` is passed to `mcp.Client`: ``"legacy"`` (initialize
    handshake), ``"auto"`` (``server/discover`` first, handshake fallback) or a
    modern protocol version.
    """
    report = DemoReport(mode=mode)
    responder = _Responder(report)
    client = mcp.Client(
        server_params,
        mode=mode,
        sampling_callback=responder.sampling,
        elicitation_callback=responder.elicitation,
        list_roots_callback=responder.roots,
        logging_callback=responder.logging,
        log_level=LOG_LEVEL,
        client_info=Implementation(name="inspector-demo-driver", version="0.1.0"),
        cache=None,
    )
    async with client:
        report.protocol_version = client.protocol_version
        report.server_name = client.server_info.name if client.server_info else None
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await _set_logging_level(client)
            report.logging_level_set = True
        await _list_everything(client, report)
        for name, arguments in TOOL_CALLS:
            report.tool_results[name] = await _call(client, report, name, arguments)
        await _read_resources(client, report)
        prompt = await client.get_prompt("review_code", PROMPT_ARGS)
        report.prompt_messages = [f"{m.role}: {_content_text([m.content])}" for m in prompt.messages]
        ref = PromptReference(type="ref/prompt", name="review_code")
        completion = await client.complete(ref, {"name": "language", "value": "py"})
        report.completions = list(completion.completion.values)
    return report


async def _set_logging_level(client: mcp.Client) -> None:
    """Send the handshake-era ``logging/setLevel`` (deprecated at 2026-07-28, hence the filter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await client.set_logging_level(LOG_LEVEL)  # pyright: ignore[reportDeprecated]


async def _list_everything(client: mcp.Client, report: DemoReport) -> None:
    report.tools = [tool.name for tool in (await client.list_tools()).tools]
    report.resources = [str(resource.uri) for resource in (await client.list_resources()).resources]
    templates = (await client.list_resource_templates()).resource_templates
    report.resource_templates = [template.uri_template for template in templates]
    report.prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]


async def _call(client: mcp.Client, report: DemoReport, name: str, arguments: dict[str, Any]) -> ToolOutcome:
    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        report.progress.append(ProgressEvent(tool=name, progress=progress, total=total, message=message))

    return _outcome(await client.call_tool(name, arguments, progress_callback=on_progress))


async def _read_resources(client: mcp.Client, report: DemoReport) -> None:
    for uri in (*report.resources, *TEMPLATED_URIS):
        try:
            result = await client.read_resource(uri)
        except MCPError as exc:
            report.resource_errors[uri] = f"{exc.code}: {exc}"
        else:
            report.resource_texts[uri] = _content_text(result.contents)


def _parse_cli(argv: Sequence[str]) -> tuple[str, mcp.StdioServerParameters | str]:
    """Split ``[--mode M] [--url URL] [-- COMMAND ARGS...]`` into the mode and the target."""
    args = list(argv)
    split = args.index("--") if "--" in args else len(args)
    parser = argparse.ArgumentParser(prog="python -m inspector.demo.driver", description=__doc__)
    parser.add_argument("--mode", default="legacy", help="legacy, auto, or a modern protocol version")
    parser.add_argument("--url", help="streamable-HTTP URL to connect to instead of launching a command")
    options = parser.parse_args(args[:split])
    command = args[split + 1 :]
    if options.url is not None:
        if command:
            parser.error("give either --url or a command after --, not both")
        return options.mode, options.url
    command = command or [sys.executable, "-m", "inspector.demo"]
    return options.mode, mcp.StdioServerParameters(command=command[0], args=command[1:])


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the process exit status."""
    mode, target = _parse_cli(sys.argv[1:] if argv is None else argv)
    report = anyio.run(lambda: drive_demo(target, mode=mode))
    print(report.summary(), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
