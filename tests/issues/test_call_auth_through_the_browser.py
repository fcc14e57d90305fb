"""Issue #15: `call --auth` (interactive) authorizes through the system browser and a loopback listener.

Without --auth-non-interactive the client opens the authorization URL with the
system browser ($BROWSER: here curl, which follows the AS's redirect as a
browser would) and waits for the redirect on its 127.0.0.1 callback listener
(behind the listener guard). Before #15 there was no --auth at all.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conformance.suite import NODE, SUITE, run_scenario


@pytest.mark.timeout(120)
def test_browser_and_callback_listener(tmp_path: Path) -> None:
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers`")
    curl = shutil.which("curl")
    assert curl, "curl plays the browser"
    checks, output = run_scenario(
        "auth/metadata-default",
        tmp_path,
        adapter_args="--browser",
        env={"BROWSER": f"{curl} -sL -o /dev/null %s"},
    )
    bad = [c for c in checks if c["status"] in ("FAILURE", "WARNING")]
    assert checks and not bad, f"{bad}\n{output[-3000:]}"
    conn = sqlite3.connect(tmp_path / "rec.db")
    rows = conn.execute(
        "SELECT http_headers FROM message WHERE json_extract(meta, '$.via') = 'browser' AND direction = 's2c'"
    ).fetchall()
    conn.close()
    assert rows and "callback?code=[secret:query.code]" in rows[0][0]
