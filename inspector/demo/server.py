"""A demo MCP server that exercises most of the protocol, for recording and replay.

`build_server()` returns an `MCPServer` holding:

Tools
    ``echo(text)``                      plain text round trip
    ``weather(city)``                   structured output (``outputSchema`` + ``structuredContent``)
    ``count_slowly(n, delay_s)``        progress notifications and log messages
    ``fail(reason)``                    an ``isError: true`` result
    ``ask_llm(question)``               sampling (``sampling/createMessage``)
    ``book_table(restaurant)``          form elicitation (``elicitation/create``)
    ``list_client_roots()``             roots (``roots/list``)
    ``edit_note(name, text)``           changes a note; subscribers get ``notifications/resources/updated``

Resources
    ``demo://readme``                   static text/plain
    ``demo://config``                   static application/json
    ``demo://notes/{name}``             resource template (unknown names -> resource-not-found error)

Prompts
    ``review_code(code, language)``     prompt with a required and an optional argument

``resources/subscribe`` / ``resources/unsubscribe`` for handshake-era clients (any
resource URI; ``edit_note`` notifies the subscribers of the note's URI); at 2026-07-28 the
SDK serves ``subscriptions/listen`` and ``edit_note`` publishes the update on its bus.

Plus a completion handler (prompt ``language`` and note ``name`` arguments) and a
``logging/setLevel`` handler for handshake-era clients (2026-07-28 clients opt in
to log messages per request through ``_meta`` instead).

The three client-facing tools use `Resolve(...)` parameters (see
`inspector.demo._resolvers`), so they work both over the handshake-era back-channel
and through 2026-07-28 ``InputRequiredResult`` rounds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import (
    AssistantMessage,
    Context,
    ElicitationResult,
    MCPServer,
    Message,
    Resolve,
    UserMessage,
)
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageResult,
    EmptyResult,
    ListRootsResult,
    LoggingLevel,
    PromptReference,
    ResourceTemplateReference,
    SetLevelRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams,
)

from inspector.demo._resolvers import ask_booking, client_roots, sample_answer
from inspector.demo.models import BookingDetails, WeatherReport

SERVER_NAME = "inspector-demo"
LOGGER_NAME = "demo"
LANGUAGES = ("python", "rust", "go", "typescript")
NOTES: dict[str, str] = {
    "welcome": "Welcome to the MCP inspector demo server.",
    "shopping": "- oat milk\n- coffee beans\n- bread",
    "todo": "1. record a session\n2. replay it\n3. diff the two",
}
_LEVELS: tuple[LoggingLevel, ...] = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip


@dataclass
class LogGate:
    """Minimum log level set by a handshake-era ``logging/setLevel`` (``None``: send everything)."""

    minimum: LoggingLevel | None = None

    def allows(self, level: LoggingLevel) -> bool:
        """Whether a message at `level` passes the gate."""
        return self.minimum is None or _LEVELS.index(level) >= _LEVELS.index(self.minimum)


def build_server(*, variant: bool = False) -> MCPServer:
    """Build a fresh demo server (each call has its own log gate).

    `variant` builds "the next version" of the demo, for replay and diff demos: the weather
    report is one degree warmer and the `fail` tool is gone.
    """
    server: MCPServer = MCPServer(
        SERVER_NAME,
        title="MCP inspector demo",
        instructions="Demo server: every tool, resource and prompt exists to exercise one protocol feature.",
        version="0.1.0",
        log_level="WARNING",
    )
    gate = LogGate()
    notes = dict(NOTES)
    _register_tools(server, gate, warmer=1.0 if variant else 0.0)
    if variant:
        server.remove_tool("fail")
    _register_resources(server, notes)
    _register_subscriptions(server, notes)
    _register_prompts(server)
    _register_logging(server, gate)
    return server


async def _log(ctx: Context, gate: LogGate, level: LoggingLevel, message: str) -> None:
    """Send a ``notifications/message`` if the handshake-era gate lets it through.

    On 2026-07-28 the SDK itself drops messages below the level the request opted in to.
    """
    if gate.allows(level):
        await ctx.log(level, message, logger_name=LOGGER_NAME)  # pyright: ignore[reportDeprecated]


def _register_tools(server: MCPServer, gate: LogGate, *, warmer: float = 0.0) -> None:
    """Register the demo tools."""

    @server.tool(structured_output=False, description="Return the given text unchanged.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Fake, deterministic weather report with structured output.")
    def weather(city: str) -> WeatherReport:
        seed = sum(city.encode())
        return WeatherReport(
            city=city,
            temperature_c=round(5 + seed % 25 + (seed % 10) / 10 + warmer, 1),
            conditions=("sunny", "cloudy", "rainy", "windy")[seed % 4],
            humidity_pct=30 + seed % 60,
        )

    @server.tool(structured_output=False, description="Count to n, reporting progress and logging each step.")
    async def count_slowly(ctx: Context, n: int = 3, delay_s: float = 0.01) -> str:
        if n < 0 or n > 1000:
            raise ToolError("n must be between 0 and 1000")
        await _log(ctx, gate, "info", f"counting to {n}")
        for i in range(1, n + 1):
            await anyio.sleep(delay_s)
            await _log(ctx, gate, "debug", f"tick {i}")
            await ctx.report_progress(i, n, f"step {i}/{n}")
        await _log(ctx, gate, "info", f"counted to {n}")
        return f"counted to {n}"

    @server.tool(
        structured_output=False, description="Always fails with an isError result carrying the reason."
    )
    def fail(reason: str = "this tool always fails") -> str:
        raise ToolError(reason)

    @server.tool(
        structured_output=False, description="Ask the client's LLM (sampling) and return its answer."
    )
    def ask_llm(question: str, answer: Annotated[CreateMessageResult, Resolve(sample_answer)]) -> str:
        text = answer.content.text if answer.content.type == "text" else f"<{answer.content.type} content>"
        return f"{answer.model} answered: {text}"

    @server.tool(
        structured_output=False, description="Book a table; the details are elicited from the user as a form."
    )
    def book_table(
        restaurant: str, booking: Annotated[ElicitationResult[BookingDetails], Resolve(ask_booking)]
    ) -> str:
        if booking.action != "accept":
            outcome = "declined" if booking.action == "decline" else "cancelled"
            return f"Booking at {restaurant} was {outcome} by the user."
        return f"Booked {restaurant}: " + booking.data.model_dump_json()

    @server.tool(structured_output=False, description="Return the roots the client exposes (roots/list).")
    def list_client_roots(roots: Annotated[ListRootsResult, Resolve(client_roots)]) -> str:
        if not roots.roots:
            return "client exposes no roots"
        return "\n".join(f"{root.uri} ({root.name or 'unnamed'})" for root in roots.roots)


def _register_resources(server: MCPServer, notes: dict[str, str]) -> None:
    """Register the static resources and the notes template."""

    @server.resource(
        "demo://readme",
        name="readme",
        title="Demo README",
        description="Static text resource.",
        mime_type="text/plain",
    )
    def readme() -> str:
        return "This is the MCP inspector demo server. Try the tools, resources and prompts."

    @server.resource(
        "demo://config",
        name="config",
        title="Demo configuration",
        description="Static JSON resource.",
        mime_type="application/json",
    )
    def config() -> str:
        return json.dumps(
            {"name": SERVER_NAME, "features": ["tools", "resources", "prompts"], "debug": False}
        )

    @server.resource(
        "demo://notes/{name}",
        name="note",
        title="A named note",
        description="Templated text resource.",
        mime_type="text/plain",
    )
    def note(name: str) -> str:
        if name not in notes:
            raise ResourceNotFoundError(f"no note named {name!r}")
        return notes[name]


def _register_prompts(server: MCPServer) -> None:
    """Register the prompts and the completion handler for their arguments."""

    @server.prompt(title="Code review", description="Ask for a review of a code snippet.")
    def review_code(code: str, language: str = "python") -> list[Message]:
        return [
            UserMessage(f"Please review this {language} code:\n\n```{language}\n{code}\n```"),
            AssistantMessage(f"Sure - I will review the {language} code for bugs and style."),
        ]

    @server.completion()  # type: ignore[no-untyped-call, untyped-decorator]  # mcp: MCPServer.completion() is unannotated
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, PromptReference) and argument.name == "language":
            options: tuple[str, ...] = LANGUAGES
        elif isinstance(ref, ResourceTemplateReference) and argument.name == "name":
            options = tuple(NOTES)
        else:
            return None
        values = [option for option in options if option.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)


def _register_subscriptions(server: MCPServer, notes: dict[str, str]) -> None:
    """Serve handshake-era ``resources/subscribe``/``unsubscribe`` (lowlevel handlers, as for
    logging) and the ``edit_note`` tool whose changes reach the subscribers of the note."""
    subscribed: set[str] = set()

    async def subscribe(ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        subscribed.add(params.uri)
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        subscribed.discard(params.uri)
        return EmptyResult()

    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)

    @server.tool(structured_output=False, description="Change (or add) a note; its subscribers are told.")
    async def edit_note(ctx: Context, name: str, text: str) -> str:
        notes[name] = text
        uri = f"demo://notes/{name}"
        # 2026-07-28: the SDK's subscription bus delivers it on the `subscriptions/listen` streams
        # that asked for this URI (none: nothing is sent).
        await ctx.notify_resource_updated(uri)
        if uri in subscribed:
            await ctx.request_context.session.send_resource_updated(uri)
            return f"{uri} changed; subscribers notified"
        return f"{uri} changed; handshake-era subscribers: none"


def _register_logging(server: MCPServer, gate: LogGate) -> None:
    """Serve handshake-era ``logging/setLevel`` (MCPServer has no decorator for it).

    The SDK documents the lowlevel ``Server.add_request_handler`` as the way to
    re-provide this method, which the 2026-07-28 revision removed.
    """

    async def set_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> EmptyResult:
        gate.minimum = params.level
        return EmptyResult()

    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
