"""`/api/diff` gives each change's path as steps (`segments`) as well as text: the UI follows the steps
into `/api/diff/side`'s `view` to highlight the change, and reads no path text itself (the diff's path
grammar lives once, in `replay/paths.py`; issue 35, one implementation per job)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from tests import two_sessions


def _result(weather_required: list[str], server: str) -> dict[str, Any]:
    return {
        "tools": [
            {"name": "clock", "inputSchema": {"type": "object"}},
            {"name": "weather", "inputSchema": {"type": "object", "required": weather_required}},
        ],
        "_meta": {"example.com/note": server, "plain": 1},
    }


def session_file() -> list[bytes]:
    """Two sessions whose one tools/list answer differs in an item picked by name, an index and a
    key that needs quoting."""
    request = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).decode()
    responses = tuple(
        orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).decode()
        for result in (_result(["city"], "one"), _result(["city", "units"], "two"))
    )
    return two_sessions.session_file("tools/list", request, (responses[0], responses[1]))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_sessions.imported(tmp_path_factory.mktemp("segments") / "segments.db", session_file())


def _follow(view: Any, segments: list[Any]) -> Any:
    """What the UI does with the steps: keys and indexes directly, items by their field's value."""
    node = view
    for step in segments:
        if isinstance(step, dict):
            node = next(el for el in node if el.get(step["field"]) == step["value"])
        else:
            node = node[step]
    return node


def test_changes_carry_their_path_as_steps_into_the_side_view(db: Path) -> None:
    async def main() -> None:
        with anyio.fail_after(30):
            async for client in two_sessions.api_client(db):
                diff = await client.get("/api/diff", params={"a": "1", "b": "2"})
                assert diff.status_code == 200, diff.text[:300]
                (exchange,) = diff.json()["exchanges"]
                changes = {c["path"]: c for c in exchange["changes"]}
                assert {p: c["segments"] for p, c in changes.items()} == {
                    "result.tools[name=weather].inputSchema.required[1]": [
                        "result", "tools", {"field": "name", "value": "weather"}, "inputSchema", "required", 1
                    ],
                    'result._meta["example.com/note"]': [
                        "result", "_meta", "example.com/note"
                    ],
                }  # fmt: skip
                side = await client.get(
                    "/api/diff/side", params={"session": 2, "seq": exchange["replay_seq"]}
                )
                assert side.status_code == 200, side.text[:300]
                view = side.json()["view"]
                for change in changes.values():
                    assert _follow(view, change["segments"]) == change["after"]

    anyio.run(main)
