"""Hand-made recordings for the lint tests, built through the recorder's own `MessageBuilder`.

`Stdio` and `Http` write a session line by line (or HTTP part by part) the
way the stdio shim and the HTTP proxy feed the builder, so the rows carry
exactly what a real recording would: classification, pairing and flags.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.capture import MessageBuilder

ACCEPT_BOTH = "application/json, text/event-stream"
SERVER_CAPS: dict[str, Any] = {"tools": {}, "resources": {}, "logging": {}}


def _bytes(message: dict[str, Any] | list[Any] | bytes) -> bytes:
    return message if isinstance(message, bytes) else orjson.dumps(message)


def request(rpc_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
    if params is not None:
        out["params"] = params
    return out


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        out["params"] = params
    return out


def result(rpc_id: Any, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": value}


def initialize(version: str, caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return request(
        0,
        "initialize",
        {"protocolVersion": version, "capabilities": caps or {}, "clientInfo": {"name": "c", "version": "1"}},
    )


def initialized_result(version: str, caps: dict[str, Any] | None = None) -> dict[str, Any]:
    return result(
        0,
        {
            "protocolVersion": version,
            "capabilities": SERVER_CAPS if caps is None else caps,
            "serverInfo": {"name": "s", "version": "1"},
        },
    )


class Stdio:
    """A stdio session: messages fed as newline-terminated lines."""

    def __init__(self) -> None:
        self.builder = MessageBuilder(1)
        self.rows: list[dict[str, Any]] = []
        self.t = 1_700_000_000_000_000_000

    def send(self, direction: str, message: dict[str, Any] | list[Any] | bytes) -> int:
        """Feed one line; return its seq."""
        self.t += 1_000_000
        channel = "stdin" if direction == "c2s" else "stdout"
        raw = _bytes(message)
        self.rows += self.builder.feed(
            self.t, direction, channel, raw if raw.endswith(b"\n") else raw + b"\n"
        )
        return self.rows[-1]["seq"]

    def handshake(
        self,
        version: str = "2025-11-25",
        client: dict[str, Any] | None = None,
        server: dict[str, Any] | None = None,
    ) -> Stdio:
        self.send("c2s", initialize(version, client))
        self.send("s2c", initialized_result(version, server))
        self.send("c2s", notification("notifications/initialized"))
        return self


class Http:
    """A Streamable HTTP session: POST exchanges as the proxy records them."""

    def __init__(self) -> None:
        self.builder = MessageBuilder(1)
        self.rows: list[dict[str, Any]] = []
        self.t = 1_700_000_000_000_000_000
        self.exchange = 0

    def post(
        self,
        message: dict[str, Any],
        headers: dict[str, str],
        *,
        answer: dict[str, Any] | None = None,
        status: int | None = None,
        response_headers: dict[str, str] | None = None,
    ) -> int:
        """One POST and its response (JSON body, or 202 without one); return the request's seq."""
        self.exchange += 1
        self.t += 1_000_000
        meta = {"exchange": self.exchange}
        self.rows.append(
            self.builder.message(
                self.t,
                "c2s",
                "http-request",
                _bytes(message),
                http_method="POST",
                http_path="/mcp",
                http_headers=[[k, v] for k, v in headers.items()],
                meta=meta,
            )
        )
        seq = self.rows[-1]["seq"]
        body = _bytes(answer) if answer is not None else b""
        head = response_headers or ({"content-type": "application/json"} if answer is not None else {})
        self.rows.append(
            self.builder.message(
                self.t + 500_000,
                "s2c",
                "http-response",
                body,
                http_method="POST",
                http_path="/mcp",
                http_status=status or (200 if answer is not None else 202),
                http_headers=[[k, v] for k, v in head.items()],
                meta=meta,
            )
        )
        return seq

    def handshake(self, version: str = "2025-11-25", session_id: str = "sid-1") -> Http:
        headers = {"accept": ACCEPT_BOTH, "content-type": "application/json"}
        self.post(
            initialize(version),
            headers,
            answer=initialized_result(version),
            response_headers={"content-type": "application/json", "mcp-session-id": session_id},
        )
        self.post(notification("notifications/initialized"), self.headers(version, session_id))
        return self

    @staticmethod
    def headers(version: str = "2025-11-25", session_id: str | None = "sid-1") -> dict[str, str]:
        out = {"accept": ACCEPT_BOTH, "content-type": "application/json", "mcp-protocol-version": version}
        if session_id is not None:
            out["mcp-session-id"] = session_id
        return out


def store(db: Any, s: Stdio | Http, *, name: str = "hand-made", kind: str = "stdio-wrap") -> int:
    """Write a hand-made session through the store's `SessionWriter`; return its id."""
    from inspector.capture.sessions import create_session
    from inspector.store import SessionWriter, open_engine

    engine = open_engine(db)
    sid = create_session(engine, kind=kind, target=["server"], name=name)
    for row in s.rows:
        row["session_id"] = sid
    writer = SessionWriter(engine, sid)
    writer.on_batch(s.rows, s.builder.facts.snapshot())
    writer.on_end(0, "client-eof", s.builder.facts.snapshot())
    engine.dispose()
    return sid


def violations(db: Any, name: str = "violations") -> tuple[int, dict[str, int]]:
    """A stored session with one error and two warnings; returns its id and the offending seqs by rule."""
    s = Stdio().handshake(server={"tools": {}})
    s.send("c2s", request(1, "tools/list"))
    s.send("s2c", result(1, {"tools": []}))
    seqs = {"server-capability-not-declared": s.send("c2s", request(2, "prompts/list"))}
    s.send("s2c", result(2, {"prompts": []}))
    seqs["unknown-response-id"] = s.send("s2c", result(99, {"tools": []}))
    seqs["list-changed-not-declared"] = s.send("s2c", notification("notifications/tools/list_changed"))
    return store(db, s, name=name), seqs
