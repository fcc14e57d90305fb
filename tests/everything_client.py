"""Test helper: an SDK client session that exercises server-everything, answering its requests."""

from __future__ import annotations

from typing import Any

import mcp
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    ListRootsResult,
    Root,
    TextContent,
)
from pydantic import FileUrl

SAMPLED = "sampled by test"
ELICITED_NAME = "Grace Hopper"
ROOT = "file:///tmp/everything-root"


async def _sampling(_ctx: object, params: CreateMessageRequestParams) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=SAMPLED), model="m")


async def _elicitation(_ctx: object, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": ELICITED_NAME})


async def _roots(_ctx: object) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri=FileUrl(ROOT), name="r")])


async def everything_session(target: Any, echo: str, mode: str = "auto") -> dict[str, str]:
    """Call echo, get-sum, the sampling/roots/elicitation tools, a resource and a prompt; return texts."""
    out: dict[str, str] = {}
    async with mcp.Client(
        target,
        sampling_callback=_sampling,
        elicitation_callback=_elicitation,
        list_roots_callback=_roots,
        cache=None,
        mode=mode,
    ) as client:
        out["version"] = client.protocol_version or ""
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"echo", "get-sum", "trigger-sampling-request", "get-roots-list"} <= tools
        out["echo"] = str((await client.call_tool("echo", {"message": echo})).content[0])
        out["sum"] = str((await client.call_tool("get-sum", {"a": 2, "b": 40})).content[0])
        out["sampling"] = str((await client.call_tool("trigger-sampling-request", {"prompt": "hi"})).content)
        out["roots"] = str((await client.call_tool("get-roots-list", {})).content)
        out["elicitation"] = str((await client.call_tool("trigger-elicitation-request", {})).content)
        resources = (await client.list_resources()).resources
        out["resource"] = str((await client.read_resource(str(resources[0].uri))).contents[0])
        prompts = (await client.list_prompts()).prompts
        out["prompt"] = str((await client.get_prompt(prompts[0].name, {})).messages[0]) if prompts else ""
    return out
