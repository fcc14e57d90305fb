"""Pause and resume recording from the UI (Chromium) during a live SDK client session (#20).

The official Python SDK client calls server-everything's echo tool through a real `mcp-inspect
wrap`; the session page's Pause button signals the wrap, the client keeps calling (every answer
arrives, nothing noticed), Resume, one more call. The timeline shows where recording paused and
how many messages were not recorded; the store holds none of the calls made while paused.

A page of another origin that knows the token cannot pause it (the same route, the one guard).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from inspector.api import UiServer
from inspector.store import get_session, list_sessions, open_engine
from tests.e2e.conftest import shot
from tests.e2e.foreign import foreign_page_outcome
from tests.e2e.test_intercept_ui import Client
from tests.shim_process import ended_session, messages
from tests.warm_peers import warm_wrap_argv


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, everything_cmd: list[str]) -> Iterator[tuple[UiServer, Client, Path]]:  # fmt: skip
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    db = tmp_path / "rec.db"
    client = Client(warm_wrap_argv(db, *everything_cmd, extra=("--quiet",)))
    assert client.result(60) == "connected"
    ui = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    try:
        yield ui, client, db
    finally:
        client.close()
        ui.stop()


def _echo(client: Client, text: str) -> None:
    client.calls.put({"message": text})
    assert client.result() == f"Echo: {text}"


FOREIGN = """
(async () => {
  const out = [];
  const url = API + '/api/sessions/SID/recording';
  try {
    await fetch(url + '?token=' + TOKEN, {method: 'POST', mode: 'no-cors', body: '{"paused": true}'});
    out.push('no-cors sent');
  } catch (e) { out.push('no-cors failed'); }
  try {
    const r = await fetch(url, {method: 'POST', body: '{"paused": true}',
      headers: {authorization: 'Bearer ' + TOKEN, 'content-type': 'application/json'}});
    out.push('header status ' + r.status);
  } catch (e) { out.push('header blocked'); }
  document.getElementById('out').textContent = out.join('; ') + '; done';
})();
"""


def _foreign_page_tries(browser: Browser, ui: UiServer, sid: int, tmp_path: Path) -> str:
    script = FOREIGN.replace("API", json.dumps(ui.base_url)).replace("TOKEN", json.dumps(ui.token))
    return foreign_page_outcome(browser, tmp_path, script.replace("SID", str(sid)), title="elsewhere")


def test_pause_and_resume_from_the_ui(
    page: Page, browser: Browser, live: tuple[UiServer, Client, Path], tmp_path: Path
) -> None:
    ui, client, db = live
    _echo(client, "before the pause")
    engine = open_engine(db)
    deadline = time.monotonic() + 30
    while not (found := list_sessions(engine)) or not found[0].message_count:
        assert time.monotonic() < deadline, "the wrap's store never opened"  # it opens beside forwarding
        time.sleep(0.05)
    sid = found[0].id
    page.goto(ui.url(f"/sessions/{sid}"))
    button = page.get_by_test_id("recording-pause")
    expect(button).to_have_text("Pause recording")
    button.click()
    expect(page.get_by_test_id("recording-paused")).to_have_text("recording paused")
    expect(button).to_have_text("Resume recording")
    for i in range(3):
        _echo(client, f"while paused {i}")  # the client notices nothing
    shot(page, "recording-paused")
    button.click()
    expect(button).to_have_text("Pause recording")
    expect(page.get_by_test_id("recording-paused")).to_have_count(0)
    _echo(client, "after the resume")
    panel = page.get_by_test_id("recording-pauses")
    expect(panel.get_by_test_id("recording-pause-item")).to_contain_text("6 messages not recorded")
    expect(page.get_by_test_id("row-after-pause")).to_contain_text("6 not recorded")
    # Gap-free seqs: every stored row has its place, no placeholder row waits for a missing seq.
    stored = len(messages(engine, sid))
    expect(page.get_by_test_id("total")).to_have_text(f"{stored} messages")
    expect(page.get_by_test_id("row")).to_have_count(stored)
    shot(page, "recording-resumed")

    # Another site's page, even knowing the token, cannot pause it.
    outcome = _foreign_page_tries(browser, ui, sid, tmp_path)
    assert "header blocked" in outcome, outcome
    assert len(get_session(engine, sid).facts["recording_pauses"]) == 1
    # The same request from the UI's own origin works (so the check above can fail): pause, resume.
    with httpx.Client(base_url=ui.base_url, timeout=30, headers={"authorization": f"Bearer {ui.token}"}) as c:
        for paused in (True, False):
            answer = c.post(
                f"/api/sessions/{sid}/recording", json={"paused": paused}, headers={"origin": ui.base_url}
            )
            assert answer.status_code == 200, answer.text
        assert c.post(f"/api/sessions/{sid}/recording", json={"paused": "x"}).status_code == 422
        assert c.post("/api/sessions/99999/recording", json={"paused": True}).status_code == 404

    client.close()
    session = ended_session(engine)
    rows = messages(engine, session.id)
    every = b"".join(m.raw for m in rows)
    assert b"before the pause" in every and b"after the resume" in every
    assert b"while paused" not in every
    first, second = session.facts["recording_pauses"]
    assert first["messages_not_recorded"] == 6 and second["messages_not_recorded"] == 0
    # An ended session cannot be paused: a 409 with the reason.
    with httpx.Client(base_url=ui.base_url, timeout=30, headers={"authorization": f"Bearer {ui.token}"}) as c:
        late = c.post(f"/api/sessions/{sid}/recording", json={"paused": True})
    assert late.status_code == 409 and "has ended" in late.json()["detail"]
    engine.dispose()


def test_a_metadata_only_session_says_its_bodies_were_not_recorded(page: Page, tmp_path: Path) -> None:
    from inspector.capture import Recorder
    from inspector.capture.redact import Redaction
    from inspector.capture.sessions import create_session
    from inspector.store import StoreWriter

    db = tmp_path / "meta.db"
    engine = open_engine(db, create=True)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    tap = recorder.open(create_session(engine, kind="stdio-wrap", target=["payroll"]), record="metadata")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "pay", "arguments": {"iban": "DE00SECRET"}}}  # fmt: skip
    tap.submit("c2s", "stdin", json.dumps(call).encode() + b"\n")
    tap.end(0, "done")
    recorder.stop()
    ui = UiServer(engine, port=0, live_interval=0.1).start()
    try:
        page.goto(ui.url(f"/sessions/{tap.session_id}/messages/1"))
        expect(page.get_by_test_id("metadata-only")).to_contain_text(
            "bodies of this session were not recorded"
        )
        expect(page.get_by_test_id("row")).to_contain_text("tools/call")
        expect(page.get_by_test_id("body-not-recorded")).to_contain_text("body not recorded (metadata only)")
        expect(page.locator("body")).not_to_contain_text("DE00SECRET")
        # The download is refused with the reason (replay, mock and export need bodies).
        with httpx.Client(
            base_url=ui.base_url, timeout=30, headers={"authorization": f"Bearer {ui.token}"}
        ) as c:
            answer = c.get(f"/api/sessions/{tap.session_id}/export")
        assert answer.status_code == 400 and "metadata only" in answer.json()["detail"]
    finally:
        ui.stop()
        engine.dispose()
