"""A real MCP server (the official Python SDK's MCPServer) for the client features the demo lacks.

Usage: python client_features_server.py   (stdio)

- `plan_trip(city)`: sampling *with tools* (`get_weather`, toolChoice auto);
  when the reply uses the tool, the server runs it and samples again with the
  tool_result appended (the spec's multi-turn tool loop), then returns the text.
- `read_vault()`: fails with -32042 (URL elicitation required) until
  `unlock_vault()` has been called, which plays the out-of-band step and
  sends `notifications/elicitation/complete` for it.
- `sign_in()`: a URL-mode `elicitation/create` (request path).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import (
    ElicitRequestURLParams,
    SamplingMessage,
    TextContent,
    Tool,
    ToolChoice,
    ToolResultContent,
)

VAULT_ID = "vault-1"
VAULT_URL = "https://vault.example.com/unlock?session=abc"
WEATHER = Tool(
    name="get_weather",
    description="Current weather for a city",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 2}},
        "required": ["city"],
    },
)
server = MCPServer("client-features", version="1.0.0", log_level="WARNING")
state: dict[str, Any] = {"unlocked": False}


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


@server.tool(structured_output=False, description="Plan a trip: the client's LLM may call get_weather.")
async def plan_trip(city: str, ctx: Context) -> str:
    messages = [SamplingMessage(role="user", content=TextContent(type="text", text=f"Plan a day in {city}."))]
    first = await ctx.session.create_message(
        messages,
        max_tokens=200,
        system_prompt="You plan trips. Use tools when useful.",
        tools=[WEATHER],
        tool_choice=ToolChoice(mode="auto"),
    )
    uses = [b for b in _blocks(first.content) if b.type == "tool_use"]
    if not uses:
        texts = [b.text for b in _blocks(first.content) if b.type == "text"]
        return f"plan without tools: {' '.join(texts)}"
    results = [
        ToolResultContent(
            type="tool_result",
            tool_use_id=u.id,
            content=[TextContent(type="text", text=f"Sunny in {u.input.get('city')}")],
        )
        for u in uses
    ]
    messages += [
        SamplingMessage(role="assistant", content=uses),
        SamplingMessage(role="user", content=results),
    ]
    final = await ctx.session.create_message(messages, max_tokens=200, tools=[WEATHER])
    texts = [b.text for b in _blocks(final.content) if b.type == "text"]
    called = ", ".join(f"{u.name}({u.input})" for u in uses)
    return f"called {called}; final: {' '.join(texts)}"


@server.tool(structured_output=False, description="Needs the vault unlocked through a URL first (-32042).")
def read_vault() -> str:
    if not state["unlocked"]:
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    mode="url",
                    message="Unlock the vault in your browser",
                    url=VAULT_URL,
                    elicitation_id=VAULT_ID,
                )
            ]
        )
    return "vault contents: 42"


@server.tool(structured_output=False, description="Plays the out-of-band unlock and says it is complete.")
async def unlock_vault(ctx: Context) -> str:
    state["unlocked"] = True
    await ctx.session.send_elicit_complete(VAULT_ID)
    return "unlocked"


@server.tool(structured_output=False, description="A URL-mode elicitation request.")
async def sign_in(ctx: Context) -> str:
    result = await ctx.elicit_url("Sign in to continue", "https://login.example.org/start", "login-1")
    return f"user chose {result.action}"


if __name__ == "__main__":
    server.run("stdio")
