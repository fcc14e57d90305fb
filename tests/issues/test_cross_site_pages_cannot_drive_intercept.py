"""Issue 17, in a real Chromium: a page on another site, and a DNS-rebinding page, can neither drive
an intercept control channel (`wrap/proxy --intercept`) nor the UI's /api/intercept routes.

The same attacks as `test_cross_site_pages_cannot_drive_listeners` (a text/plain form POST, a
no-cors fetch, a CORS JSON fetch, a websocket; then the rebinding page on the listener's own
port), each against a real control channel in front of a real `Interceptor` holding a paused
message, and against the UI server relaying to it. The attacker is given the tokens (in the URL
where a page could put one): only Host, Origin and the Bearer header stand in the way. Every
request must come back 403, nothing may change (the breakpoints stay on, the paused message
stays paused), and finally a legitimate request does get through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from inspector.api import UiServer
from inspector.control.server import ControlHandle, start_control
from inspector.intercept import Interceptor, Rule, RuleSet, Seen
from inspector.store import open_engine
from tests.issues.test_cross_site_pages_cannot_drive_listeners import (  # noqa: F401 (fixtures)
    Listener,
    _AttackSite,
    _cross_site,
    _rebinding,
    attack_site,
    browser,
)
from tests.listeners import JSON_HEADERS, wait_until

SID = 3
CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}\n'


@contextmanager
def _paused(runtime: Path) -> Iterator[tuple[Interceptor, ControlHandle]]:
    pause = Rule.model_validate({"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"})
    interceptor = Interceptor(RuleSet(rules=[pause]), breakpoints=True)
    held = interceptor.decide(Seen.of("c2s", CALL, interceptor.tracker)).held
    assert held is not None
    handle = start_control(interceptor, kind="wrap", target=["srv"], sessions=lambda: [SID])
    try:
        yield interceptor, handle
    finally:
        handle.close()


def _changed(interceptor: Interceptor) -> bool:
    return not interceptor.breakpoints or not interceptor.pending()


@contextmanager
def _control(runtime: Path, db: Path) -> Iterator[Listener]:
    with _paused(runtime) as (interceptor, handle):
        body = json.dumps({"on": False})

        def legitimate() -> None:
            auth = {**JSON_HEADERS, "authorization": f"Bearer {handle.token}"}
            assert httpx.post(f"{handle.url}/breakpoints", content=body, headers=auth).status_code == 200

        yield Listener(
            "intercept control channel",
            f"{handle.url}/breakpoints?token={handle.token}",
            body,
            handle.url.replace("http://", "ws://") + "/state",
            f"/state?token={handle.token}",
            lambda: _changed(interceptor),
            legitimate,
        )


@contextmanager
def _api(runtime: Path, db: Path) -> Iterator[Listener]:
    with _paused(runtime) as (interceptor, _handle):
        server = UiServer(open_engine(db), port=0).start()
        try:
            token, base = server.token, server.base_url
            body = json.dumps({"action": "drop"})
            path = f"/api/intercept/sessions/{SID}/pending/p1"

            def legitimate() -> None:
                auth = {**JSON_HEADERS, "authorization": f"Bearer {token}"}
                answer = httpx.post(f"{base}{path}", content=body, headers=auth, timeout=30)
                assert answer.status_code == 200, answer.text

            yield Listener(
                "ui /api/intercept",
                f"{base}{path}?token={token}",
                body,
                f"ws://127.0.0.1:{server.port}/api/live?token={token}",
                f"/api/intercept/sessions/{SID}?token={token}",
                lambda: _changed(interceptor),
                legitimate,
            )
        finally:
            server.stop()


TARGETS = {"control": _control, "api": _api}


@pytest.mark.parametrize("name", list(TARGETS))
def test_pages_of_other_sites_cannot_drive_interception(
    name: str,
    browser: Browser,  # noqa: F811
    attack_site: _AttackSite,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runtime = tmp_path / "runtime"
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(runtime))
    with ExitStack() as stack:
        listener = stack.enter_context(TARGETS[name](runtime, tmp_path / "rec.db"))
        context = browser.new_context()
        stack.callback(context.close)
        context.set_default_timeout(20_000)
        _cross_site(context.new_page(), listener, attack_site.origin)
        _rebinding(context.new_page(), listener)
        assert not listener.effect(), f"{name}: a refused request was acted on"
        listener.legitimate()
        wait_until(listener.effect, f"{name}: the legitimate request to take effect")
