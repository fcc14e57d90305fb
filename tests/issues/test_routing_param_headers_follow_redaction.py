"""Issue #33, finding 3: routing headers defeated the user's redaction.

With `--redact-path params.arguments.otp --redact ssn`, a 2026-07-28 `tools/call` stored its body
redacted but `Mcp-Param-Otp: RH01` (and the `=?base64?...?=` form of a non-ASCII value) as sent,
in the database and in every export. Redaction follows the data: a header mirroring a redacted
argument gets the argument's own placeholder (so header and body still agree for lint and a replay
fills both from one `--secret`); a header named for a redacted name or path leaf is redacted even
when its value differs from the body's.

The requests are what a 2026-07-28 client sends: headers from `param_header_values` (the tool's
inputSchema `x-mcp-header` properties, encoded as the spec says), through the recorder's builder
and the one redaction step into a real store, then exported as HAR, JSONL and HTML.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import orjson

from inspector.capture import MessageBuilder
from inspector.capture.redact import Redaction
from inspector.capture.sessions import create_session
from inspector.lint.check import check_rows
from inspector.protocol.routing_headers import encode_value, param_header_values, routing_of_row
from inspector.share.export import har_sessions, jsonl_lines, other_format
from inspector.share.har import har_chunks
from inspector.store import open_engine
from inspector.store.queries import get_session, iter_rows
from inspector.store.writer import SessionWriter

REV = "2026-07-28"
SCHEMA = {
    "type": "object",
    "properties": {
        "otp": {"type": "string", "x-mcp-header": "One-Time"},  # header named unlike the argument
        "ssn": {"type": "string", "x-mcp-header": "Ssn"},
        "region": {"type": "string", "x-mcp-header": "Region"},
    },
}
OTP, OTP_WIDE, SSN = "RH01", "RH01-Zürich-東京", "078-05-1120"


def _call(builder: MessageBuilder, n: int, arguments: dict[str, Any], extra: list[list[str]]) -> Any:
    body = orjson.dumps({
        "jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": "login", "arguments": arguments, "_meta": {"io.modelcontextprotocol/protocolVersion": REV}},
    })  # fmt: skip
    headers = [
        ["Content-Type", "application/json"], ["Accept", "application/json, text/event-stream"],
        ["MCP-Protocol-Version", REV], ["Mcp-Method", "tools/call"], ["Mcp-Name", "login"],
        *([k, v] for k, v in param_header_values(SCHEMA, arguments)), *extra,
    ]  # fmt: skip
    return builder.message(
        time.time_ns(),
        "c2s",
        "http-request",
        body,
        http_method="POST",
        http_path="/mcp",
        http_headers=headers,
    )


def test_param_headers_of_redacted_arguments_are_stored_and_exported_redacted(tmp_path: Path) -> None:
    rules = Redaction.from_config(["ssn"], ["params.arguments.otp"], environ={})
    db = tmp_path / "rec.db"
    engine = open_engine(db)
    session_id = create_session(engine, kind="http-proxy", target="http://h/mcp", name="p", redaction=rules)
    builder = MessageBuilder(session_id)
    plain = _call(builder, 1, {"otp": OTP, "ssn": SSN, "region": "north"}, [])
    wide = _call(builder, 2, {"otp": OTP_WIDE, "ssn": SSN, "region": "north"}, [])
    # A client whose header disagrees with its body: the header is still the user's named secret.
    odd = _call(
        builder, 3, {"region": "north"}, [["Mcp-Param-Ssn", "999-99-9999"], ["Mcp-Param-Otp", "ZZ99"]]
    )
    sent = dict(wide["http_headers"])
    assert sent["Mcp-Param-One-Time"] == encode_value(OTP_WIDE) and sent["Mcp-Param-One-Time"].startswith(
        "=?base64?"
    )
    rows = [plain, wide, odd]
    for row in rows:
        rules.row(row)
    writer = SessionWriter(engine, session_id)
    writer.on_batch(rows)
    writer.on_end(0, "test")

    stored = list(iter_rows(engine, session_id))
    for row in stored[:2]:
        headers = dict(row["http_headers"])
        assert headers["Mcp-Param-One-Time"] == "[secret:body.params.arguments.otp]"
        assert headers["Mcp-Param-Ssn"] == "[secret:body.ssn]"
        assert headers["Mcp-Param-Region"] == "north" and headers["Mcp-Name"] == "login"
        # Header and body hold the same placeholder: the routing check still sees them agree.
        routing = routing_of_row(row, {"login": SCHEMA})
        assert routing is not None
        checks = {c.name.lower(): c.status for c in routing.headers}
        assert checks["mcp-param-one-time"] == checks["mcp-param-ssn"] == "agrees", checks
    odd_headers = dict(stored[2]["http_headers"])
    assert odd_headers["Mcp-Param-Ssn"] == "[secret:mcp-param-ssn]"
    assert odd_headers["Mcp-Param-Otp"] == "[secret:mcp-param-otp]"
    assert not [
        f for f in check_rows(stored) if f.rule == "routing-header-mismatch" and f.seq != stored[2]["seq"]
    ]

    session = get_session(engine, session_id)
    exported = {
        "har": b"".join(har_chunks(har_sessions(engine, [session]))),
        "jsonl": b"".join(jsonl_lines(engine, [session])),
        "html": b"".join(other_format(engine, [session], "html")[0]),
    }
    engine.dispose()
    secrets = [OTP, OTP_WIDE, SSN, "999-99-9999", "ZZ99"]
    forms = [s.encode() for s in secrets] + [base64.b64encode(s.encode()) for s in secrets]
    forms += [orjson.dumps(OTP_WIDE)[1:-1]]  # as JSON escapes it
    at_rest = {**exported, "database": b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())}
    for where, data in at_rest.items():
        for form in forms:
            assert form not in data, (where, form)
        assert b"north" in data, where  # what was not redacted is still there
