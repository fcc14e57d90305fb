"""Browser hardening headers on every answer of the UI server (pages, assets, API, refusals).

The UI shows what MCP peers sent, so recorded data is hostile input. The
Content-Security-Policy lets the page run only the scripts it was built with
(no inline script, no eval), talk only to this server and be framed by
nobody; `nosniff` keeps a browser from reading a JSON or raw-bytes answer as
HTML or script; `no-referrer` keeps page URLs out of other servers' logs.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["OWN_POLICY_PREFIX", "SecurityHeaders", "content_security_policy"]

# App views (inspector.api.routes_apps) carry their own policy and are framed by the UI: an answer
# under this prefix that sets a Content-Security-Policy keeps it, without ours or X-Frame-Options.
OWN_POLICY_PREFIX = "/app-view/"


def content_security_policy(hosts: Iterable[str] = ()) -> str:
    """The page policy; `hosts` (host:port) are this server's names, for its websocket."""
    # CSP3 lets 'self' match ws: on the same host and port, but not every browser does: name them
    # (not IPv6 literals: CSP's host syntax has none, and Chromium would report an invalid source).
    websockets = "".join(f" ws://{h}" for h in sorted(hosts) if "[" not in h)
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            # data: URLs: image and audio content blocks of MCP results are shown inline from their base64.
            "img-src 'self' data:",
            "media-src 'self' data:",
            # CodeMirror (style-mod) writes its theme into <style> elements. Inline style cannot run code,
            # and with every fetch and load limited to 'self' it cannot send what the page shows elsewhere.
            "style-src 'self' 'unsafe-inline'",
            f"connect-src 'self'{websockets}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeaders:
    """ASGI middleware: add the hardening headers to every HTTP answer."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", content_security_policy(hosts).encode()),
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
        ]
        self.own_policy_headers = self.headers[2:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        own_prefix = scope["path"].startswith(OWN_POLICY_PREFIX)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                own = own_prefix and any(k.lower() == b"content-security-policy" for k, _ in headers)
                message["headers"] = [*headers, *(self.own_policy_headers if own else self.headers)]
            await send(message)

        await self.app(scope, receive, send_with_headers)
