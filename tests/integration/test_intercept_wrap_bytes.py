"""`wrap --faults` with raw bytes: each stdio rule changes what the peer receives exactly as specified.

What each side sent and received is captured outside the inspector (`tee` between
the shim and the server, the test's own pipes on the client side) and compared
with the recorded rows: the sender's row carries `meta.intercept`, every line the
inspector wrote is a row with `meta.injected`, and the lines a peer received are
exactly the recorded rows of that direction that reached it.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from inspector.store import Message, Session, open_engine
from tests.conftest import PEERS
from tests.shim_process import ShimProcess, messages, only_session
from tests.warm_peers import warm_wrap_argv

SERVER = [sys.executable, str(PEERS / "line_echo_server.py")]

RULES = """
seed: 1  # --seed 5 overrides it
rules:
  - {name: swap, match: {method: reorder/*, direction: c2s}, action: reorder, window: 2}
  - {name: twice, match: {method: dup, direction: c2s}, action: duplicate}
  - {name: cut, match: {method: cut}, action: truncate, at: 12, keep_newline: true}
  - {name: flip, match: {method: flip}, action: corrupt, bytes: 3}
  - {name: gone, match: {method: gone, kind: request}, action: drop}
  - {name: slow, match: {method: slow, kind: response}, action: delay, ms: 400}
  - {name: ask, match: {method: ask}, action: replace, result: {answered: by inspector}}
  - {name: err, match: {method: err, kind: response}, action: replace, error: {code: -32042, message: nope}}
  - {name: mix, match: {method: notifications/burst}, action: reorder, window: 3}
  - {name: hold, match: {method: hold, kind: request}, action: pause}
  - {name: lonely, match: {method: lonely, kind: request}, action: reorder, window: 3, ms: 200}
"""


def line(rpc_id: int, method: str, **params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}).encode() + b"\n"


def lines_of(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


class Run:
    def __init__(self, tmp: Path, rules: str, extra: tuple[str, ...] = ("--quiet",)) -> None:
        self.db = tmp / "rec.db"
        self.server_received = tmp / "server_received.bin"
        self.server_sent = tmp / "server_sent.bin"
        (tmp / "rules.yaml").write_text(rules)
        inner = f"tee {self.server_received} | {shlex.join(SERVER)} | tee {self.server_sent}"
        argv = warm_wrap_argv(self.db, "sh", "-c", inner, extra=("--faults", str(tmp / "rules.yaml"), *extra))
        self.shim = ShimProcess(argv)
        self.sent = bytearray()

    def send(self, data: bytes) -> None:
        self.sent += data
        self.shim.send(data)

    def answer(self, timeout: float = 20) -> dict[str, Any]:
        return json.loads(self.shim.read_line(timeout))

    def drain(self, wait: float = 0.4) -> list[dict[str, Any]]:
        """The answers that arrive within `wait` seconds."""
        time.sleep(wait)
        out = []
        while not self.shim.lines.empty():
            out.append(json.loads(self.shim.lines.get()))
        return out

    def finish(self) -> tuple[Session, list[Message]]:
        self.shim.close_stdin()
        assert self.shim.wait() == 0, self.shim.stderr_bytes
        engine = open_engine(self.db)
        session = only_session(engine)
        assert session.id is not None
        return session, messages(engine, session.id)


def reached(rows: list[Message], direction: str) -> Counter[bytes]:
    """The lines of `direction` that reached their peer, by the recording."""
    out: Counter[bytes] = Counter()
    for m in rows:
        if m.direction != direction or m.channel not in ("stdin", "stdout"):
            continue
        meta = m.meta or {}
        if "intercept" in meta and not meta["intercept"]["delivered"]:
            continue
        out[m.raw] += 1
    return out


def test_every_stdio_rule_changes_exactly_what_the_peer_receives(tmp_path: Path) -> None:
    run = Run(tmp_path, RULES, extra=("--quiet", "--seed", "5", "--intercept", "--pause-timeout", "0.8"))
    # reorder (c2s, window 2): the server receives the second first.
    run.send(line(1, "reorder/a") + line(2, "reorder/b"))
    got = sorted(run.answer()["id"] for _ in range(2))
    assert got == [1, 2]
    # duplicate: the server receives the line twice and answers twice.
    run.send(line(3, "dup", x=1))
    assert [run.answer()["id"], run.answer()["id"]] == [3, 3]
    # truncate and corrupt: the server receives broken lines (a corrupted one may still parse).
    run.send(line(4, "cut", text="a long enough line"))
    run.send(line(5, "flip", text="abcdefghijklmnop"))
    # drop: the server never sees the request.
    run.send(line(6, "gone"))
    assert {m.get("id") for m in run.drain()} <= {5}
    # delay of the response (s2c): it arrives 400 ms late, and what follows waits behind it.
    started = time.monotonic()
    run.send(line(7, "slow") + line(8, "plain"))
    assert [run.answer()["id"], run.answer()["id"]] == [7, 8]
    assert time.monotonic() - started >= 0.38
    # replace a request: the inspector answers, the server never sees it.
    run.send(line(9, "ask"))
    assert run.answer() == {"jsonrpc": "2.0", "id": 9, "result": {"answered": "by inspector"}}
    # replace a response with an error.
    run.send(line(10, "err"))
    assert run.answer() == {"jsonrpc": "2.0", "id": 10, "error": {"code": -32042, "message": "nope"}}
    # reorder (s2c, window 3): the three notifications arrive reversed, before the response.
    run.send(line(11, "burst"))
    burst = [run.answer() for _ in range(4)]
    assert [m.get("params", {}).get("n") for m in burst[:3]] == [3, 2, 1] and burst[3]["id"] == 11
    # pause, nobody watching: the held request and what follows it in its direction wait for the
    # timeout (then forwarded, the default); the answer to the request before it flows meanwhile.
    started = time.monotonic()
    run.send(line(12, "first") + line(13, "hold") + line(14, "after"))
    assert run.answer()["id"] == 12 and time.monotonic() - started < 0.7
    assert [run.answer()["id"], run.answer()["id"]] == [13, 14]
    assert time.monotonic() - started >= 0.75
    # a reorder window that never fills is released when its time is up
    started = time.monotonic()
    run.send(line(15, "lonely"))
    assert run.answer()["id"] == 15 and time.monotonic() - started >= 0.19
    session, rows = run.finish()

    server_received = lines_of(run.server_received.read_bytes())
    server_sent = lines_of(run.server_sent.read_bytes())
    client_sent = lines_of(bytes(run.sent))
    client_received = lines_of(bytes(run.shim.stdout_bytes))

    # The recording says exactly what each peer received, and what each sender sent.
    assert reached(rows, "c2s") == Counter(server_received)
    assert reached(rows, "s2c") == Counter(client_received)
    originals = [m for m in rows if "injected" not in (m.meta or {})]
    assert [m.raw for m in originals if m.direction == "c2s"] == client_sent
    assert [m.raw for m in originals if m.direction == "s2c" and m.channel == "stdout"] == server_sent

    by_rule = {m.meta["intercept"]["rule"]: m for m in rows if "intercept" in (m.meta or {})}
    # reorder c2s
    assert server_received[:2] == [line(2, "reorder/b"), line(1, "reorder/a")]
    assert by_rule["swap"].meta["intercept"]["delivered"] is True
    # duplicate: one injected copy
    assert server_received.count(line(3, "dup", x=1)) == 2
    dup = by_rule["twice"].meta["intercept"]
    assert dup["delivered"] is True
    assert [
        m.meta["injected"] for m in rows if m.meta and m.meta.get("injected", {}).get("n") == dup["n"]
    ] == [{"n": dup["n"], "action": "duplicate", "by": "rule:twice"}]
    # truncate keeps 12 bytes and the newline
    assert line(4, "cut", text="a long enough line")[:12] + b"\n" in server_received
    assert by_rule["cut"].meta["intercept"]["delivered"] is False
    # corrupt: same length, exactly 3 bytes differ, still one line
    flip = line(5, "flip", text="abcdefghijklmnop")
    (bad,) = [x for x in server_received if len(x) == len(flip) and x != flip]
    assert sum(a != b for a, b in zip(bad, flip, strict=True)) == 3
    # drop
    assert not any(b'"gone"' in x for x in server_received)
    assert by_rule["gone"].meta["intercept"] == {
        "n": by_rule["gone"].meta["intercept"]["n"], "action": "drop", "by": "rule:gone", "delivered": False,
        "rule": "gone",
    }  # fmt: skip
    # delay
    assert by_rule["slow"].meta["intercept"]["delay_ms"] == 400
    # replace a request: answered, the injected reply is an s2c row paired with the request
    assert not any(b'"ask"' in x for x in server_received)
    reply = next(m for m in rows if m.direction == "s2c" and (m.meta or {}).get("injected", {}).get("action") == "replace"
                 and m.rpc_id == "9")  # fmt: skip
    assert reply.kind == "response" and reply.answers_seq == by_rule["ask"].seq
    # replace a response: the server's answer is recorded, undelivered, and the error row is what arrived
    assert by_rule["err"].direction == "s2c" and by_rule["err"].kind == "response"
    assert session.facts["intercept"]["seed"] == 5
    assert session.facts["intercept"]["file"] == str(tmp_path / "rules.yaml")
    held = by_rule["hold"].meta["intercept"]
    assert (held["action"], held["by"], held["delivered"]) == ("pause", "timeout", True)
    rules = ["swap", "twice", "cut", "flip", "gone", "slow", "ask", "err", "mix", "hold", "lonely"]
    assert session.facts["intercept"]["rules"] == rules


def test_disconnect_after_n_messages_ends_the_session_with_the_rule(tmp_path: Path) -> None:
    rules = "rules:\n  - {name: cutoff, match: {direction: c2s}, action: disconnect, after: 2}\n"
    run = Run(tmp_path, rules)
    run.send(line(1, "a") + line(2, "b"))
    assert [run.answer()["id"], run.answer()["id"]] == [1, 2]
    run.send(line(3, "c"))
    assert run.shim.read_line() == b""  # the client reads EOF
    assert run.shim.wait() == 0
    engine = open_engine(run.db)
    session = only_session(engine)
    assert session.end_reason == "disconnected by rule cutoff"
    rows = messages(engine, session.id or 0)
    (cut,) = [m for m in rows if "intercept" in (m.meta or {})]
    assert cut.method == "c" and cut.meta["intercept"]["action"] == "disconnect"
    assert line(3, "c") not in lines_of(run.server_received.read_bytes())


def test_rules_that_can_never_act_leave_the_plain_pumps(tmp_path: Path) -> None:
    rules = (
        "seed: 3\nrules:\n  - {name: disabled, action: drop, enabled: false}\n"
        "  - {name: bp, action: pause}\n"  # a breakpoint without --intercept
    )
    run = Run(tmp_path, rules, extra=())
    run.send(line(1, "a"))
    assert run.answer()["id"] == 1
    session, rows = run.finish()
    err = run.shim.stderr_bytes.decode()
    assert "no rule is active (2 in the file): forwarding as a plain wrap" in err
    assert "bp pause only with --intercept" in err
    assert session.facts["intercept"] == {
        "seed": 3,
        "rules": ["disabled", "bp"],
        "file": str(tmp_path / "rules.yaml"),
    }
    assert [m.raw for m in rows if m.channel in ("stdin", "stdout")] == [
        line(1, "a"),
        lines_of(run.server_sent.read_bytes())[0],
    ]
    assert not any(m.meta for m in rows if m.channel in ("stdin", "stdout"))
