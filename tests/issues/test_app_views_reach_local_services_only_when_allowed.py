"""A recorded App view that declares loopback, private-network or plain-http domains, or device
permissions, gets none of them until the user allows them for that view; the API says what the view
asked for and what was kept (issue #33, finding 7)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

from inspector.api.app import create_app
from inspector.apps.policy import held_reason
from inspector.share.importer import import_jsonl
from inspector.store import open_engine

TOKEN = "t" * 32
LOCAL = [
    "http://127.0.0.1:8080",
    "https://localhost:3000",
    "https://*.localhost",
    "https://192.168.1.1",
    "https://10.0.0.5",
    "https://172.16.0.1",
    "https://169.254.169.254",
    "https://127.1",
    "https://2130706433",
    "http://api.example.com",
    "https:",
]
PUBLIC = "https://api.example.com"
UI_META = {
    "csp": {"connectDomains": [PUBLIC, *LOCAL], "frameDomains": ["http://192.168.0.10"]},
    "permissions": {"camera": {}, "microphone": {}, "clipboardWrite": {}},
}


def recording() -> list[bytes]:
    def rpc(seq: int, direction: str, body: dict[str, Any], method: str, answers: int | None = None) -> bytes:
        raw = orjson.dumps({"jsonrpc": "2.0", "id": seq if answers is None else answers, **body}).decode()
        return orjson.dumps(
            {"type": "message", "session": 1, "seq": seq, "ts_ns": 10**18 + seq, "direction": direction,
             "channel": "stdout" if direction == "s2c" else "stdin", "raw": raw, "size": len(raw),
             "parse_status": "ok", "kind": "response" if answers else "request", "method": method,
             "rpc_id": str(seq if answers is None else answers), "answers_seq": answers}
        )  # fmt: skip

    tool = {"name": "show", "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": "ui://v"}}}
    content = {
        "uri": "ui://v",
        "mimeType": "text/html;profile=mcp-app",
        "text": "<p>v</p>",
        "_meta": {"ui": UI_META},
    }
    return [
        orjson.dumps({"format": "mcp-inspector-session", "version": 1}),
        orjson.dumps({"type": "session", "ref": 1, "kind": "stdio-wrap", "started_ns": 10**18}),
        rpc(1, "c2s", {"method": "tools/list", "params": {}}, "tools/list"),
        rpc(2, "s2c", {"result": {"tools": [tool]}}, "tools/list", 1),
        rpc(3, "c2s", {"method": "resources/read", "params": {"uri": "ui://v"}}, "resources/read"),
        rpc(4, "s2c", {"result": {"contents": [content]}}, "resources/read", 3),
        rpc(5, "c2s", {"method": "tools/call", "params": {"name": "show", "arguments": {}}}, "tools/call"),
        rpc(6, "s2c", {"result": {"content": []}}, "tools/call", 5),
    ]


@pytest.fixture(scope="module")
def apps_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("apps") / "apps.db"
    engine = open_engine(db)
    import_jsonl(engine, recording())
    engine.dispose()
    return db


async def _client(db: Path) -> AsyncIterator[httpx.AsyncClient]:
    engine = open_engine(db)
    transport = httpx.ASGITransport(app=create_app(engine, token=TOKEN, hosts=["127.0.0.1"]))
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=headers) as c:
        yield c
    engine.dispose()


def _view(db: Path, **grants: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(30):
            async for c in _client(db):
                r = await c.post("/api/sessions/1/apps/views", json={"seq": 5, **grants})
                assert r.status_code == 200, r.text
                out.update(r.json())
                served = await c.get(out["view_url"])
                assert served.headers["content-security-policy"] == out["csp"]

    anyio.run(main)
    return out


def _directive(csp: str, name: str) -> str:
    return next(d for d in csp.split("; ") if d.startswith(name + " "))


def test_local_sources_and_permissions_are_held_until_granted(apps_db: Path) -> None:
    view = _view(apps_db)
    connect = _directive(view["csp"], "connect-src")
    assert connect == f"connect-src {PUBLIC}", connect
    assert _directive(view["csp"], "frame-src") == "frame-src 'none'"
    assert view["allow"] == ""
    held = {(a["key"], a["value"]) for a in view["asks"] if a["status"] == "held"}
    assert held >= {("connectDomains", v) for v in LOCAL} | {("frameDomains", "http://192.168.0.10")}
    assert {("permissions", p) for p in ("camera", "microphone", "clipboardWrite")} <= held
    assert {"key": "connectDomains", "value": PUBLIC, "status": "kept", "reason": None} in view["asks"]
    assert all(a["reason"] for a in view["asks"] if a["status"] == "held")


def test_what_the_user_grants_for_the_view_is_kept(apps_db: Path) -> None:
    view = _view(apps_db, grant_sources=["http://127.0.0.1:8080"], grant_permissions=["camera"])
    assert _directive(view["csp"], "connect-src") == f"connect-src {PUBLIC} http://127.0.0.1:8080"
    assert view["allow"] == "camera"
    granted = {(a["key"], a["value"]) for a in view["asks"] if a["status"] == "granted"}
    assert granted == {("connectDomains", "http://127.0.0.1:8080"), ("permissions", "camera")}


def test_public_https_needs_no_grant() -> None:
    assert held_reason("https://api.example.com") is None and held_reason("wss://8.8.8.8:443/x") is None
