"""The network view's HTTP exchanges, from hand-made rows with the HTTP proxy's columns."""

from __future__ import annotations

from typing import Any

from inspector.api.network import group_exchanges, header_dict
from tests.api.conftest import Api


def test_exchanges_group_rows_and_show_the_stored_placeholders(mixed_api: Api) -> None:
    exchanges: Any = mixed_api.json("/api/sessions/2/exchanges")
    assert [(x["method"], x["path"], x["status"], x["sse"]) for x in exchanges] == [
        ("POST", "/mcp", 200, False),
        ("POST", "/mcp", 200, True),
        ("GET", "/mcp/stream", 200, True),
    ]
    first, stream, get = exchanges
    assert [m["kind"] for m in first["messages"]] == ["request", "response"]
    assert first["request_headers"]["authorization"] == "Bearer [secret:authorization]"
    assert first["request_headers"]["mcp-session-id"] == "abc"
    assert first["response_headers"]["set-cookie"] == "sid=[secret:set-cookie.sid]"
    assert first["duration_ns"] == 5_000_000
    assert stream["sse_event_ids"] == ["ev-1", "ev-2"]
    assert [m["method"] for m in stream["messages"]] == ["tools/call", "notifications/progress", "tools/call"]
    assert get["request_headers"]["cookie"] == "[secret:cookie]" and get["sse_event_ids"] == ["ev-9"]
    assert mixed_api.json("/api/sessions/1/exchanges") == []  # a stdio session has none


def test_rows_without_exchange_numbers_pair_by_answer_then_path() -> None:
    def row(seq: int, channel: str, **extra: Any) -> dict[str, Any]:
        return {"seq": seq, "ts_ns": seq * 10, "channel": channel, "meta": None, "answers_seq": None, **extra}

    rows = [
        row(1, "http-request", http_method="POST", http_path="/a"),
        row(2, "http-request", http_method="POST", http_path="/b"),
        row(3, "http-response", http_status=202, http_path="/b"),  # no answer link: the waiting /b
        row(4, "sse", answers_seq=1, http_status=200, sse_event_id="1"),  # answers request 1
        row(5, "stdout"),  # not HTTP
    ]
    out = group_exchanges(rows)
    assert [[m["seq"] for m in x["messages"]] for x in out] == [[1, 4], [2, 3]]
    assert out[0]["sse"] and out[1]["status"] == 202


def test_header_dict_accepts_pairs_and_joins_repeated_names() -> None:
    headers = [["Authorization", "Bearer [secret:authorization]"], ["Accept", "a"], ["Accept", "b"]]
    assert header_dict(headers) == {"Authorization": "Bearer [secret:authorization]", "Accept": "a, b"}
    assert header_dict(None) == {}
