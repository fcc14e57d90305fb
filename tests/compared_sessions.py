"""Two sessions whose diff fills every bucket of the runs-compared summary (issue #39 item 5), as
message rows, as store records and as a session file for the importer.

Per tool call (a -> b): `echo` unchanged, `weather` regressed (an `isError` result), `search`
fixed (an error response, then a result), `book` regressed (no answer), `clock` volatile (a time
in its text), `translate` changed, `resources/read demo://gone` removed (only in a), `prompts/get
review` new (only in b). Each answer took the time `LATENCY_MS` gives it."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson

from inspector.store.models import Message

_OK = {"content": [{"type": "text", "text": "ok"}]}

# name -> (a's answer, b's answer): ("result", value), ("error", {...}) or None (no answer)
CALLS: dict[str, tuple[Any, Any]] = {
    "echo": (("result", _OK), ("result", _OK)),
    "weather": (
        ("result", _OK),
        ("result", {"content": [{"type": "text", "text": "down"}], "isError": True}),
    ),
    "search": (("error", {"code": -32603, "message": "index offline"}), ("result", _OK)),
    "book": (("result", _OK), None),
    "clock": (
        ("result", {"content": [{"type": "text", "text": "now 2026-01-01T10:00:00Z"}]}),
        ("result", {"content": [{"type": "text", "text": "now 2026-01-01T10:00:07Z"}]}),
    ),
    "translate": (
        ("result", {"content": [{"type": "text", "text": "hola"}]}),
        ("result", {"content": [{"type": "text", "text": "bonjour"}]}),
    ),
}
# a's and b's answer times, in milliseconds, by method or tool name (others: `LATENCY_MS[""]`)
LATENCY_MS = {"": (2, 3), "echo": (4, 12), "weather": (30, 45), "search": (80, 20), "translate": (10, 10)}
BUCKETS = {"regressed": 2, "fixed": 1, "new": 1, "removed": 1, "changed": 1, "volatile": 1, "unchanged": 3}


def rows(side: int) -> list[dict[str, Any]]:
    """Session `side`'s message rows (0: a, 1: b) as a session file holds them, pairing included."""
    out: list[dict[str, Any]] = []
    t0 = 10**18

    def add(direction: str, kind: str, method: str, rpc_id: int, body: dict[str, Any], **kw: Any) -> int:
        seq = len(out) + 1
        raw = orjson.dumps({"jsonrpc": "2.0", "id": rpc_id, **body}).decode() + "\n"
        out.append(
            {
                "type": "message", "session": side + 1, "seq": seq, "ts_ns": t0 + seq * 10**8,
                "direction": direction, "channel": "stdin" if direction == "c2s" else "stdout",
                "raw": raw, "size": len(raw), "parse_status": "ok", "kind": kind, "method": method,
                "rpc_id": str(rpc_id), **kw,
            }
        )  # fmt: skip
        return seq

    def call(method: str, params: dict[str, Any], answer: Any) -> None:
        ms = LATENCY_MS.get(params.get("name", ""), LATENCY_MS[""])[side]
        rpc_id = len(out) + 1
        seq = add("c2s", "request", method, rpc_id, {"method": method, "params": params})
        if answer is not None:
            kind = "response" if answer[0] == "result" else "error"
            add("s2c", kind, method, rpc_id, {answer[0]: answer[1]}, answers_seq=seq, latency_ns=ms * 10**6)

    call(
        "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}, ("result", {"capabilities": {}})
    )
    call(
        "tools/list",
        {},
        ("result", {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in CALLS]}),
    )
    for name, answers in CALLS.items():
        call("tools/call", {"name": name, "arguments": {}}, answers[side])
    if side == 0:
        call("resources/read", {"uri": "demo://gone"}, ("result", {"contents": []}))
    else:
        call("prompts/get", {"name": "review"}, ("result", {"messages": []}))
    return out


def records(side: int) -> list[Message]:
    """Session `side`'s rows as the store's records (what `diff_sessions` reads)."""
    keep = {f.name for f in dataclasses.fields(Message)} - {"id", "session_id"}
    return [
        Message(
            session_id=side + 1, **{k: (v.encode() if k == "raw" else v) for k, v in r.items() if k in keep}
        )
        for r in rows(side)
    ]


def session_file() -> list[bytes]:
    """Both sessions as the lines of a session file (`mcp-inspect import`): `a` and `b`."""
    lines = [orjson.dumps({"format": "mcp-inspector-session", "version": 1})]
    for side, name in enumerate(("a", "b")):
        head = {"type": "session", "ref": side + 1, "kind": "stdio-wrap", "started_ns": 10**18, "name": name}
        lines += [orjson.dumps(head), *(orjson.dumps(r) for r in rows(side))]
    return lines
