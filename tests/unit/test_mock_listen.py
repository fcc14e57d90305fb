"""The mock server's `subscriptions/listen` (2026-07-28): a `MockSession` playing the built-in scenario,
its messages collected in memory (the transports are tested with real SDK clients in
tests/integration/test_serve_python.py)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from inspector.mock.session import MockSession
from inspector.scenario import ScenarioScript, load_scenario

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
KEY = "io.modelcontextprotocol/subscriptionId"


def _listen(rpc_id: Any, notifications: Any, **meta: Any) -> dict[str, Any]:
    params = {"notifications": notifications, "_meta": {**META, **meta}}
    return {"jsonrpc": "2.0", "id": rpc_id, "method": "subscriptions/listen", "params": params}


@pytest.mark.anyio
async def test_timers_run_on_the_stream_and_a_cancel_ends_it() -> None:
    session = MockSession(ScenarioScript(load_scenario(None)))
    seen: list[dict[str, Any]] = []
    got_log = anyio.Event()

    async def out(message: Any) -> None:
        seen.append(message)
        if message.get("method") == "notifications/message":
            got_log.set()

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            level = {"io.modelcontextprotocol/logLevel": "info"}
            tg.start_soon(session.handle, _listen("L1", {"toolsListChanged": True}, **level), out)
            await got_log.wait()
            assert "L1" in {k.strip('"') for k in session.listens}
            # An `after` step of another request reaches the stream; what it did not ask for does not.
            other: list[Any] = []
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "change_lists", "_meta": META},
            }
            await session.handle(call, _collect(other))
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L1"}}
            await session.handle(cancel, out)
    assert session.listens == {}
    assert [m["method"] for m in seen] == [
        "notifications/subscriptions/acknowledged",
        "notifications/message",
        "notifications/tools/list_changed",
    ]
    assert all(m["params"]["_meta"][KEY] == "L1" for m in seen)
    assert seen[0]["params"]["notifications"] == {"toolsListChanged": True}
    assert seen[1]["params"]["data"] == "the mock server is ready"
    assert [m.get("result", {}).get("content") for m in other] == [[{"type": "text", "text": "changed"}]]


def _collect(into: list[Any]) -> Any:
    async def out(message: Any) -> None:
        into.append(message)

    return out


@pytest.mark.anyio
async def test_listen_refusals() -> None:
    session = MockSession(ScenarioScript(load_scenario(None)))
    answers: list[Any] = []
    handshake = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {"notifications": {}}}
    await session.handle(handshake, _collect(answers))
    await session.handle(_listen(2, {"resourceSubscriptions": "mock://readme"}), _collect(answers))
    assert [a["error"]["code"] for a in answers] == [-32601, -32602]
    assert "not a SubscriptionFilter" in answers[1]["error"]["message"]
