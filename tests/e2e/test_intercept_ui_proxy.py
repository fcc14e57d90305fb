"""The Intercept panel in Chromium on a live `proxy --intercept` session: the official Python SDK
client calls server-everything's echo tool over Streamable HTTP through the proxy, with a `pause`
rule on tools/call. The call paused at the proxy is edited in the panel and forwarded: the server
answers the edited call (the client's result says so) and the recording has the client's original
row (`meta.intercept`: edit by user, not delivered) and the injected edited one.

Runs once the control channel and the panel (#17, iui17's part) are in the build."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import list_sessions, open_engine
from tests.e2e.conftest import shot
from tests.http_peers import everything_http_server, inspector_proxy
from tests.shim_process import messages

pytest.importorskip("inspector.control.server")  # the control channel and the panel come together

RULES = """
pause_timeout_s: 60
rules:
  - name: hold-calls
    match: {method: tools/call, kind: request}
    action: pause
"""


class Client:
    """The SDK client on a thread of its own: `call(message)` queues an echo call; `result()` is its
    outcome (the text, or the exception)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.calls: queue.Queue[str | None] = queue.Queue()
        self.results: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=lambda: anyio.run(self._run), daemon=True)
        self.thread.start()

    async def _run(self) -> None:
        try:
            async with mcp.Client(self.url, cache=None) as client:
                self.results.put("connected")
                while (message := await anyio.to_thread.run_sync(self.calls.get)) is not None:
                    out = await client.call_tool("echo", {"message": message}, read_timeout_seconds=50)
                    self.results.put(out.content[0].text)  # type: ignore[union-attr]
        except BaseException as exc:  # reported by result()
            self.results.put(exc)

    def result(self, timeout: float = 30) -> Any:
        return self.results.get(timeout=timeout)

    def close(self) -> None:
        self.calls.put(None)
        self.thread.join(20)


def _recorded_sessions(db: Path) -> list[int]:
    """The ids of the sessions with rows, once there is one: the client saw its handshake answered
    before the proxy's recorder (off the forwarding path) had committed its rows (ci24)."""
    engine = open_engine(db)
    try:
        deadline = time.monotonic() + 30
        while True:
            ids = [s.id for s in list_sessions(engine) if s.message_count and s.id is not None]
            if ids or time.monotonic() > deadline:
                return ids
            time.sleep(0.05)
    finally:
        engine.dispose()


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[UiServer, Client, Path]]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(runtime))  # the UI server finds the channel there
    (tmp_path / "rules.yaml").write_text(RULES)
    db = tmp_path / "rec.db"
    extra = ("--intercept", "--faults", str(tmp_path / "rules.yaml"))
    with (
        everything_http_server("streamableHttp") as target,
        inspector_proxy(target, db, *extra, env={"MCP_INSPECTOR_RUNTIME": str(runtime)}, warm=True) as (
            url,
            _proxy,
        ),
    ):
        client = Client(url)
        assert client.result(60) == "connected"
        ui = UiServer(open_engine(db), port=0, live_interval=0.1).start()
        try:
            yield ui, client, db
        finally:
            client.close()
            ui.stop()


def test_a_call_paused_at_the_proxy_is_edited_in_the_panel(
    page: Page, live: tuple[UiServer, Client, Path]
) -> None:
    ui, client, db = live
    (sid,) = _recorded_sessions(db)
    page.set_viewport_size({"width": 1280, "height": 860})
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("intercept-tab")).to_be_visible()
    client.calls.put("from the client")
    expect(page.get_by_test_id("intercept-paused-count")).to_have_text("1 paused")
    page.get_by_test_id("intercept-tab").click()
    panel = page.get_by_test_id("intercept-panel")
    expect(panel.get_by_test_id("paused-list")).to_contain_text("tools/call")
    editor = panel.get_by_test_id("intercept-editor")
    original = json.loads(editor.input_value())
    assert original["params"]["arguments"] == {"message": "from the client"}
    edited = {**original, "params": {**original["params"], "arguments": {"message": "edited at the proxy"}}}
    editor.fill(json.dumps(edited, indent=2))
    panel.get_by_test_id("intercept-forward").click()
    assert client.result() == "Echo: edited at the proxy"
    expect(panel.get_by_test_id("paused-list")).to_be_empty()
    shot(page, "intercept-panel-proxy")
    rows = messages(open_engine(db), sid)
    (row,) = [m for m in rows if ((m.meta or {}).get("intercept") or {}).get("action") == "edit"]
    assert b"from the client" in row.raw and row.meta["intercept"]["by"] == "user"
    (sent,) = [m for m in rows if (m.meta or {}).get("injected", {}).get("n") == row.meta["intercept"]["n"]]
    assert sent.direction == "c2s" and b"edited at the proxy" in sent.raw
