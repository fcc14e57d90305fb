"""Resolvers for the demo tools that need something from the client.

Each resolver returns a request marker (`Elicit`, `Sample`, `ListRoots`) that
MCPServer fulfils through whichever transport the negotiated protocol uses:

* handshake era (<= 2025-11-25, `initialize`): a standalone server-to-client
  JSON-RPC request (`elicitation/create`, `sampling/createMessage`,
  `roots/list`) sent mid-call over the same connection;
* 2026-07-28 (`server/discover`): the tool call first returns an
  `InputRequiredResult` carrying the request under `inputRequests`, and the
  client retries `tools/call` with `inputResponses` plus the echoed
  `requestState`.

Tools consume them as `Annotated[T, Resolve(resolver)]` parameters, which keeps
the tool bodies identical in both eras.
"""

from __future__ import annotations

from mcp.server.mcpserver import Elicit, ListRoots, Sample
from mcp_types import SamplingMessage, TextContent

from inspector.demo.models import BookingDetails

SAMPLING_SYSTEM_PROMPT = "You are a concise assistant inside the MCP inspector demo."


def ask_booking(restaurant: str) -> Elicit[BookingDetails]:
    """Ask the user to fill in the booking form for `restaurant`."""
    return Elicit(f"Book a table at {restaurant}: who, when and how many?", BookingDetails)


def sample_answer(question: str) -> Sample:
    """Ask the client's LLM to answer `question`."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text=question))
    return Sample([message], max_tokens=256, system_prompt=SAMPLING_SYSTEM_PROMPT, temperature=0.0)


def client_roots() -> ListRoots:
    """Ask the client for its filesystem roots."""
    return ListRoots()
