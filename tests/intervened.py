"""Recordings with interventions (issue 17), written the way an intercepting transport writes them:
each line through the real recorder (`Recorder` + `Tap.submit_message(..., meta=...)` into a
`StoreWriter` on real SQLite), so framing, pairing, redaction and storage are the product's own.

`INTERVENED` is a hand-written stdio session with one intervention of each shape the record has
(contract section 2): a delayed request (delivered), an edited request (original not delivered +
injected copy), a replaced response (original not delivered + injected error), a dropped request,
a request the inspector answered itself, and a dropped response.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.capture.recorder import Recorder
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, open_engine


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _call(rid: int, name: str, args: dict[str, Any]) -> bytes:
    return _line(
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": args}}
    )


def _text(rid: int, text: str) -> bytes:
    return _line({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})


def _mark(n: int, action: str, by: str, delivered: bool, **extra: Any) -> dict[str, Any]:
    return {"intercept": {"n": n, "action": action, "by": by, "delivered": delivered, **extra}}


def _injected(n: int, action: str, by: str) -> dict[str, Any]:
    return {"injected": {"n": n, "action": action, "by": by}}


Line = tuple[str, bytes, dict[str, Any] | None]  # direction, raw line, meta

INTERVENED: list[Line] = [
    (
        "c2s",
        _line(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        None,
    ),
    (
        "s2c",
        _line(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            }
        ),
        None,
    ),
    ("c2s", _line({"jsonrpc": "2.0", "method": "notifications/initialized"}), None),  # 3
    ("c2s", _call(1, "echo", {"message": "slow"}), _mark(1, "delay", "rule:slow", True, delay_ms=200)),  # 4
    ("s2c", _text(1, "Echo: slow"), None),  # 5
    ("c2s", _call(2, "echo", {"message": "hi"}), _mark(2, "edit", "user", False)),  # 6
    ("c2s", _call(2, "echo", {"message": "edited"}), _injected(2, "edit", "user")),  # 7
    ("s2c", _text(2, "Echo: edited"), None),  # 8: answers 7, what the server received
    ("c2s", _call(3, "echo", {"message": "x"}), None),  # 9
    ("s2c", _text(3, "Echo: x"), _mark(3, "replace", "rule:fail", False)),  # 10: the server's own answer
    (
        "s2c",
        _line({"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "injected failure"}}),
        _injected(3, "replace", "rule:fail"),
    ),  # 11: what the client got
    ("c2s", _call(4, "echo", {"message": "lost"}), _mark(4, "drop", "rule:blackhole", False)),  # 12
    ("c2s", _call(5, "echo", {"message": "mine"}), _mark(5, "respond", "user", False)),  # 13
    ("s2c", _text(5, "answered by a person"), _injected(5, "respond", "user")),  # 14
    ("c2s", _line({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}), None),  # 15
    (
        "s2c",
        _line({"jsonrpc": "2.0", "id": 6, "result": {"tools": []}}),
        _mark(6, "drop", "rule:lose", False),
    ),  # 16
]

FACTS = {"seed": 1234, "rules": ["slow", "fail", "blackhole", "lose"], "file": "rules.yaml"}


def record_lines(
    db: Path,
    lines: list[Line],
    *,
    name: str = "intervened",
    kind: str = "stdio-wrap",
    intercept: dict[str, Any] | None = FACTS,
) -> int:
    """Record `lines` as a stdio session through the real recorder; return its id.

    `intercept` goes into the session's facts (`facts.intercept`) through `Tap.add_facts`, as the
    intercepting transports put it there."""
    engine = open_engine(db)
    try:
        sid = create_session(engine, kind=kind, target=["server"], name=name)
        recorder = Recorder([StoreWriter(engine)], flush_interval=0.001).start()
        tap = recorder.open(sid)
        t = 1_700_000_000_000_000_000
        for i, (direction, raw, meta) in enumerate(lines):
            channel = "stdin" if direction == "c2s" else "stdout"
            extra: dict[str, Any] = {"meta": meta} if meta else {}
            tap.submit_message(direction, channel, raw, ts_ns=t + i * 1_000_000, **extra)
        if intercept is not None:
            tap.add_facts({"intercept": intercept})
        tap.end(0, "client closed stdin")
        recorder.stop()
        return sid
    finally:
        engine.dispose()
