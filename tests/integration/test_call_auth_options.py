"""`call`'s OAuth options refuse what cannot work with a clear message and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_in_process import run


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--url", "http://127.0.0.1:9/mcp", "--client-id", "x"], "go with --auth"),
        (["--auth", "--", "python", "server.py"], "--auth needs --url"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--auth", "--client-secret", "s"],
            "--client-secret needs --client-id",
        ),
        (["--url", "http://127.0.0.1:9/mcp", "--client-private-key", "k.pem"], "go with --auth"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--auth", "--client-private-key", "k.pem"],
            "--client-private-key needs --client-id",
        ),
    ],
)
def test_bad_auth_options(tmp_path: Path, args: list[str], said: str) -> None:
    done = run("call", "tools/list", "--db", str(tmp_path / "rec.db"), *args)
    assert done.returncode == 2, done.stderr
    assert said in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
