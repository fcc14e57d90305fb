"""A 2026-07-28 retry carrying a `requestState` the server did not issue (altered, or made up) is
refused with -32602, never resumed: the state is signed. Issue #38: the conformance suite's
`input-required-result-tampered-state` scenario; before, `serve` decoded any well-formed state
and resumed the call where it said."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
import pytest

from inspector.mock.session import MockSession
from inspector.scenario.models import Scenario
from inspector.scenario.script import ScenarioScript

pytestmark = pytest.mark.anyio

_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
_SCENARIO = Scenario.model_validate(
    {
        "tools": [
            {
                "name": "confirm",
                "steps": [
                    {
                        "do": "elicit",
                        "key": "ok",
                        "params": {"message": "Sure?", "requestedSchema": {"type": "object"}},
                    }
                ],
                "result": {"content": [{"type": "text", "text": "confirmed"}]},
            }
        ]
    }
)


async def _call(session: MockSession, extra: dict[str, Any]) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []

    async def out(message: Any) -> None:
        sent.append(message)

    params = {"name": "confirm", "arguments": {}, "_meta": _META, **extra}
    with anyio.fail_after(10):
        await session.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, out)
    return sent[-1]


async def test_a_tampered_request_state_gets_invalid_params() -> None:
    session = MockSession(ScenarioScript(_SCENARIO))
    first = (await _call(session, {}))["result"]
    assert first["resultType"] == "input_required" and list(first["inputRequests"]) == ["ok"]
    answer = {"ok": {"action": "accept", "content": {}}}
    good = await _call(session, {"inputResponses": answer, "requestState": first["requestState"]})
    assert good["result"]["content"][0]["text"] == "confirmed"
    # The same state with its position moved past the question: well-formed, but not issued.
    body = base64.urlsafe_b64encode(json.dumps({"at": 1, "answers": [], "keys": ["ok"]}).encode()).decode()
    for forged in (body, first["requestState"][:-2] + "00", "not a state"):
        refused = await _call(session, {"inputResponses": answer, "requestState": forged})
        assert refused["error"]["code"] == -32602, refused
