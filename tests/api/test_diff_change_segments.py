"""`/api/diff` gives each change's path as steps (`segments`) as well as text: the UI follows the steps
into `/api/diff/side`'s `view` to highlight the change, and reads no path text itself (the diff's path
grammar lives once, in `replay/paths.py`; issue 35, one implementation per job)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

from inspector.api.app import create_app
from inspector.share.importer import import_jsonl
from inspector.store import open_engine

TOKEN = "t" * 32


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
    lines = [orjson.dumps({"format": "mcp-inspector-session", "version": 1})]
    for ref, result in ((1, _result(["city"], "one")), (2, _result(["city", "units"], "two"))):
        request = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).decode()
        response = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).decode()
        common = {
            "type": "message",
            "session": ref,
            "parse_status": "ok",
            "method": "tools/list",
            "rpc_id": "1",
        }
        lines += [
            orjson.dumps({"type": "session", "ref": ref, "kind": "stdio-wrap", "started_ns": 10**18, "name": f"s{ref}"}),
            orjson.dumps(
                {**common, "seq": 1, "ts_ns": 10**18 + 1, "direction": "c2s", "channel": "stdin",
                 "raw": request, "size": len(request), "kind": "request"}
            ),
            orjson.dumps(
                {**common, "seq": 2, "ts_ns": 10**18 + 2, "direction": "s2c", "channel": "stdout",
                 "raw": response, "size": len(response), "kind": "response", "answers_seq": 1, "latency_ns": 1}
            ),
        ]  # fmt: skip
    return lines


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("segments") / "segments.db"
    engine = open_engine(path)
    try:
        import_jsonl(engine, session_file())
    finally:
        engine.dispose()
    return path


async def _client(db: Path) -> AsyncIterator[httpx.AsyncClient]:
    engine = open_engine(db)
    asgi = create_app(engine, token=TOKEN, hosts=["127.0.0.1"])
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers={"authorization": f"Bearer {TOKEN}"}
    ) as client:
        yield client
    engine.dispose()


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
            async for client in _client(db):
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
