"""Live views across machines: a `wrap` recording into PostgreSQL shows in another process's `ui`
feed, woken by PostgreSQL's NOTIFY rather than by polling (issue 19).

Two real processes on one real PostgreSQL cluster (`tests/postgres.py`): `mcp-inspect ui` and
`mcp-inspect wrap` around a scripted peer, each forked from the warm server (tests/warm_peers.py:
processes of their own, without Python's start-up and the libraries' imports each time). The ui's
safety poll is set to 10 minutes, so the events can only come from notifications; its
`/api/live/status` counts what woke the feed. Each test's database has its schema made
(`pg_store_url`: a copy of the cluster's migrated template), as a team's store has.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess
from tests.warm_peers import inspector_argv


class Ui:
    """`mcp-inspect ui` as a subprocess; its printed URL gives the base and the token."""

    def __init__(self, db: str, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            inspector_argv("ui", "--db", db, "--port", "0", "--no-open"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 90
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no URL printed; output: {''.join(self.output)}") from None
            found = re.search(r"mcp-inspector UI: (http://127\.0\.0\.1:\d+)/#token=([\w-]+)", line)
            if found:
                self.base, self.token = found.groups()
                return

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)

    def status(self) -> dict[str, Any]:
        answer = httpx.get(f"{self.base}/api/live/status", params={"token": self.token}, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def websocket(self) -> ClientConnection:
        return connect(
            self.base.replace("http://", "ws://") + f"/api/live?token={self.token}", open_timeout=10
        )

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(30)


def _next(ws: ClientConnection, wanted: str, deadline: float, **match: Any) -> dict[str, Any]:
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"no {wanted} event {match} in time"
        event = json.loads(ws.recv(timeout=remaining))
        if event["type"] == wanted and all(event.get(k) == v for k, v in match.items()):
            return event


# `mcp-inspect wrap`, forked from the warm server (tests/warm_peers.py).
WRAP = inspector_argv("wrap")


def _wrap(db: str, name: str) -> ShimProcess:
    return ShimProcess([*WRAP, "--db", db, "--name", name, "--", *SCRIPTED])


def test_a_wrap_into_postgresql_appears_in_another_ui_woken_by_notify(pg_store_url: str) -> None:
    # The safety poll is 10 minutes: only a notification can bring these events within the test.
    ui = Ui(pg_store_url, {**os.environ, "MCP_INSPECTOR_LIVE_SAFETY_POLL": "600"})
    shim = None
    try:
        deadline = time.monotonic() + 60
        while ui.status()["mode"] != "notify":
            assert time.monotonic() < deadline, ui.output
            time.sleep(0.05)
        with ui.websocket() as ws:
            time.sleep(0.3)  # the feed's first look (a websocket joined) is done before the wrap starts
            before = ui.status()
            shim = _wrap(pg_store_url, "pg-live")
            session = _next(ws, "session_created", deadline)["session"]
            assert session["name"] == "pg-live" and session["state"] == "recording"
            ws.send(json.dumps({"type": "subscribe", "session_id": session["id"], "after_seq": 0}))
            started = time.perf_counter()
            shim.request(1, "ping")
            assert json.loads(shim.read_line())["id"] == 1
            seen: dict[int, dict[str, Any]] = {}
            while 2 not in seen:
                event = _next(ws, "messages", deadline, session_id=session["id"])
                seen.update({r["seq"]: r for r in event["items"]})
            end_to_end = time.perf_counter() - started
            assert seen[2]["answers_seq"] == 1
            shim.close_stdin()
            assert shim.wait() == 0, shim.stderr_bytes
            ended = _next(ws, "session_ended", deadline)["session"]
            assert ended["id"] == session["id"] and ended["message_count"] == 2
            after = ui.status()
        assert after["backend"] == "postgresql" and after["mode"] == "notify"
        # created, rows, ended at least: each woke the feed; the 10-minute timer never fired.
        assert after["notifications"] - before["notifications"] >= 3
        assert after["polls_on_notification"] > before["polls_on_notification"]
        assert after["polls_on_timer"] == before["polls_on_timer"] == 0
        print(
            f"\nlive feed over PostgreSQL NOTIFY: request sent -> row on the websocket "
            f"{end_to_end * 1000:.1f} ms; commit -> notification {after['last_notification_delay_ms']} ms"
        )
    finally:
        if shim is not None and shim.proc.poll() is None:
            shim.proc.kill()
        assert ui.stop() == 0, "".join(ui.output)


def _until(check: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_the_ui_feed_survives_a_postgresql_restart_and_listens_again(
    pg_cluster: Any, pg_store_url: str
) -> None:
    ui = Ui(pg_store_url, {**os.environ, "MCP_INSPECTOR_LIVE_SAFETY_POLL": "600"})
    shim = None
    try:
        _until(lambda: ui.status()["mode"] == "notify", f"never listened: {ui.output}")
        with ui.websocket() as ws:
            pg_cluster.stop()
            try:
                _until(
                    lambda: ui.status()["mode"] == "poll", f"the lost connection went unnoticed: {ui.output}"
                )
            finally:
                pg_cluster.start()
            _until(lambda: ui.status()["mode"] == "notify", f"never listened again: {ui.output}")
            # The pool's connections died with the server: the API answers anyway (pre-ping).
            answer = httpx.get(f"{ui.base}/api/sessions", params={"token": ui.token}, timeout=30)
            assert answer.status_code == 200 and answer.json()["total"] == 0, answer.text
            before = ui.status()
            shim = _wrap(pg_store_url, "after-restart")
            created = _next(ws, "session_created", time.monotonic() + 60)["session"]
            assert created["name"] == "after-restart"
            assert ui.status()["polls_on_notification"] > before["polls_on_notification"]
            shim.close_stdin()
            assert shim.wait() == 0, shim.stderr_bytes
    finally:
        if shim is not None and shim.proc.poll() is None:
            shim.proc.kill()
        assert ui.stop() == 0, "".join(ui.output)
    said = "".join(ui.output)
    assert "lost the listening connection" in said and "listening for changes on" in said, said
    assert said.count("live feed poll failed") <= 1, said  # once per outage, not once per tick


def test_a_rename_and_a_delete_in_one_ui_reach_another_ui_at_once(pg_store_url: str) -> None:
    """The first UI's API in-process (its PATCH and DELETE through the same app and store code, in
    this process: another process as far as the other UI is concerned); the other a real `ui`."""
    from starlette.testclient import TestClient

    from inspector.api.app import create_app
    from inspector.capture.sessions import create_session
    from inspector.store import SessionWriter, open_engine

    engine = open_engine(pg_store_url)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=["server"], name="before")
        SessionWriter(engine, sid).on_end(0, "client-eof")
        other = Ui(pg_store_url, {**os.environ, "MCP_INSPECTOR_LIVE_SAFETY_POLL": "600"})
        token = "t" * 32
        one = TestClient(
            create_app(engine, token=token, hosts=["127.0.0.1"]),
            base_url="http://127.0.0.1",
            headers={"authorization": f"Bearer {token}"},
        )
        try:
            _until(lambda: other.status()["mode"] == "notify", f"never listened: {other.output}")
            with other.websocket() as ws:
                time.sleep(0.3)  # the feed's first look (a websocket joined) is done
                deadline = time.monotonic() + 60
                renamed = one.patch(f"/api/sessions/{sid}", json={"name": "after"})
                assert renamed.status_code == 200, renamed.text
                assert _next(ws, "session_updated", deadline)["session"]["name"] == "after"
                assert one.delete(f"/api/sessions/{sid}").status_code == 204
                assert _next(ws, "session_deleted", deadline, session_id=sid)
            assert other.status()["polls_on_timer"] == 0
        finally:
            one.close()
            assert other.stop() == 0, "".join(other.output)
    finally:
        engine.dispose()
