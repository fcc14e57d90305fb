"""Why a stdio server broke, in a real Chromium (issue 37, item 3): the message detail of a log line
on a server's stdout shows its class, what the clients do with it and the fix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.lint_recordings import Stdio, store


@pytest.fixture(scope="module")
def noisy_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UiServer, int, int]]:
    db: Path = tmp_path_factory.mktemp("stdio-note-ui") / "lint.db"
    s = Stdio().handshake()
    seq = s.send("s2c", b"2025-06-01 12:00:00,001 INFO handling tools/list")
    sid = store(db, s, name="noisy", kind="stdio-wrap")
    server = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    yield server, sid, seq
    server.stop()


def test_a_log_line_on_stdout_says_what_clients_do_and_the_fix(
    page: Page, noisy_ui: tuple[UiServer, int, int]
) -> None:
    ui, sid, seq = noisy_ui
    page.goto(ui.url(f"/sessions/{sid}/messages/{seq}"))
    finding = page.get_by_test_id("detail").get_by_test_id("finding")
    expect(finding).to_have_count(1)
    expect(finding).to_have_attribute("data-rule", "stdout-log-line")
    note = finding.get_by_test_id("stdio-note")
    expect(note.locator(".stdio-what")).to_contain_text("A log line on stdout")
    expect(note.locator(".stdio-clients")).to_contain_text("Python SDK")
    expect(note.locator(".stdio-clients")).to_contain_text("TypeScript SDK")
    expect(note.locator(".stdio-fix")).to_contain_text("write logs to stderr")
    shot(page, "stdio-note-detail")
