"""Answering the server from the client workspace, in Chromium, against real servers.

- `@modelcontextprotocol/server-everything` over stdio: roots answered by hand then edited (the
  server asks again after `notifications/roots/list_changed`), sampling answered and rejected by
  hand, an elicitation form refused while invalid, then accepted.
- An SDK server offering tools in sampling (`tests/peers/client_features_server.py`): the
  sampling-with-tools capability checkbox, a tool_use reply built from the tool's inputSchema,
  an invalid reply refused by the API before sending, then the tool loop's final answer.
- The demo over Streamable HTTP with an extra header: edit and resend a recorded message.

Every step is checked in the recorded mock-client session's rows.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from inspector.api import UiServer
from inspector.store import open_engine
from tests.e2e.conftest import shot
from tests.e2e.in_thread import demo_http
from tests.e2e.test_client_ui import _inbox_item, _mock_sessions, client_ui  # noqa: F401
from tests.recorded import rows_until
from tests.warm_peers import peer_argv

# tests/peers/client_features_server.py (an SDK server): forked warm (tests/warm_peers.py), a process
# of its own without ~2 s of CPU in imports.
FEATURES = shlex.join(peer_argv("tests.peers.client_features_server"))


def _connect(page: Page, ui: UiServer, *, command: str | None = None, url: str | None = None) -> None:
    page.goto(ui.url("/client"))
    if url is not None:
        page.get_by_label("URL (HTTP)").check()
        page.get_by_label("url", exact=True).fill(url)
    else:
        page.get_by_label("command", exact=True).fill(command or "")


def _submit(page: Page) -> None:
    page.get_by_role("button", name="Connect").click()
    expect(page.get_by_role("button", name="Disconnect")).to_be_visible()


def _rows(db: Path, ready: Callable[[list[Any]], bool], what: str) -> list[Any]:
    """The mock client's rows once `ready` holds (bounded): the client is still connected and
    records off its path, so the last rows land a moment after the page showed their effect."""
    (session_id,) = _mock_sessions(db)
    return rows_until(open_engine(db), session_id, ready, what)


def _answered(rows: list[Any], needle: bytes) -> bool:
    """A server message containing `needle` is recorded."""
    return any(m.direction == "s2c" and needle in m.raw for m in rows)


def _sent(rows: list[Any], method: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
    """The client's messages (parsed), optionally only responses to `method` or of one kind."""
    out = []
    for m in rows:
        if m.direction != "c2s" or (kind and m.kind != kind) or (method and m.method != method):
            continue
        try:
            out.append(json.loads(m.body))
        except ValueError:
            continue
    return out


def _call(page: Page, tool: str, fields: dict[str, str] | None = None) -> None:
    page.get_by_label("tools").get_by_role("button", name=tool, exact=True).click()
    for field, value in (fields or {}).items():
        page.locator(f"#root_{field}").fill(value)
    page.get_by_role("button", name="Call", exact=True).click()


def test_everything_roots_sampling_and_elicitation_by_hand(
    page: Page,
    client_ui: UiServer,  # noqa: F811
    tmp_path: Path,
    everything_cmd: list[str],
) -> None:
    _connect(page, client_ui, command=" ".join(everything_cmd))
    _submit(page)
    result = page.get_by_test_id("result")

    # roots/list arrives right after the handshake: answered by hand
    roots = _inbox_item(page, "roots/list")
    roots.get_by_label("roots").fill("file:///home/ada/first first")
    roots.get_by_role("button", name="Send 1 roots").click()
    expect(roots).to_have_count(0)

    # edit the workspace's roots: the server is told, asks again, and gets them automatically
    panel = page.locator("details.roots-panel")
    panel.locator("summary").click()
    panel.get_by_role("button", name="Add root").click()
    panel.get_by_label("root 1 uri").fill("http://not-a-file")
    expect(panel.get_by_text("a root must be a file:// URI")).to_be_visible()
    expect(panel.get_by_role("button", name="Save roots")).to_be_disabled()
    panel.get_by_label("root 1 uri").fill("file:///home/ada/edited")
    panel.get_by_label("root 1 name").fill("edited")
    panel.get_by_role("button", name="Save roots").click()
    expect(panel.get_by_role("status")).to_contain_text("notifications/roots/list_changed sent")
    # the server asks again at once; the workspace answers (seen in the inbox history)
    auto = page.locator(".inbox-history li[data-by='auto (workspace roots)']")
    expect(auto).to_have_count(1)
    _call(page, "get-roots-list")
    expect(result).to_contain_text("file:///home/ada/edited")
    shot(page, "responders-roots-edited")

    # sampling answered by hand: the request is shown in full
    _call(page, "trigger-sampling-request", {"prompt": "Name a colour"})
    sampling = _inbox_item(page, "sampling/createMessage")
    expect(sampling.get_by_test_id("system-prompt")).to_contain_text("You are a helpful test server.")
    expect(sampling).to_contain_text("Name a colour")
    sampling.get_by_label("assistant reply").fill("Teal, from Chromium")
    shot(page, "responders-sampling-by-hand")
    sampling.get_by_role("button", name="Send reply").click()
    expect(result).to_contain_text("Teal, from Chromium")

    # sampling rejected
    _call(page, "trigger-sampling-request", {"prompt": "Refuse this one"})
    sampling = _inbox_item(page, "sampling/createMessage")
    expect(sampling).to_contain_text("Refuse this one")
    sampling.get_by_role("button", name="Reject").click()
    expect(page.get_by_test_id("protocol-error").or_(result)).to_contain_text("rejected by the user")

    # elicitation form: an out-of-range value is refused before anything is sent
    _call(page, "trigger-elicitation-request")
    form = _inbox_item(page, "elicitation/create")
    form.locator("#root_name").fill("Ada Lovelace")
    form.locator("#root_integer").fill("500")
    form.get_by_role("button", name="Accept").click()
    expect(form.locator(".errors, .error-detail").first).to_be_visible()
    shot(page, "responders-elicitation-invalid")
    expect(form).to_have_count(1)
    form.locator("#root_integer").fill("7")
    form.get_by_role("button", name="Accept").click()
    expect(result).to_contain_text("User provided the requested information")

    page.locator("details.inbox-history summary").click()
    history = page.get_by_label("inbox history")
    expect(history.locator("li[data-by='person']")).to_have_count(4)
    expect(history.locator("li[data-by='auto (workspace roots)']")).to_have_count(1)
    shot(page, "responders-inbox-history")

    def everything_answered(rows: list[Any]) -> bool:
        roots = [m for m in _sent(rows, "roots/list") if "result" in m]
        return (
            bool(roots)
            and "edited" in json.dumps(roots[-1])
            and len(_sent(rows, "sampling/createMessage")) >= 2
            and bool(_sent(rows, "notifications/roots/list_changed"))
            and bool(_sent(rows, "elicitation/create"))
        )

    rows = _rows(tmp_path / "client.db", everything_answered, "the answers given by hand")
    answers = {json.dumps(m) for m in _sent(rows)}
    roots_answers = [m for m in _sent(rows, "roots/list") if "result" in m]
    assert roots_answers[0]["result"]["roots"] == [{"uri": "file:///home/ada/first", "name": "first"}]
    assert roots_answers[-1]["result"]["roots"] == [{"uri": "file:///home/ada/edited", "name": "edited"}]
    assert _sent(rows, "notifications/roots/list_changed")
    sampled = [m for m in _sent(rows, "sampling/createMessage")]
    assert sampled[0]["result"]["content"]["text"] == "Teal, from Chromium"
    assert sampled[1]["error"]["code"] == -1
    (elicited,) = _sent(rows, "elicitation/create")
    assert elicited["result"]["action"] == "accept" and elicited["result"]["content"]["integer"] == 7
    assert not any('"integer": 500' in a for a in answers)  # the invalid form never left the browser


def test_sampling_with_tools_by_hand(
    page: Page,
    client_ui: UiServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    _connect(page, client_ui, command=FEATURES)
    page.get_by_label("sampling with tools").check()
    _submit(page)
    _call(page, "plan_trip", {"city": "Paris"})
    sampling = _inbox_item(page, "sampling/createMessage")
    expect(sampling.get_by_label("offered tools")).to_contain_text("get_weather")
    expect(sampling.get_by_test_id("tool-choice")).to_contain_text('"auto"')
    expect(sampling.get_by_label("spec problems")).to_have_count(0)

    # the tool's input comes from a form generated from its inputSchema (minLength 2)
    builder = sampling.locator(".tool-use-builder")
    builder.locator("#root_city").fill("P")
    builder.get_by_role("button", name="Add tool_use").click()
    expect(sampling.get_by_test_id("tool-use")).to_have_count(0)
    builder.locator("#root_city").fill("Paris")
    builder.get_by_role("button", name="Add tool_use").click()
    expect(sampling.get_by_test_id("tool-use")).to_contain_text("get_weather")

    # a stopReason that contradicts the content is refused by the API before sending
    sampling.get_by_label("stop reason").select_option("endTurn")
    sampling.get_by_role("button", name="Send reply").click()
    expect(sampling.get_by_role("alert")).to_contain_text('should have stopReason "toolUse"')
    shot(page, "responders-sampling-tools-refused")
    sampling.get_by_label("stop reason").select_option("auto")
    sampling.get_by_role("button", name="Send reply").click()

    # the server ran the tool and samples again with the tool_result
    follow = _inbox_item(page, "sampling/createMessage")
    expect(follow).to_contain_text("tool_result for")
    expect(follow).to_contain_text("Sunny in Paris")
    shot(page, "responders-sampling-tool-result")
    follow.get_by_label("assistant reply").fill("Picnic by the Seine.")
    follow.get_by_role("button", name="Send reply").click()
    expect(page.get_by_test_id("result")).to_contain_text("final: Picnic by the Seine.")

    # -32042: the required URL elicitation is shown with the consent UI, completed, then retried
    _call(page, "read_vault")
    expect(page.get_by_test_id("protocol-error")).to_contain_text("-32042")
    vault = page.locator(".url-elicitation[data-id='vault-1']")
    expect(vault).to_contain_text("vault.example.com")
    expect(vault).to_contain_text("https://vault.example.com/unlock?session=abc")
    expect(vault.get_by_role("button", name="Open URL")).to_be_disabled()
    vault.get_by_label("I want to open this URL").check()
    expect(vault.get_by_role("button", name="Open URL")).to_be_enabled()
    _call(page, "unlock_vault")  # the out-of-band step: the server sends elicitation/complete
    expect(vault.get_by_test_id("elicitation-state")).to_have_text("complete")
    vault.get_by_role("button", name=re.compile(r"^Retry tools.call")).click()
    expect(vault).to_contain_text("vault contents: 42")
    shot(page, "responders-url-elicitation-retry")

    rows = _rows(
        tmp_path / "client.db", lambda rows: _answered(rows, b"vault contents: 42"), "the retried read_vault"
    )
    assert [m.method for m in rows if m.method == "notifications/elicitation/complete"]
    vault_calls = [c for c in _sent(rows, "tools/call", "request") if c["params"]["name"] == "read_vault"]
    assert len(vault_calls) == 2  # the first call, and the retry
    initialize = _sent(rows, "initialize", "request")[0]
    assert initialize["params"]["capabilities"]["sampling"] == {"tools": {}}
    first, second = [m["result"] for m in _sent(rows, "sampling/createMessage")]
    assert first["stopReason"] == "toolUse" and first["content"][0]["input"] == {"city": "Paris"}
    assert second["content"]["text"] == "Picnic by the Seine." and second["stopReason"] == "endTurn"


def test_http_header_and_edit_and_resend(
    page: Page,
    client_ui: UiServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    with demo_http() as url:
        _connect(page, client_ui, url=url)
        page.get_by_label("headers").fill("X-Trace: e2e-trace-7")
        _submit(page)
        _call(page, "echo", {"text": "first words"})
        expect(page.get_by_test_id("result")).to_contain_text("first words")

        # open the recorded echo request in the timeline and edit-and-resend it
        page.get_by_role("link", name="Recorded session timeline").click()
        page.locator(".row", has_text="tools/call").first.click()
        detail = page.get_by_test_id("detail")
        expect(detail).to_contain_text("first words")
        detail.get_by_role("link", name="Edit and resend").click()
        expect(page).to_have_url(re.compile(r"/client/resend/\d+/\d+$"))
        page.get_by_role("button", name=re.compile(r"^Use c\d+")).click()
        raw = page.get_by_label("raw message")
        expect(page.get_by_test_id("resend-source")).to_contain_text("Editing message")
        expect(raw).to_have_value(re.compile("first words"))
        raw.fill(
            raw.input_value().replace("first words", "edited words").replace('"id": 2', '"id": "resent-1"')
        )
        shot(page, "responders-edit-and-resend")
        page.get_by_role("button", name="Send raw").click()
        expect(page.get_by_label("raw history")).to_contain_text("edited words")
        page.get_by_role("button", name="Disconnect").click()

    rows = _rows(tmp_path / "client.db", lambda rows: _answered(rows, b"edited words"), "the resent answer")
    calls = _sent(rows, "tools/call", "request")
    assert [c["params"]["arguments"]["text"] for c in calls] == ["first words", "edited words"]
    headers = [dict(m.http_headers or []) for m in rows if m.channel == "http-request"]
    assert all(h.get("x-trace") == "e2e-trace-7" for h in headers if h), headers
    answered = [m for m in rows if m.direction == "s2c" and b"edited words" in m.raw]
    assert answered, "the server's answer to the resent request is recorded"
