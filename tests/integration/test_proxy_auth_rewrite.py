"""What `proxy --rewrite-auth-metadata` changes, byte for byte, against a scripted upstream
(tests/peers/scripted_http_server.py): a gzip-encoded resource metadata document is sent decoded and
rewritten with a matching Content-Length; URLs on other origins are kept; a 401 challenge's
resource_metadata names the proxy; the rows keep what the server sent, `meta.rewritten_to` what the
client got. Without the option nothing changes but the labels."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx

from tests.http_peers import proxy_in_process, scripted_http_server
from tests.recorded import poll_until


def _rows(db: Path) -> list[tuple[str | None, int | None, bytes, dict]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT http_path, http_status, raw, meta FROM message WHERE direction = 's2c' ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return [(r[0], r[1], bytes(r[2] or b""), json.loads(r[3] or "{}")) for r in rows]


def test_rewritten_for_the_client_recorded_as_sent(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    with (
        scripted_http_server() as base,
        proxy_in_process(f"{base}/mcp", db, "--rewrite-auth-metadata") as (url, _proxy),
    ):
        proxy = url.rsplit("/", 1)[0]
        prm = httpx.get(f"{proxy}/.well-known/oauth-protected-resource/mcp")
        refused = httpx.post(f"{proxy}/protected", json={})
    assert prm.status_code == 200 and "content-encoding" not in prm.headers
    assert int(prm.headers["content-length"]) == len(prm.content)
    assert prm.json() == {
        "resource": f"{proxy}/mcp",
        "authorization_servers": [f"{proxy}/", "https://idp.example/"],
    }
    assert refused.status_code == 401
    assert (
        f'resource_metadata="{proxy}/.well-known/oauth-protected-resource/mcp"'
        in (refused.headers["www-authenticate"])
    )
    rows = poll_until(lambda: _rows(db), lambda rows: len(rows) >= 2, "both responses recorded")
    by_path = {path: (status, raw, meta) for path, status, raw, meta in rows}
    _status, raw, meta = by_path["/.well-known/oauth-protected-resource/mcp"]
    assert json.loads(raw)["resource"] == f"{base}/mcp"  # the server's (decoded) bytes
    assert meta["auth_step"] == "resource-metadata" and meta["content_encoding"] == "gzip"
    assert json.loads(meta["rewritten_to"]["body"]) == prm.json()
    _status, _raw, meta = by_path["/protected"]
    assert meta["rewritten_to"]["www-authenticate"] == refused.headers["www-authenticate"]


def test_without_the_option_only_labels(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    with scripted_http_server() as base, proxy_in_process(f"{base}/mcp", db) as (url, _proxy):
        proxy = url.rsplit("/", 1)[0]
        prm = httpx.get(f"{proxy}/.well-known/oauth-protected-resource/mcp")
        refused = httpx.post(f"{proxy}/protected", json={})
    assert prm.headers["content-encoding"] == "gzip" and prm.json()["resource"] == f"{base}/mcp"
    assert base in refused.headers["www-authenticate"]
    rows = poll_until(lambda: _rows(db), lambda rows: len(rows) >= 2, "both responses recorded")
    assert all("rewritten_to" not in meta for _p, _s, _r, meta in rows)
    assert any(meta.get("auth_step") == "resource-metadata" for _p, _s, _r, meta in rows)
