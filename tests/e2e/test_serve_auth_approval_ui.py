"""`serve --approve ui` in Chromium: the approval page, approved by a click, sends the browser to the
client's redirect URI with a code that the token endpoint exchanges; a page from another origin that
posts the same approval (even knowing the request id) is refused by the listener's guard (403) and
no code reaches the client."""

from __future__ import annotations

import base64
import hashlib
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import ARTIFACTS, new_context
from tests.integration.serve_helpers import serve_http

VERIFIER = "a-verifier-of-the-test-client-" + "x" * 20
EVIL_FORM = """<!doctype html><title>elsewhere</title>
<form id=f method=post action="ACTION"><input name=request value="REQUEST"><input name=decision value=approve></form>
<script>document.getElementById("f").submit()</script>"""


@contextmanager
def _client_site(evil: dict[str, str]) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """The test client's loopback site: /callback records what it is sent; /evil.html is the foreign page."""
    seen: list[dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            parts = urlsplit(self.path)
            if parts.path == "/callback":
                seen.append(dict(parse_qsl(parts.query)))
                body = b"<!doctype html><title>callback</title><p id=done>back at the client</p>"
            else:
                body = evil["page"].encode()
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}", seen
    finally:
        site.shutdown()
        site.server_close()


def test_approval_page_click_and_a_foreign_origin_refused(browser: Browser, db_path: Path) -> None:
    evil: dict[str, str] = {}
    with serve_http(db_path, "--approve", "ui", warm=True) as url, _client_site(evil) as (site, seen):
        origin = url.removesuffix("/mcp")
        callback = f"{site}/callback"
        client = httpx.post(
            f"{origin}/register",
            json={
                "redirect_uris": [callback],
                "token_endpoint_auth_method": "none",
                "client_name": "e2e client",
            },
        ).json()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
        authorize = f"{origin}/authorize?" + urlencode(
            {
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": callback,
                "state": "st-1",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "resource": url,
                "scope": "mcp",
            }  # fmt: skip
        )
        context = new_context(browser)
        try:
            page = context.new_page()
            page.goto(authorize)
            expect(page.locator("#client")).to_have_text("e2e client")
            expect(page.locator("#scopes")).to_have_text("mcp")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "serve-auth-approval.png"))
            request_id = page.locator("input[name=request]").get_attribute("value")
            assert request_id

            # Another origin posts the approval itself: the guard refuses it, nothing is issued.
            evil["page"] = EVIL_FORM.replace("ACTION", f"{origin}/authorize/decision").replace(
                "REQUEST", request_id
            )
            foreign = context.new_page()
            foreign.goto(f"{site}/evil.html")
            expect(foreign.locator("body")).to_contain_text("is not allowed (cross-site request)")
            assert seen == []

            # The person clicks Approve: the browser lands on the client's callback with a code.
            page.locator("#approve").click()
            expect(page.locator("#done")).to_be_visible()
            assert len(seen) == 1 and seen[0]["state"] == "st-1" and seen[0]["iss"] == origin
            tokens = httpx.post(
                f"{origin}/token",
                data={
                    "grant_type": "authorization_code",
                    "code": seen[0]["code"],
                    "redirect_uri": callback,
                    "client_id": client["client_id"],
                    "code_verifier": VERIFIER,
                    "resource": url,
                },  # fmt: skip
            )
            assert tokens.status_code == 200, tokens.text
            assert tokens.json()["scope"] == "mcp"
        finally:
            context.close()
