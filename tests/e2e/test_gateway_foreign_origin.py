"""The gateway (`proxy --config`) against a page of another site and a DNS-rebinding page, in a
real Chromium: the same attacks as tests/issues/test_cross_site_pages_cannot_drive_listeners.py
(a text/plain form POST of a JSON-RPC batch, a no-cors fetch, a CORS fetch, a websocket) on each
route's MCP path and on a path no route serves. Every response the browser gets from the gateway
is a 403, neither upstream sees a request; then a real client's request does get through each
route, so the payloads were not what failed."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import httpx
from playwright.sync_api import Browser

from tests.gateway_helpers import gateway, route_table
from tests.issues.test_cross_site_pages_cannot_drive_listeners import (  # the attack page and browser
    Listener,
    _AttackSite,
    _cross_site,
    _rebinding,
    attack_site,
    browser,
)
from tests.listeners import BATCH, JSON_HEADERS, RecordingUpstream, wait_until

__all__ = ["attack_site", "browser"]  # fixtures, used by name


def test_the_gateway_refuses_other_sites_and_rebinding_pages(
    browser: Browser, attack_site: _AttackSite, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        one = stack.enter_context(RecordingUpstream())
        two = stack.enter_context(RecordingUpstream())
        config = (
            'listen = "127.0.0.1:0"\n'
            + route_table("one", "/one", f"{one.url}/mcp")
            + route_table("two", "/two", f"{two.url}/mcp")
        )
        base, _proc = stack.enter_context(gateway(config, tmp_path / "rec.db", tmp_path, warm=True))
        context = browser.new_context()
        stack.callback(context.close)
        context.set_default_timeout(20_000)
        for path in ("/one/mcp", "/two/mcp", "/nowhere/mcp"):
            url = f"{base}{path}"
            listener = Listener(
                f"gateway {path}",
                url,
                json.dumps(BATCH),
                url.replace("http://", "ws://"),
                path,
                lambda: one.requests or two.requests,
                lambda: None,
            )
            _cross_site(context.new_page(), listener, attack_site.origin)
            _rebinding(context.new_page(), listener)
        assert not one.requests and not two.requests, "a refused request reached an upstream"
        for path, upstream in (("/one/mcp", one), ("/two/mcp", two)):
            answer = httpx.post(f"{base}{path}", content=json.dumps(BATCH), headers=JSON_HEADERS, timeout=30)
            assert answer.status_code == 200, answer.text
            wait_until(
                lambda upstream=upstream: upstream.requests, f"{path}: the legitimate request upstream"
            )
            assert upstream.requests[0]["path"] == "/mcp"
