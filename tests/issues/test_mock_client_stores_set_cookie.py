"""Regression: the mock client's HTTP path recorded response headers without redaction, so a
server's `Set-Cookie` (a session credential) was stored in plain text by `mcp-inspect call --url`
(redaction lived in the proxy's transport only). Every producer's rows now pass one redaction
step in the recorder: the cookie keeps its name and attributes, its value is a placeholder.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli_in_process import run
from tests.peers import secrets_server as upstream
from tests.secrets_scan import placeholders, secret_leaks, secrets_server


def test_a_response_cookie_is_not_stored_by_the_mock_client(tmp_path: Path) -> None:
    db = tmp_path / "call.db"
    with secrets_server(tmp_path / "log.jsonl") as url:
        out = run("call", "tools/list", "--db", str(db), "--url", url, timeout=120)  # the CLI in-process
    assert out.returncode == 0, out.stderr
    assert secret_leaks(db, [upstream.COOKIE]) == []
    assert "sid=[secret:set-cookie.sid]; Path=/; HttpOnly" in placeholders(db)
