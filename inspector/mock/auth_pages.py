"""The HTML pages of the `serve --auth` authorization server: an error page and the approval page.

Everything shown is escaped; the pages load nothing (CSP `default-src
'none'`, inline style only) and cannot be framed (clickjacking). The
approval form posts to the same origin, so the listener guard's Origin check
is its CSRF defence: `Referrer-Policy` must not be `no-referrer`, or
Chromium sends `Origin: null` on that POST and the guard refuses it.
"""

from __future__ import annotations

from html import escape

__all__ = ["approval_page", "message_page", "page_headers"]


def page_headers() -> dict[str, str]:
    return {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        "x-frame-options": "DENY",
        "referrer-policy": "same-origin",  # no-referrer would make the form's Origin null
    }


def message_page(title: str, text: str) -> bytes:
    """An error page (when the client's redirect URI cannot be trusted with the error)."""
    return (
        f"<!doctype html><meta charset=utf-8><title>{escape(title)}</title>"
        f"<h1>{escape(title)}</h1><p>{escape(text)}</p>"
    ).encode()


def approval_page(
    *, request_id: str, client_name: str, resource: str, scopes: str, redirect: str, action: str
) -> bytes:
    """The page that asks a person to approve or deny one authorization request."""
    e = escape
    return f"""<!doctype html>
<html lang=en><meta charset=utf-8><title>Authorize {e(client_name)}</title>
<style>body{{font:15px system-ui,sans-serif;max-width:36em;margin:3em auto}}
button{{font:inherit;padding:.4em 1.2em;margin-right:1em}}code{{background:#eee;padding:0 .2em}}</style>
<h1>Authorize <span id=client>{e(client_name)}</span>?</h1>
<p>mcp-inspect serve (a mock authorization server for testing clients) was asked to let this client
use <code>{e(resource)}</code> with the scopes <code id=scopes>{e(scopes)}</code>.</p>
<p>The answer goes back to <code>{e(redirect)}</code>.</p>
<form method=post action="{e(action)}">
<input type=hidden name=request value="{e(request_id)}">
<button name=decision value=approve id=approve>Approve</button>
<button name=decision value=deny id=deny>Deny</button>
</form>
""".encode()
