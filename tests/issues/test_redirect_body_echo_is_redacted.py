"""Issue #15: an authorization redirect's body kept the code the Location header had lost.

The recorder redacted `code` and `state` in a 302's Location header, but an
Express authorization server's body repeats the URL ("Found. Redirecting to
http://127.0.0.1:PORT/callback?code=...&state=..."), and that copy was stored as
sent. The secret `name=value` pairs of Location-like headers are now replaced
in the body as well.
"""

from __future__ import annotations

from inspector.capture.redact import Redaction


def test_code_in_redirect_body_is_replaced() -> None:
    url = "http://127.0.0.1:5/callback?code=abc-123-SECRET&state=st4te-SECRET&iss=http%3A%2F%2Fas"
    body = f"Found. Redirecting to {url}".encode()
    row = {
        "session_id": 1,
        "raw": body,
        "size": len(body),
        "kind": "unknown",
        "channel": "http-response",
        "http_headers": [["Location", url], ["Content-Type", "text/plain"]],
        "http_path": "/authorize?response_type=code",
        "meta": None,
    }
    Redaction().row(row)
    assert b"SECRET" not in row["raw"]
    assert b"code=[secret:query.code]&state=[secret:query.state]&iss=http" in row["raw"]
    assert "SECRET" not in str(row["http_headers"])
    assert {"query.code", "query.state"} <= set(row["meta"]["redacted"])
