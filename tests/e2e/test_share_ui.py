"""Session files in a real Chromium (issue #16): download a session in each format, import files with
progress, export the diff's HTML report, and read an HTML report with the network blocked.

The UI server and its database are this module's own (imports add sessions). Sessions are written
through the recorder's builder (`tests/api/recordings.py`); the replay session is one whose answer
differs from its parent's, so its report has a diff to show.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from inspector.api import UiServer
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine
from tests.api.recordings import generate_session, http_session
from tests.e2e.conftest import shot, watch_console
from tests.e2e.foreign import foreign_page_outcome
from tests.har_schema import har_validator

BIG = 20_000


def _replay_of(db: Path, parent: int) -> int:
    """A session of kind `replay` under `parent` whose tools/call answer changed."""
    engine = open_engine(db)
    sid = create_session(
        engine, kind="replay", target="http://127.0.0.1:9/mcp", name="replay", parent_id=parent
    )
    b = MessageBuilder(sid)
    t = 1_700_000_100_000_000_000
    h = {"http_method": "POST", "http_path": "/mcp"}
    rows = [
        b.message(t, "c2s", "http-request", b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', **h),
        b.message(t + 1, "s2c", "http-response", b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}', http_status=200, **h),
        b.message(t + 2, "c2s", "http-request", b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}', **h),
        b.message(t + 3, "s2c", "http-response", b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"changed"}]}}', http_status=200, **h),
    ]  # fmt: skip
    writer = SessionWriter(engine, sid)
    writer.on_batch(rows)
    writer.on_end(0, "replayed")
    engine.dispose()
    return sid


@pytest.fixture(scope="module")
def share_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1: 30 generated stdio messages; 2: HTTP rows (JSON and an event stream); 3: a replay of 2;
    4: BIG generated messages (the large import's source)."""
    db = tmp_path_factory.mktemp("e2e-share") / "share.db"
    generate_session(db, 30, name="stdio thirty")
    http_session(db)
    _replay_of(db, 2)
    generate_session(db, BIG, name="big")
    return db


@pytest.fixture(scope="module")
def share_ui(share_db: Path) -> Iterator[UiServer]:
    server = UiServer(open_engine(share_db), port=0, live_interval=0.1).start()
    yield server
    server.stop()


def _get(ui: UiServer, path: str) -> bytes:
    with httpx.Client(base_url=ui.base_url, headers={"authorization": f"Bearer {ui.token}"}, timeout=60) as c:
        answer = c.get(path)
        assert answer.status_code == 200, answer.text
        return answer.content


def _download(page: Page, testid: str) -> bytes:
    page.get_by_test_id("download-open").click()
    with page.expect_download() as info:
        page.get_by_test_id(testid).click()
    return Path(info.value.path()).read_bytes()


def test_download_a_session_in_each_format(page: Page, share_ui: UiServer) -> None:
    # The session page's findings request stores the lint the export carries: the page's download
    # and the API's export are compared once it is done (before, the two could straddle it).
    with page.expect_event("requestfinished", lambda r: r.url.endswith("/sessions/2/findings")):
        page.goto(share_ui.url("/sessions/2"))
    expect(page.get_by_test_id("session-title")).to_contain_text("http by hand")
    jsonl = _download(page, "download-jsonl")
    assert jsonl == _get(share_ui, "/api/sessions/2/export?format=jsonl")
    har = json.loads(_download(page, "download-har"))
    har_validator().validate(har)
    assert {m.get("method") for e in har["log"]["entries"] for m in e["_mcp"]["messages"]} >= {
        "initialize",
        "tools/call",
    }
    report = _download(page, "download-html").decode()
    assert "<h3>Pairs</h3>" in report and "tools/call" in report
    shot(page, "share-download-menu")

    page.goto(share_ui.base_url + "/sessions/1")
    expect(page.get_by_test_id("session-title")).to_contain_text("stdio thirty")
    page.get_by_test_id("download-open").click()
    page.get_by_test_id("download-har").click()
    expect(page.get_by_test_id("download-error")).to_contain_text("has no HTTP exchanges")


def test_import_files_with_progress(page: Page, share_ui: UiServer, tmp_path: Path) -> None:
    big = tmp_path / "big.mcp.jsonl"
    big.write_bytes(_get(share_ui, "/api/sessions/4/export"))
    har = tmp_path / "by-hand.har"
    har.write_bytes(_get(share_ui, "/api/sessions/2/export?format=har"))
    page.goto(share_ui.url("/"))
    expect(page.get_by_test_id("sessions").locator("tbody tr")).to_have_count(4)
    # Every text an import row shows, as it changes (the progress is what is checked).
    page.evaluate(
        """() => { window.seen = [];
          new MutationObserver(() => document.querySelectorAll('[data-testid=import-row]').forEach(
            (li) => window.seen.push(li.textContent))).observe(document.body, {subtree: true, childList: true,
            characterData: true}); }"""
    )
    started = time.monotonic()
    page.get_by_test_id("import-input").set_input_files([str(big), str(har)])
    rows = page.get_by_test_id("import-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute("data-phase", "done", timeout=120_000)
    expect(rows.nth(1)).to_have_attribute("data-phase", "done", timeout=60_000)
    elapsed = time.monotonic() - started
    expect(rows.nth(0)).to_contain_text(f"({BIG} messages)")
    expect(rows.nth(1)).to_contain_text("imported #")
    expect(page.get_by_test_id("sessions").locator("tbody tr")).to_have_count(6)  # the list reloaded
    shot(page, "share-import-done")
    seen: list[str] = page.evaluate("window.seen")
    steps = {s for s in seen if "big.mcp.jsonl" in s and ("uploading" in s or "importing" in s)}
    partial = [s for s in steps if any(f" {n}%" in s for n in range(1, 100))]
    assert partial, f"no progress between 0 and 100% was shown ({elapsed:.1f}s): {sorted(steps)[:10]}"
    new_id = re.search(r"imported #(\d+)", rows.nth(0).text_content() or "")
    assert new_id is not None
    assert _get(share_ui, f"/api/sessions/{new_id.group(1)}/export") == big.read_bytes()  # an exact copy


def test_diff_report_from_the_diff_view(page: Page, share_ui: UiServer) -> None:
    page.goto(share_ui.url("/diff?a=2&b=3"))
    expect(page.get_by_test_id("verdict")).to_contain_text("behaviour changed")
    with page.expect_download() as info:
        page.get_by_test_id("diff-report").click()
    assert info.value.suggested_filename == "diff-2-3.html"
    report = Path(info.value.path()).read_text()
    assert "<h2>Diff</h2>" in report and "Behaviour changed." in report and "changed" in report


def _offline(context: BrowserContext, html: str) -> tuple[Page, list[str]]:
    """A new tab with every request aborted, showing `html`; the list collects requests it tried."""
    page = context.new_page()
    tried: list[str] = []

    def abort(route: Route) -> None:
        tried.append(route.request.url)
        route.abort()

    page.route("**/*", abort)
    page.set_content(html)
    return page, tried


def test_html_report_renders_offline(context: BrowserContext, share_ui: UiServer) -> None:
    html = _get(share_ui, "/api/sessions/3/export?format=html").decode()
    page, tried = _offline(context, html)
    errors: list[str] = []
    watch_console(page, errors)
    try:
        expect(page.locator("h1")).to_contain_text("MCP session #3 replay")
        facts = page.locator("table.facts")
        expect(facts).to_contain_text("replay")
        expect(page.locator("table.pairs tbody tr")).to_have_count(2)
        expect(page.locator("table.pairs")).to_contain_text("tools/call")
        expect(page.locator("table.timeline tbody tr")).to_have_count(4)
        diff = page.locator("table.diff")
        expect(diff).to_contain_text("changed")
        expect(page.locator("table.changes")).to_contain_text("changed")  # the new text, as the "after" value
        # The inline script works offline: the filter hides timeline rows that do not match.
        page.locator("input[data-filter]").fill("tools/call")
        expect(page.locator("table.timeline tbody tr:not([hidden])")).to_have_count(2)
        shown = page.locator("table.timeline tbody tr:not([hidden])")
        shown.locator("details summary").first.click()
        expect(shown.locator("pre").first).to_contain_text('"name": "slow"')  # the body, pretty-printed
        shot(page, "share-html-report-offline")
    finally:
        page.close()
    assert tried == [], f"the report tried to load: {tried}"
    assert not errors, errors


# A page on another loopback port that knows the token (the worst case): it tries to import a file
# (a simple no-cors POST, which needs no preflight, and one with the token header) and to read an
# export. It reports what the browser let it see.
FOREIGN_SCRIPT = """
(async () => {
  const out = [];
  const file = new Blob([FILE], {type: 'text/plain'});
  try {
    await fetch(API + '/api/imports?filename=x&token=' + TOKEN, {method: 'POST', mode: 'no-cors', body: file});
    out.push('no-cors sent');
  } catch (e) { out.push('no-cors failed'); }
  try {
    const r = await fetch(API + '/api/imports', {method: 'POST', body: file, headers: {authorization: 'Bearer ' + TOKEN}});
    out.push('header status ' + r.status);
  } catch (e) { out.push('header blocked'); }
  try {
    const r = await fetch(API + '/api/sessions/2/export?format=har&token=' + TOKEN);
    out.push('read ' + (await r.text()).length);
  } catch (e) { out.push('read blocked'); }
  document.getElementById('out').textContent = out.join('; ') + '; done';
})();
"""


def test_a_page_from_another_origin_cannot_import_or_download(
    browser: Browser, share_ui: UiServer, tmp_path: Path
) -> None:
    before = json.loads(_get(share_ui, "/api/sessions"))["total"]
    jsonl = _get(share_ui, "/api/sessions/1/export").decode()
    script = (
        FOREIGN_SCRIPT.replace("API", json.dumps(share_ui.base_url))
        .replace("TOKEN", json.dumps(share_ui.token))
        .replace("FILE", json.dumps(jsonl))
    )
    outcome = foreign_page_outcome(browser, tmp_path, script, title="elsewhere")
    assert "header blocked" in outcome and "read blocked" in outcome, outcome
    # The same upload from the UI's own origin is imported (so the check above can fail).
    with httpx.Client(base_url=share_ui.base_url, timeout=60) as c:
        answer = c.post(
            "/api/imports",
            params={"filename": "x", "token": share_ui.token},
            content=jsonl.encode(),
            headers={"origin": share_ui.base_url},
        )
    assert answer.status_code == 202, answer.text
    job = answer.json()
    deadline = time.monotonic() + 60
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = json.loads(_get(share_ui, f"/api/imports/{job['id']}"))
    assert job["state"] == "done", job
    # Only this upload added a session: none of the foreign page's requests started an import.
    assert json.loads(_get(share_ui, "/api/sessions"))["total"] == before + 1
