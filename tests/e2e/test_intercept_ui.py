"""The Intercept panel in Chromium, on a live `wrap --intercept` session: the official Python SDK
client calls server-everything's echo tool through the wrap with a `pause` rule on tools/call.

The panel shows the paused call with its countdown; the test edits its arguments in the editor
and forwards it: the server answers the edited call (the client's result says so) and the
recording has the client's original row (`meta.intercept`: edit by user, not delivered) and the
injected edited row. A second call is answered from the panel with a JSON-RPC error (the `r`
shortcut opens the form): the client gets that error and the server never sees the call.
The screenshot of the panel with the edited call is docs/intercept-panel.png.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.shared.exceptions import MCPError
from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import list_sessions, open_engine
from tests.e2e.conftest import ROOT, shot
from tests.shim_process import messages
from tests.warm_peers import warm_wrap_argv

DOCS_SHOT = ROOT / "docs" / "intercept-panel.png"
RULES = """
pause_timeout_s: 60
rules:
  - name: hold-calls
    match: {method: tools/call, kind: request}
    action: pause
"""


class Client:
    """The SDK client on a thread of its own: `call(args)` queues a tools/call of echo; `result()`
    is its outcome (the result's text, or the McpError)."""

    def __init__(self, argv: list[str]) -> None:
        self.params = mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
        self.calls: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.results: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=lambda: anyio.run(self._run), daemon=True)
        self.thread.start()

    async def _run(self) -> None:
        try:
            async with mcp.Client(self.params, mode="legacy") as client:
                self.results.put("connected")
                while (args := await anyio.to_thread.run_sync(self.calls.get)) is not None:
                    try:
                        out = await client.call_tool("echo", args, read_timeout_seconds=50)
                        self.results.put(out.content[0].text)  # type: ignore[union-attr]
                    except MCPError as exc:
                        self.results.put(exc)
        except BaseException as exc:  # reported by result()
            self.results.put(exc)

    def result(self, timeout: float = 30) -> Any:
        return self.results.get(timeout=timeout)

    def close(self) -> None:
        self.calls.put(None)
        self.thread.join(20)


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, everything_cmd: list[str]) -> Iterator[tuple[UiServer, Client, Path]]:  # fmt: skip
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(tmp_path / "runtime"))
    (tmp_path / "rules.yaml").write_text(RULES)
    db = tmp_path / "rec.db"
    argv = warm_wrap_argv(
        db, *everything_cmd, extra=("--quiet", "--intercept", "--faults", str(tmp_path / "rules.yaml"))
    )
    client = Client(argv)
    assert client.result(60) == "connected"
    ui = UiServer(open_engine(db), port=0, live_interval=0.1).start()
    try:
        yield ui, client, db
    finally:
        client.close()
        ui.stop()


def test_edit_forward_and_respond_from_the_panel(page: Page, live: tuple[UiServer, Client, Path]) -> None:
    ui, client, db = live
    (sid,) = [s.id for s in list_sessions(open_engine(db))]
    page.set_viewport_size({"width": 1280, "height": 860})
    page.goto(ui.url(f"/sessions/{sid}"))
    expect(page.get_by_test_id("intercept-tab")).to_be_visible()
    client.calls.put({"message": "from the client"})
    expect(page.get_by_test_id("intercept-paused-count")).to_have_text("1 paused")
    page.get_by_test_id("intercept-tab").click()
    panel = page.get_by_test_id("intercept-panel")
    expect(panel.get_by_test_id("paused-list")).to_contain_text("tools/call")
    expect(panel.get_by_test_id("paused-list")).to_contain_text("echo")
    expect(panel.get_by_test_id("rule-hits-hold-calls")).to_have_text("1")
    countdown = panel.get_by_test_id("countdown").first
    first_left = int(countdown.inner_text().rstrip("s"))
    assert 50 < first_left <= 60
    expect(panel.get_by_test_id("intercept-keys")).to_contain_text("f forward")

    editor = panel.get_by_test_id("intercept-editor")
    original = json.loads(editor.input_value())
    assert original["params"]["arguments"] == {"message": "from the client"}
    editor.fill(editor.input_value().replace("from the client", "edited in the UI").rstrip("}"))
    expect(panel.get_by_test_id("intercept-validity")).to_contain_text("Not valid JSON")
    expect(panel.get_by_test_id("intercept-forward")).to_be_disabled()
    edited = {**original, "params": {**original["params"], "arguments": {"message": "edited in the UI"}}}
    editor.fill(json.dumps(edited, indent=2))
    expect(panel.get_by_test_id("intercept-forward")).to_have_text("Forward edited f")
    expect(countdown).not_to_have_text(f"{first_left}s", timeout=5000)  # it counts down
    DOCS_SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS_SHOT))
    panel.get_by_test_id("intercept-forward").click()
    assert client.result() == "Echo: edited in the UI"
    expect(panel.get_by_test_id("intercept-note")).to_contain_text("edited and forwarded")

    # A second call answered from the panel with an error (the r shortcut opens the form).
    client.calls.put({"message": "never reaches the server"})
    expect(panel.get_by_test_id("paused-list")).to_contain_text("tools/call")
    page.locator("body").click(position={"x": 5, "y": 5})  # the keyboard goes to the page, not a field
    page.keyboard.press("r")
    form = panel.get_by_test_id("respond-form")
    form.get_by_test_id("respond-code").fill("-32099")
    form.get_by_test_id("respond-message").fill("answered from the Intercept panel")
    form.get_by_test_id("respond-send").click()
    error = client.result()
    assert isinstance(error, MCPError), error
    assert error.error.code == -32099 and error.error.message == "answered from the Intercept panel"
    expect(panel.get_by_test_id("paused-list")).to_be_empty()
    shot(page, "intercept-panel-after")

    # Rules are added from the panel and switch on and off there; hit counts follow.
    expect(panel.get_by_test_id("rule-hits-hold-calls")).to_have_text("2")
    panel.get_by_test_id("rule-add-open").click()
    panel.get_by_label("new rule").fill(
        '{"name": "late", "match": {"kind": ["response"]}, "action": "delay", "msec": 1}'
    )
    panel.get_by_test_id("rule-add").click()
    expect(panel.get_by_test_id("intercept-note")).to_contain_text("msec")  # the process's reason
    panel.get_by_label("new rule").fill(
        '{"name": "late", "match": {"kind": ["response"]}, "action": "delay", "ms": 1}'
    )
    panel.get_by_test_id("rule-add").click()
    expect(panel.get_by_test_id("rule-late")).to_contain_text("delay")
    panel.get_by_test_id("rule-toggle-hold-calls").click()  # applied once the process says so
    expect(panel.get_by_test_id("rule-toggle-hold-calls")).not_to_be_checked()
    client.calls.put({"message": "passes"})
    assert client.result() == "Echo: passes"  # the rule is off: nothing waits
    expect(panel.get_by_test_id("rule-hits-late")).to_have_text("1")  # the delayed answer

    rows = messages(open_engine(db), sid)
    (held,) = [m for m in rows if (m.meta or {}).get("intercept", {}).get("action") == "edit"]
    assert held.direction == "c2s" and b"from the client" in held.raw
    assert held.meta["intercept"]["by"] == "user" and held.meta["intercept"]["delivered"] is False
    (sent,) = [m for m in rows if (m.meta or {}).get("injected", {}).get("n") == held.meta["intercept"]["n"]]
    assert sent.direction == "c2s" and json.loads(sent.raw) == edited
    (answered,) = [m for m in rows if (m.meta or {}).get("intercept", {}).get("action") == "respond"]
    (reply,) = [
        m for m in rows if (m.meta or {}).get("injected", {}).get("n") == answered.meta["intercept"]["n"]
    ]
    assert reply.direction == "s2c" and json.loads(reply.raw)["error"]["code"] == -32099
    assert not [m for m in rows if m.direction == "s2c" and b"never reaches the server" in m.raw]
