"""Regression: the network view (`api/network.py`) had a secret list of its own, different from the
recorder's: a header such as `X-Upstream-Token` was stored in plain text by the proxy while the
view showed `[redacted]`, so the view hid what the database (and the message rows, export, search)
still held. There is now one list, applied when rows are recorded; the view shows what is stored,
the same placeholder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from inspector.store import list_sessions, open_engine
from tests.api.conftest import serve
from tests.http_peers import inspector_proxy
from tests.secrets_scan import secret_leaks, secrets_server

TOKEN = "UpstreamTokenSecret7a1f3"


def test_the_view_and_the_store_agree_on_a_token_header(tmp_path: Path) -> None:
    db = tmp_path / "proxy.db"
    with (
        secrets_server(tmp_path / "log.jsonl") as url,
        inspector_proxy(url, db, warm=True) as (proxy_url, _proxy),
    ):
        body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
        headers = {
            "content-type": "application/json",
            "accept": "application/json",
            "x-upstream-token": TOKEN,
        }
        httpx.post(proxy_url, content=body, headers=headers)
    assert secret_leaks(db, [TOKEN]) == []
    engine = open_engine(db, create=False)
    (session,) = list_sessions(engine)
    engine.dispose()
    for api in serve(db):
        exchanges: Any = api.json(f"/api/sessions/{session.id}/exchanges")
        shown = exchanges[0]["request_headers"]["x-upstream-token"]
        stored = dict(exchanges[0]["messages"][0]["http_headers"])["x-upstream-token"]
        assert shown == stored == "[secret:x-upstream-token]"
