"""Lint named the wrong rule for three things hosts' clients meet on the wire (issue #34, item 5).

- A POST of a notification answered `202 Accepted` with the body `null` was flagged
  `invalid-jsonrpc` (Base protocol > Messages): the body was read as a JSON-RPC message. The rule
  broken is Streamable HTTP's "202 Accepted with no body" (`http-202-with-body`).
- A `GET /mcp` answered `200 application/json` was flagged `invalid-jsonrpc` ("missing jsonrpc")
  beside the content-type finding: the rule broken is "a GET is answered with an event stream or
  405" (`http-get-answer`), and the body of such an answer is no JSON-RPC message.
- A client that probes with `server/discover` (2026-07-28) and falls back to `initialize` when
  the server refuses: the server's refusal (here server-everything's `id: null` error) was judged
  and cited under the revision the client offered, 2026-07-28, not the one the session settled on.

Rows are built as `tests/lint_wire_recordings.py` builds them; the lint fed every way (dict rows,
the store's cursor tuples one by one and in pages) and the stored lint must agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.lint import check_rows, findings_of
from inspector.lint.findings import Finding
from inspector.store import open_engine
from tests.lint_recordings import Http, notification, request, result, store
from tests.lint_wire_recordings import call, headers
from tests.unit.test_lint_made_up import every_way

SETTLED = "2025-11-25"


def _both(rows: list[dict[str, Any]]) -> list[Finding]:
    """The findings of the rows, checked equal whichever way they are fed (`every_way`)."""
    found = check_rows(rows)
    assert every_way(rows) == found
    return found


def _get(s: Http, status: int, body: bytes, content_type: str) -> int:
    """A GET on the MCP endpoint and its answer; the answer's seq."""
    s.exchange += 1
    s.t += 1_000_000
    meta = {"exchange": s.exchange}
    sent = {**Http.headers(SETTLED), "accept": "text/event-stream"}
    s.rows.append(
        s.builder.message(
            s.t,
            "c2s",
            "http-request",
            b"",
            http_method="GET",
            http_path="/mcp",
            http_headers=[[k, v] for k, v in sent.items()],
            meta=meta,
        )
    )
    s.rows.append(
        s.builder.message(
            s.t + 500_000,
            "s2c",
            "http-response",
            body,
            http_method="GET",
            http_path="/mcp",
            http_status=status,
            http_headers=[["content-type", content_type]],
            meta=meta,
        )
    )
    return int(s.rows[-1]["seq"])


def test_202_with_a_null_body_breaks_the_202_rule_not_json_rpc() -> None:
    s = Http().handshake(SETTLED)
    progress = notification("notifications/progress", {"progressToken": 1, "progress": 1})
    seq = s.post(progress, Http.headers(SETTLED), answer=b"null", status=202) + 1  # type: ignore[arg-type]
    found = _both(s.rows)
    assert [(f.seq, f.rule, f.severity) for f in found] == [(seq, "http-202-with-body", "error")]
    assert found[0].spec_section.startswith("Transports › Sending messages to the server (")
    assert "2025-11-25/basic/transports#sending-messages-to-the-server" in found[0].spec_section


def test_an_empty_202_is_clean() -> None:
    s = Http().handshake(SETTLED)
    s.post(notification("notifications/progress", {"progressToken": 1, "progress": 1}), Http.headers(SETTLED))
    assert _both(s.rows) == []


def test_get_answered_200_json_breaks_the_get_rule_and_its_body_is_not_json_rpc() -> None:
    s = Http().handshake(SETTLED)
    seq = _get(s, 200, b'{"error":"Method not allowed"}', "application/json")
    found = _both(s.rows)
    assert [(f.seq, f.rule, f.severity) for f in found] == [(seq, "http-get-answer", "error")]
    assert found[0].spec_section.startswith("Transports › Listening for messages from the server (")
    assert "2025-11-25/basic/transports#listening-for-messages-from-the-server" in found[0].spec_section
    assert "application/json" in found[0].explanation


def test_get_answered_405_with_a_json_rpc_error_is_clean() -> None:
    # The client's tools/list is still unanswered: the GET's null-id error must not be paired with it.
    s = Http().handshake(SETTLED)
    s.post(request(1, "tools/list"), Http.headers(SETTLED))  # its answer has not come yet
    error = b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}'
    _get(s, 405, error, "application/json")
    assert [f.rule for f in _both(s.rows)] == []


def _fallback() -> tuple[Http, int]:
    """server-everything over Streamable HTTP met by a client that probes with server/discover:
    HTTP 400 with an id-null error, then the client's initialize at 2025-11-25."""
    s = Http()
    refused = {
        "jsonrpc": "2.0",
        "error": {"code": -32000, "message": "Bad Request: Server not initialized"},
        "id": None,
    }
    probe = s.post(call(1, "server/discover"), headers("server/discover"), answer=refused, status=400)
    s.handshake(SETTLED)
    s.post(request(2, "tools/list"), Http.headers(SETTLED), answer=result(2, {"tools": []}))
    return s, probe + 1


def test_the_refused_discover_probe_is_judged_under_the_settled_revision(db_path: Path) -> None:
    s, error_seq = _fallback()
    found = _both(s.rows)
    assert [(f.seq, f.rule) for f in found] == [(error_seq, "error-id-null")]
    assert found[0].revision == SETTLED
    assert f"/specification/{SETTLED}/basic#responses" in found[0].spec_section
    sid = store(db_path, s, kind="http-proxy")
    engine = open_engine(db_path, create=False)
    try:
        stored = findings_of(engine, sid)
    finally:
        engine.dispose()
    assert [(f.seq, f.rule, f.revision) for f in stored] == [(error_seq, "error-id-null", SETTLED)]


def test_a_discover_probe_without_fallback_keeps_the_offered_revision() -> None:
    s = Http()
    refused = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Bad Request"}, "id": None}
    s.post(call(1, "server/discover"), headers("server/discover"), answer=refused, status=400)
    found = _both(s.rows)
    assert [(f.rule, f.revision) for f in found] == [("error-id-null", "2026-07-28")]
