"""A server that logs credentials on stderr put them in the database: stderr rows skipped the redaction
step (only headers, URLs and JSON keys were looked at, and a stdio row with nothing configured was not
looked at at all). Now a log line's `Bearer X`, `NAME=VALUE` / `NAME: VALUE` with a secret-like NAME,
and URLs' secrets become placeholders; ordinary log text stays as it was."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from inspector.capture.redact import Redaction
from inspector.capture.redact_text import redact_line
from tests.secrets_scan import secret_leaks
from tests.warm_peers import inspector_argv

SECRETS = [
    "sk-live-4f9a8b7c6d",
    "Tok3nValue99",
    "hunter2pass",
    "QuerySecret55",
    "ghp_abcdefghijklmnopqrstuvwxyz",
]

LOGGER = f"""
import sys
print("Authorization: Bearer {SECRETS[0]}", file=sys.stderr)
print('config: {{"api_key": "{SECRETS[1]}", "max_tokens": 4096}}', file=sys.stderr)
print("login password={SECRETS[2]} user=ada", file=sys.stderr)
print("GET https://api.example.com/v1?access_token={SECRETS[3]}&page=2", file=sys.stderr)
print("GITHUB_TOKEN={SECRETS[4]}", file=sys.stderr)
print("Bearer authentication enabled; max_tokens=4096; exit code: 1", file=sys.stderr)
sys.stderr.flush()
"""


def test_wrapped_server_stderr_holds_no_secret(tmp_path: Path) -> None:
    db = tmp_path / "rec.db"
    logger = tmp_path / "logger.py"  # a file: the command line (the session's target) holds no secret
    logger.write_text(LOGGER)
    wrap = inspector_argv("wrap", "--quiet", "--db", str(db), "--")  # forked from the warm server
    done = subprocess.run(
        [*wrap, sys.executable, str(logger)],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for secret in SECRETS:
        assert secret.encode() in done.stderr  # forwarded unchanged to the host
    with sqlite3.connect(db) as conn:
        lines = [r[0] for r in conn.execute("SELECT raw FROM message WHERE channel = 'stderr' ORDER BY seq")]
    assert len(lines) == 6
    assert secret_leaks(db, SECRETS) == []
    assert lines[0] == b"Authorization: Bearer [secret:log.authorization]\n"
    assert b"[secret:log.api_key]" in lines[1] and b'"max_tokens": 4096' in lines[1]
    assert b"user=ada" in lines[2]
    assert lines[5] == b"Bearer authentication enabled; max_tokens=4096; exit code: 1\n"


def test_line_rules() -> None:
    rules = Redaction()
    seen: list[str] = []

    def line(text: str) -> str:
        return redact_line(text.encode(), rules._secret_arg, rules.url, seen).decode()

    assert line("token: abc123def") == "token: [secret:log.token]"
    assert line("Basic dXNlcjpwYXNz") == "Basic [secret:log.authorization]"
    assert line("token_file=/etc/x count=3") == "token_file=/etc/x count=3"
    assert line("the word token appears") == "the word token appears"
    assert line("'client_secret'='cs-1'") == "'client_secret'='[secret:log.client_secret]'"
