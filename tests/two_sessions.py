"""Two imported sessions whose one exchange differs in its answer, and an API client on them: what
the diff tests (`tests/api/test_diff_change_segments.py`, `tests/issues/test_deep_json_is_diffed_and_exported.py`)
build their databases from, through the importer (`share.importer.import_jsonl`) as a session file would."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import orjson

from inspector.api.app import create_app
from inspector.share.importer import import_jsonl
from inspector.store import open_engine

TOKEN = "t" * 32


def session_file(method: str, request: str, responses: tuple[str, str]) -> list[bytes]:
    """The lines of a session file: sessions 1 and 2 (stdio), each one `request` (`method`, id 1)
    answered by its own of `responses` (JSON text, id 1)."""
    lines = [orjson.dumps({"format": "mcp-inspector-session", "version": 1})]
    for ref, response in zip((1, 2), responses, strict=True):
        common = {
            "type": "message",
            "session": ref,
            "parse_status": "ok",
            "method": method,
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


def imported(path: Path, lines: list[bytes]) -> Path:
    """A database at `path` holding the sessions of `lines` (a session file)."""
    engine = open_engine(path)
    try:
        import_jsonl(engine, lines)
    finally:
        engine.dispose()
    return path


async def api_client(db: Path) -> AsyncIterator[httpx.AsyncClient]:
    """An API client on `db` (in-process, with the UI's token)."""
    engine = open_engine(db)
    asgi = create_app(engine, token=TOKEN, hosts=["127.0.0.1"])
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers={"authorization": f"Bearer {TOKEN}"}
    ) as client:
        yield client
    engine.dispose()
