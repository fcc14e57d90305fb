"""The conformance suite's client command: our mock client doing what one scenario asks of a client.

The suite (`@modelcontextprotocol/conformance client --command ...`) starts a
server for each scenario and runs the command with that server's URL as its
last argument, the scenario's name in $MCP_CONFORMANCE_SCENARIO, the revision
it tests in $MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios,
$MCP_CONFORMANCE_CONTEXT (JSON: pre-registered credentials, the tool calls to
make). `run_client` connects once (one recorded session of kind
`mock-client`, `MockClient` as `call` uses it), performs the revision's
handshake and then, as the SDKs' conformance clients do, what the scenario
asks:

* any scenario: list the tools (excluding a tool whose `x-mcp-header`
  annotations are invalid), call each with the context's arguments or
  arguments made from its inputSchema (a local `$ref` is followed, a network
  one never); list and read the resources and list and get the prompts: each
  only when the server declared it (lint `server-capability-not-declared`);
* `initialize`: the handshake and the tool list only;
* `json-schema-2020-12-preservation`: hand the focal tool's inputSchema back,
  as received, to the echo tool;
* `auth/*`: with OAuth (`inspector/auth`, options from the context), list the
  tools and call the first, as the suite's example client does.

Elicitations are accepted with the requested schema's defaults, sampling is
refused, roots are an empty list. Exit status 0 when the scenario's calls were
made, 1 when the handshake was refused, 2 when the server could not be reached
or authorization failed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from inspector.command_setup import err, open_db_store, print_error
from inspector.errors import InspectorError
from inspector.terminal_text import markup_safe, visible

if TYPE_CHECKING:
    from inspector.auth.connect import AuthRequest
    from inspector.mock.client import MockClient

__all__ = ["CLIENT_METADATA_URL", "ClientRun", "example_arguments", "run_client", "schema_defaults"]

# The client metadata document URL the suite's example client uses (CIMD scenarios accept it).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
PAGES = 20  # list pages followed at most (a paginator that never ends cannot hang a run)
REF_DEPTH = 8  # local `$ref` hops followed when making arguments


@dataclass
class ClientRun:
    """One scenario's client run."""

    url: str
    scenario: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    protocol_version: str = "2025-11-25"
    auth: AuthRequest | None = None
    timeout: float = 20.0
    db: str | None = None


class _Scenario:
    """The scenario's steps over one connected client; each request and its outcome is printed."""

    def __init__(self, client: MockClient, run: ClientRun) -> None:
        self.client = client
        self.run = run

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        response = await self.client.request(method, params, timeout=self.run.timeout)
        label = method + (f" {params['name']}" if params and isinstance(params.get("name"), str) else "")
        if "error" in response:
            error = response["error"] if isinstance(response["error"], dict) else {}
            _say(f"{label}: error {error.get('code')} {error.get('message')}")
            return None
        _say(f"{label}: ok")
        result = response.get("result")
        return result if isinstance(result, dict) else {}

    async def listing(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        for _page in range(PAGES):
            result = await self.request(method, {"cursor": cursor} if cursor else None)
            if result is None:
                break
            items += [i for i in result.get(key) or [] if isinstance(i, dict)]
            cursor = result.get("nextCursor") if isinstance(result.get("nextCursor"), str) else None
            if cursor is None:
                break
        return items

    async def tools(self) -> list[dict[str, Any]]:
        """The listed tools a client may use: one with invalid `x-mcp-header` annotations is left out."""
        from inspector.protocol.routing_headers import invalid_param_headers

        usable = []
        for tool in await self.listing("tools/list", "tools"):
            if not isinstance(tool.get("name"), str):
                continue
            if (why := invalid_param_headers(tool.get("inputSchema"))) is not None:
                _say(f"tool {tool['name']!r} excluded: {why}")
                continue
            usable.append(tool)
        return usable

    @property
    def server_capabilities(self) -> dict[str, Any]:
        result = (self.client.server_result or {}).get("result")
        caps = result.get("capabilities") if isinstance(result, dict) else None
        return caps if isinstance(caps, dict) else {}

    async def exercise(self) -> None:
        """Every tool called, every resource read, every prompt got (what the server declares)."""
        caps = self.server_capabilities
        tools = await self.tools() if "tools" in caps else []
        planned = self.run.context.get("toolCalls")
        if isinstance(planned, list):
            known = {t["name"] for t in tools}
            for call in planned:
                if isinstance(call, dict) and call.get("name") in known:
                    await self.request(
                        "tools/call", {"name": call["name"], "arguments": call.get("arguments") or {}}
                    )
        else:
            for tool in tools:
                arguments = example_arguments(tool.get("inputSchema"))
                await self.request("tools/call", {"name": tool["name"], "arguments": arguments})
        if "resources" in caps:
            for resource in await self.listing("resources/list", "resources"):
                if isinstance(resource.get("uri"), str):
                    await self.request("resources/read", {"uri": resource["uri"]})
        if "prompts" in caps:
            for prompt in await self.listing("prompts/list", "prompts"):
                if isinstance(prompt.get("name"), str):
                    arguments = {
                        str(a["name"]): "test"
                        for a in prompt.get("arguments") or []
                        if isinstance(a, dict) and a.get("required") and isinstance(a.get("name"), str)
                    }
                    await self.request("prompts/get", {"name": prompt["name"], "arguments": arguments})

    async def initialize(self) -> None:
        if "tools" in self.server_capabilities:
            await self.tools()

    async def schema_echo(self) -> None:
        """SEP-1613 / SEP-2106: the focal tool's inputSchema goes back to the echo tool as received."""
        tools = {t["name"]: t for t in await self.tools()}
        focal = tools.get("json_schema_2020_12_tool")
        if focal is not None and "json_schema_echo" in tools:
            schema = focal.get("inputSchema")
            await self.request("tools/call", {"name": "json_schema_echo", "arguments": {"schema": schema}})

    async def skills(self) -> None:
        """SEP-2640: list the skills; load each (every file verified) only where the scenario asks a
        host to use them (`inspector.mock.skills.CONFORMANCE_SCENARIOS`), never ahead of need."""
        from inspector.errors import SkillVerificationError
        from inspector.mock.skills import conformance_call, fetch_skills

        listed = await self.request("skills/list")
        if listed is None or "--fetch-skills" not in (conformance_call(self.run.scenario) or []):
            return

        async def raw(method: str, params: dict[str, Any]) -> dict[str, Any]:
            return await self.client.request(method, params, timeout=self.run.timeout)

        try:
            await fetch_skills(raw, "skills/list", listed)
            _say("skills: every file verified")
        except SkillVerificationError as exc:
            _say(f"skills: refused: {exc}")

    async def authorized(self) -> None:
        tools = await self.tools()
        if tools:
            await self.request("tools/call", {"name": tools[0]["name"], "arguments": {}})


def _handler(scenario: str) -> Callable[[_Scenario], Awaitable[None]]:
    if scenario.startswith("auth/"):
        return _Scenario.authorized
    if scenario.startswith("sep-2640-client-"):
        return _Scenario.skills
    return {
        "initialize": _Scenario.initialize,
        "json-schema-2020-12-preservation": _Scenario.schema_echo,
    }.get(scenario, _Scenario.exercise)


def run_client(run: ClientRun) -> int:
    """Run the scenario's client side against `run.url`; the exit status (see the module)."""
    import anyio

    from inspector.mock.client import ClientConfig, MockClient, Responder

    config = ClientConfig(
        target=run.url,
        protocol_version=run.protocol_version,
        timeout=run.timeout,
        name=f"conformance {run.scenario}".strip(),
        responders={
            "sampling/createMessage": Responder("reject"),
            "elicitation/create": Responder("manual"),  # answered by `accept_with_defaults` below
            "roots/list": Responder("fixed", {"roots": []}),
        },
    )
    engine = open_db_store(run.db)
    refused: list[dict[str, Any]] = []

    async def accept_with_defaults(kind: str, payload: dict[str, Any]) -> None:
        if kind == "inbox" and payload.get("method") == "elicitation/create":
            params = payload.get("params") if isinstance(payload.get("params"), dict) else {}
            content = schema_defaults((params or {}).get("requestedSchema"))
            client.answer(payload["key"], result={"action": "accept", "content": content})

    client = MockClient(engine, config, listener=accept_with_defaults)

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            if run.auth is not None:
                from inspector.auth.connect import authorizer

                config.auth = await stack.enter_async_context(
                    authorizer(run.auth, run.url, run.protocol_version)
                )
            async with anyio.create_task_group() as tg:
                try:
                    first = await client.start(tg)
                    if "error" in first:
                        refused.append(first["error"])
                    else:
                        _say(f"connected: {client.negotiated_version}")
                        await _handler(run.scenario)(_Scenario(client, run))
                finally:
                    await client.close()
                    tg.cancel_scope.cancel()

    try:
        anyio.run(main)
    except InspectorError:
        raise
    except Exception as exc:
        cause: BaseException = exc
        while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
            cause = cause.exceptions[0]
        if isinstance(cause, InspectorError):  # an AuthFailure inside the task group: its own words
            print_error(cause)
            return 2
        err().print(
            f"[red]error:[/red] could not talk to the server: {type(cause).__name__}: {markup_safe(cause)}"
        )
        return 2
    if refused:
        _say("the handshake was refused: " + orjson.dumps(refused[0]).decode())
        return 1
    return 0


def _say(line: str) -> None:
    sys.stdout.write(visible(line) + "\n")
    sys.stdout.flush()


def schema_defaults(schema: Any) -> dict[str, Any]:
    """An elicitation's accepted content: each requested property that has a `default`, with it
    (SEP-1034: a client applies the schema's defaults to fields the user left out)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return {}
    return {str(k): v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def example_arguments(schema: Any) -> dict[str, Any]:
    """Arguments for a tool: a value for each required property of its inputSchema, from its
    `default`, `const`, first `enum` value or type. A same-document `$ref` (`#/...`) is followed; a
    `$ref` to anything else is never fetched (SEP-2106) and gives no value."""
    if not isinstance(schema, dict):
        return {}
    found = schema.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    required = [r for r in schema.get("required") or [] if isinstance(r, str)]
    return {name: _example(props.get(name), schema, 0) for name in required}


def _example(sub: Any, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(sub, dict):
        return "test"
    ref = sub.get("$ref")
    if isinstance(ref, str) and depth < REF_DEPTH:
        return _example(_local(ref, root), root, depth + 1) if ref.startswith("#") else None
    for key in ("default", "const"):
        if key in sub:
            return sub[key]
    if isinstance(sub.get("enum"), list) and sub["enum"]:
        return sub["enum"][0]
    kind = sub.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object":
        return {
            name: _example((sub.get("properties") or {}).get(name), root, depth + 1)
            for name in sub.get("required") or []
            if isinstance(name, str)
        }
    return {"integer": 1, "number": 1, "boolean": True, "array": [], "null": None}.get(str(kind), "test")


def _local(ref: str, root: dict[str, Any]) -> Any:
    """The schema a same-document JSON Pointer (`#/$defs/x`) names, else None."""
    node: Any = root
    for part in ref.lstrip("#").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node
