"""The addon interface over the stdio shim (`inspector/flow.py`, issue #35): a feature decides per
line through `Addon.message` and the shim applies its `Verdict`, with no subclass of the shim."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import orjson

from inspector.capture import Recorder
from inspector.capture.sessions import create_session
from inspector.flow import Addon, Addons, Connection, Flow, InjectedMeta, Send, StdioContext, Verdict
from inspector.store import StoreWriter, iter_messages, open_engine
from inspector.transports.stdio import StdioShim

ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()\n"


def _line(rpc_id: int, method: str) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s"}\n' % (rpc_id, method.encode())


class Gate(Addon):
    """Answers `forbidden` itself, drops `drop`, lets the rest pass; notes its hooks."""

    decides = True

    def __init__(self) -> None:
        self.hooks: list[str] = []

    def connection_start(self, conn: Connection) -> None:
        self.hooks.append("connection_start")

    def message(self, flow: Flow) -> Verdict | None:
        method = flow.message.get("method") if isinstance(flow.message, dict) else None
        if method == "forbidden":
            flow.meta["intercept"] = {"n": 1, "action": "respond", "by": "user", "delivered": False}
            answer = orjson.dumps(
                {"jsonrpc": "2.0", "id": flow.message["id"], "error": {"code": -1, "message": "no"}}
            )
            injected = InjectedMeta(n=1, action="respond", by="user")
            return Verdict([Send(answer + b"\n", "s2c", injected=injected)])
        if method == "drop":
            return Verdict()
        return None

    def stream_end(self, conn: Connection, direction: str) -> None:
        self.hooks.append(f"stream_end {direction}")

    def server_exited(self, conn: Connection) -> None:
        self.hooks.append("server_exited")

    def connection_end(self, conn: Connection) -> None:
        self.hooks.append("connection_end")


def test_an_addon_answers_drops_and_passes_lines_and_every_row_is_recorded(db_path: Path) -> None:
    engine = open_engine(db_path)
    sid = create_session(engine, kind="stdio-wrap", target=["echo"])
    recorder = Recorder([StoreWriter(engine)]).start()
    client_r, shim_in = os.pipe()
    shim_out, client_w = os.pipe()
    gate = Gate()
    shim = StdioShim(
        [sys.executable, "-c", ECHO],
        recorder.open(sid),
        stdin_fd=client_r,
        stdout_fd=client_w,
        addons=Addons([gate]),
    )
    done: list[int] = []
    runner = threading.Thread(target=lambda: done.append(shim.run(install_signal_handlers=False).exit_code))
    runner.start()
    os.write(shim_in, _line(1, "ping") + _line(2, "forbidden") + _line(3, "drop") + _line(4, "ping"))
    os.close(shim_in)
    received = b""
    while received.count(b"\n") < 3:
        chunk = os.read(shim_out, 65536)
        assert chunk, f"EOF after {received!r}"
        received += chunk
    runner.join(30)
    assert done == [0]
    for fd in (client_r, shim_out, client_w):
        os.close(fd)
    recorder.stop()
    got = sorted(orjson.loads(line)["id"] for line in received.splitlines())
    assert got == [1, 2, 4]
    assert b'"error":{"code":-1' in received
    rows = [(m.direction, m.rpc_id, sorted((m.meta or {}).keys())) for m in iter_messages(engine, sid)]
    assert sorted(rows) == sorted(
        [
            ("c2s", "1", []),
            ("c2s", "2", ["intercept"]),
            ("s2c", "2", ["injected"]),
            ("c2s", "3", []),
            ("c2s", "4", []),
            ("s2c", "1", []),
            ("s2c", "4", []),
        ]
    )
    assert gate.hooks[0] == "connection_start" and gate.hooks[-1] == "connection_end"
    assert "server_exited" in gate.hooks and "stream_end c2s" in gate.hooks


class Note(Addon):
    """An observer: never decides."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def message(self, flow: Flow) -> Verdict | None:
        self.seen.append(flow.raw)
        return Verdict()


class Say(Addon):
    decides = True

    def __init__(self, verdict: Verdict | None) -> None:
        self.verdict = verdict
        self.asked = 0

    def message(self, flow: Flow) -> Verdict | None:
        self.asked += 1
        return self.verdict


def test_the_first_addon_that_decides_wins_and_observers_are_not_asked() -> None:
    note, passes, drops, never = Note(), Say(None), Say(Verdict()), Say(Verdict(disconnect="x"))
    addons = Addons([note, passes, drops, never])
    flow = Flow(b"{}\n", "c2s", 0, StdioContext(["server"], "stdin"))
    assert addons.message(flow) is drops.verdict
    assert (note.seen, passes.asked, drops.asked, never.asked) == ([], 1, 1, 0)
    assert Addons([note]).message(flow) is None and not Addons([note]).deciders
