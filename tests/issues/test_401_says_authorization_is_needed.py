"""Issue #15: `call` against a server that answers 401 waited for its whole timeout, then said
"no response to id 1 within 60s".

A 401 (or 403) to a JSON-RPC request will never be followed by an answer: the
connection now says at once that the server requires authorization (with its
WWW-Authenticate) and how to give it (`--auth`, or an Authorization header).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conformance.suite import NODE, SUITE, run_scenario


@pytest.mark.timeout(120)
def test_401_is_explained_at_once(tmp_path: Path) -> None:
    if not NODE.exists() or not SUITE.exists():
        pytest.fail("the conformance suite is not installed: run `make peers`")
    started = time.monotonic()
    _checks, output = run_scenario("auth/metadata-default", tmp_path, adapter_args="--no-auth")
    assert "answered 401 Unauthorized" in output, output[-3000:]
    assert "resource_metadata=" in output and "--auth (call, replay, versions)" in output
    assert time.monotonic() - started < 18  # the adapter's --timeout is 20 s: no waiting for it
