"""Regression (issue 13, findings 1-4), in a real Chromium: a page on another site, and a
DNS-rebinding page, against every listener (ui, proxy, serve --http, mock-server --http).

Before: `mock-server --http --unmatched forward --forward-cmd ...` spawned the forward command
for a cross-site `<form enctype="text/plain">` POST of a JSON-RPC batch; `serve --http` took
foreign Origins and Hosts; the proxy forwarded a rebinding page's requests upstream.

The attacker page is served by a real server at `http://evil.example:PORT` (Chromium maps the
name to 127.0.0.1 with `--host-resolver-rules`, so it is a real cross-site origin). It tries the
text/plain form POST, a `no-cors` fetch, a CORS JSON fetch and a websocket; every request that
reaches a listener must come back 403 (seen in the browser's network events), and nothing is
spawned (the forward command's marker file), forwarded (the proxy's recording upstream) or
opened (serve's sessions). The rebinding page is the page of `http://evil.example:<listener
port>/`: same-origin for the browser, so only the Host check stands between it and the listener.
Finally a real client's request does get through, so the payloads were not what failed.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from bench.ui_bench import CHROMIUM_ARGS
from inspector.api import UiServer
from inspector.store import list_sessions, open_engine
from tests.listeners import (
    BATCH,
    JSON_HEADERS,
    RecordingUpstream,
    empty_recording,
    forward_marker,
    inspector_proxy,
    mock_server_http,
    serve_http,
    wait_until,
)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
EVIL = "evil.example"
# Chromium's own Private/Local Network Access checks would block some of these requests before
# they reach us (other browsers, older versions and pages on the LAN do not): switch them off so
# that only our guard stands in the way.
NO_BROWSER_PNA = (
    "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,"
    "PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults"
)

ATTACK_PAGE = """<!doctype html><title>not your inspector</title>
<iframe name="sink"></iframe>
<script>
// A JSON body as one text/plain form field: name=value, the '=' swallowed by a string field.
function formFields(text) {
  const tail = text.endsWith("}]") ? '"}]' : '"}';
  return [text.slice(0, text.length - tail.length + 1) + ',"pad":"', tail];
}
window.formPost = (url, body) => {
  const [name, value] = formFields(body);
  const form = document.createElement("form");
  form.method = "POST"; form.enctype = "text/plain"; form.action = url; form.target = "sink";
  const input = document.createElement("input");
  input.type = "hidden"; input.name = name; input.value = value;
  form.appendChild(input); document.body.appendChild(form); form.submit();
};
window.tryFetch = async (url, init) => {
  try {
    const r = await fetch(url, init);
    return {type: r.type, status: r.status, text: r.type === "opaque" ? "" : await r.text()};
  } catch (e) { return {error: String(e)}; }
};
window.tryWebSocket = (url) => new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { ws.close(); resolve("open"); };
  ws.onerror = () => resolve("error");
  ws.onclose = (e) => resolve("closed " + e.code);
});
</script>"""


@dataclass
class Listener:
    """One listener under attack: where to POST, what, where its websocket would be, and the
    evidence that something got through (`effect()` is truthy once it did)."""

    name: str
    post_url: str
    body: str
    ws_url: str
    get_path: str
    effect: Callable[[], Any]
    legitimate: Callable[[], None]

    @property
    def port(self) -> int:
        return int(self.post_url.split("/")[2].rsplit(":", 1)[1])

    @property
    def path(self) -> str:
        return "/" + self.post_url.split("/", 3)[3]


class _AttackSite:
    """The attacker's own web server (a real origin: http://evil.example:PORT)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                data = ATTACK_PAGE.encode()
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://{EVIL}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make test` (it installs it)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {EVIL} 127.0.0.1", NO_BROWSER_PNA],
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def attack_site() -> Iterator[_AttackSite]:
    site = _AttackSite()
    yield site
    site.close()


@contextmanager
def _ui(db: Path, tmp: Path) -> Iterator[Listener]:
    cmd, marker = forward_marker(tmp)
    server = UiServer(open_engine(db), port=0).start()
    try:
        token = server.token
        body = json.dumps({"target": {"command": cmd.split()}})
        base = server.base_url

        def legitimate() -> None:
            answer = httpx.post(f"{base}/api/clients", content=body, headers={**JSON_HEADERS, "authorization": f"Bearer {token}"}, timeout=60)  # fmt: skip
            assert answer.status_code == 201, answer.text

        # The attacker is given the token too: Host and Origin must hold on their own.
        yield Listener(
            "ui",
            f"{base}/api/clients?token={token}",
            body,
            f"ws://127.0.0.1:{server.port}/api/live?token={token}",
            f"/api/sessions?token={token}",
            marker.exists,
            legitimate,
        )
    finally:
        server.stop()


@contextmanager
def _proxy(db: Path, _tmp: Path) -> Iterator[Listener]:
    with RecordingUpstream() as upstream, inspector_proxy(f"{upstream.url}/mcp", db, warm=True) as (url, _p):

        def legitimate() -> None:
            assert httpx.post(url, content=json.dumps(BATCH), headers=JSON_HEADERS).status_code == 200

        yield Listener(
            "proxy",
            url,
            json.dumps(BATCH),
            url.replace("http://", "ws://"),
            "/mcp",
            lambda: upstream.requests,
            legitimate,
        )


@contextmanager
def _serve(db: Path, _tmp: Path) -> Iterator[Listener]:
    def sessions() -> list[Any]:
        return [s for s in list_sessions(open_engine(db)) if s.kind == "mock-server"]

    with serve_http(db, warm=True) as url:

        def legitimate() -> None:
            with httpx.stream("POST", url, content=json.dumps(BATCH), headers=JSON_HEADERS) as answer:
                assert answer.status_code == 200

        yield Listener(
            "serve", url, json.dumps(BATCH), url.replace("http://", "ws://"), "/mcp", sessions, legitimate
        )


@contextmanager
def _mock_server(db: Path, tmp: Path) -> Iterator[Listener]:
    cmd, marker = forward_marker(tmp)
    ref = empty_recording(db)
    with mock_server_http(db, ref, "--unmatched", "forward", "--forward-cmd", cmd, warm=True) as url:

        def legitimate() -> None:
            with httpx.stream("POST", url, content=json.dumps(BATCH), headers=JSON_HEADERS, timeout=60) as r:
                assert r.status_code == 200
                assert [line for line in r.iter_lines() if line.startswith("data:")]

        yield Listener(
            "mock-server",
            url,
            json.dumps(BATCH),
            url.replace("http://", "ws://"),
            "/mcp",
            marker.exists,
            legitimate,
        )


LISTENERS = {"ui": _ui, "proxy": _proxy, "serve": _serve, "mock-server": _mock_server}


def _statuses(page: Page, listener: Listener, page_url: str = "") -> list[tuple[str, int]]:
    """Record (method, status) of every response the browser got from the listener's port (but
    the rebinding page's own document, which the attacker served)."""
    seen: list[tuple[str, int]] = []
    marker = f":{listener.port}/"

    def note(r: Any) -> None:
        if marker in r.url and r.url != page_url:
            seen.append((r.request.method, r.status))

    page.on("response", note)
    return seen


def _cross_site(page: Page, listener: Listener, origin: str) -> None:
    seen = _statuses(page, listener)
    page.goto(f"{origin}/")
    with page.expect_response(lambda r: r.url.startswith(listener.post_url.split("?")[0])) as form:
        page.evaluate("([url, body]) => formPost(url, body)", [listener.post_url, listener.body])
    assert form.value.status == 403, (listener.name, "form", form.value.status)
    no_cors = {
        "method": "POST",
        "mode": "no-cors",
        "headers": {"content-type": "text/plain"},
        "body": listener.body,
    }
    with page.expect_response(lambda r: r.url.startswith(listener.post_url.split("?")[0])) as opaque:
        result = page.evaluate("([url, init]) => tryFetch(url, init)", [listener.post_url, no_cors])
    assert result.get("type") == "opaque", result
    assert opaque.value.status == 403, (listener.name, "no-cors fetch", opaque.value.status)
    cors = {"method": "POST", "headers": {"content-type": "application/json"}, "body": listener.body}
    result = page.evaluate("([url, init]) => tryFetch(url, init)", [listener.post_url, cors])
    assert "error" in result, (listener.name, "a CORS fetch from another site was answered", result)
    outcome = page.evaluate("(url) => tryWebSocket(url)", listener.ws_url)
    assert outcome != "open", (listener.name, "websocket", outcome)
    assert seen and all(status == 403 for _method, status in seen), (listener.name, seen)


def _rebinding(page: Page, listener: Listener) -> None:
    origin = f"http://{EVIL}:{listener.port}"
    # The rebinding page's first load came from the attacker's address; later requests to the same
    # name reach the listener (here: every request but the document itself goes to the network).
    page.route(f"{origin}/", lambda route: route.fulfill(body=ATTACK_PAGE, content_type="text/html"))
    seen = _statuses(page, listener, f"{origin}/")
    page.goto(f"{origin}/")
    read = page.evaluate("(path) => tryFetch(path, {})", listener.get_path)
    assert read.get("status") == 403 and "Host" in read.get("text", ""), (listener.name, read)
    post = {"method": "POST", "headers": {"content-type": "application/json"}, "body": listener.body}
    sent = page.evaluate("([path, init]) => tryFetch(path, init)", [listener.path, post])
    assert sent.get("status") == 403 and "Host" in sent.get("text", ""), (listener.name, sent)
    with page.expect_response(lambda r: r.request.method == "POST" and f":{listener.port}/" in r.url) as form:
        page.evaluate("([url, body]) => formPost(url, body)", [listener.path, listener.body])
    assert form.value.status == 403, (listener.name, "same-origin form", form.value.status)
    ws_url = f"ws://{EVIL}:{listener.port}" + listener.ws_url.split(str(listener.port), 1)[1]
    outcome = page.evaluate("(url) => tryWebSocket(url)", ws_url)
    assert outcome != "open", (listener.name, "rebinding websocket", outcome)
    assert seen and all(status == 403 for _method, status in seen), (listener.name, seen)


@pytest.mark.parametrize("name", list(LISTENERS))
def test_pages_of_other_sites_and_rebinding_pages_are_refused(
    name: str, browser: Browser, attack_site: _AttackSite, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        listener = stack.enter_context(LISTENERS[name](tmp_path / "rec.db", tmp_path))
        context = browser.new_context()
        stack.callback(context.close)
        context.set_default_timeout(20_000)
        _cross_site(context.new_page(), listener, attack_site.origin)
        _rebinding(context.new_page(), listener)
        assert not listener.effect(), f"{name}: a refused request was acted on: {listener.effect()}"
        listener.legitimate()
        wait_until(listener.effect, f"{name}: the legitimate request to take effect")
