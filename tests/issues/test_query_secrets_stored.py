"""Regression: secrets in URL query parameters (`?api_key=...`, `access_token=...`) were stored in
plain text, both in each row's `http_path` and in the session's `target` (the proxy's --target),
and so were searchable in the full-text index. They are now `[secret:query.NAME]` placeholders.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.http_peers import inspector_proxy
from tests.secrets_scan import placeholders, secret_leaks, secrets_server

KEY = "QueryKeySecret0e4d1"
TOKEN = "QueryTokenSecret93ab2"


def test_query_secrets_are_placeholders_in_path_and_target(tmp_path: Path) -> None:
    db = tmp_path / "proxy.db"
    with (
        secrets_server(tmp_path / "log.jsonl") as url,
        inspector_proxy(f"{url}?api_key={KEY}", db, warm=True) as (proxy_url, _proxy),
    ):
        ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
        reply = httpx.post(
            f"{proxy_url}&access_token={TOKEN}",
            content=ping,
            headers={"content-type": "application/json", "accept": "application/json, text/event-stream"},
        )
        assert reply.status_code in (200, 400), reply.text  # answered (the server wants initialize first)
    assert secret_leaks(db, [KEY, TOKEN]) == []
    stored = placeholders(db)
    assert "/mcp?api_key=[secret:query.api_key]&access_token=[secret:query.access_token]" in stored
    assert f"{url}?api_key=[secret:query.api_key]" in stored  # the session's target
