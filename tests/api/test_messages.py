"""Message routes (the API in-process): cursor pages, filters, FTS, pairs, related, raw bytes, positions."""

from __future__ import annotations

from typing import Any

from inspector.store import iter_messages, open_engine
from tests.api.conftest import Api


def _page(api: Api, sid: int = 1, **q: object) -> Any:
    return api.json(f"/api/sessions/{sid}/messages", **q)


def test_cursor_pages_walk_every_message_once(mixed_api: Api) -> None:
    seqs: list[int] = []
    page = _page(mixed_api, limit=500, count=True)
    assert page["total"] == 2000 and page["prev_cursor"] is None
    pages = 1
    while True:
        seqs += [r["seq"] for r in page["items"]]
        if page["next_cursor"] is None:
            break
        page = _page(mixed_api, limit=500, cursor=page["next_cursor"])
        pages += 1
    assert seqs == list(range(1, 2001)) and pages == 5  # the 5th page is empty: 2000 is a multiple of 500
    second = _page(mixed_api, limit=500, after_seq=500)
    back = _page(mixed_api, limit=500, cursor=second["prev_cursor"])
    assert [r["seq"] for r in back["items"]] == list(range(1, 501))


def test_rows_carry_columns_and_a_preview_but_not_raw(mixed_api: Api) -> None:
    (row,) = _page(mixed_api, limit=1, after_seq=1)["items"]
    assert row["seq"] == 2 and row["kind"] == "response" and row["answers_seq"] == 1
    assert row["method"] == "resources/read" and row["rpc_id"] == "1" and row["latency_ns"] == 250_000
    assert row["preview"].startswith('{"jsonrpc":"2.0","id":1,"result"') and "raw" not in row


def test_bad_cursor_and_bad_parameters_are_clear_400s(mixed_api: Api) -> None:
    for cursor in ("nonsense", "YTp4", "Yzo1"):  # not base64 of a cursor / "a:x" / "c:5"
        response = mixed_api.get("/api/sessions/1/messages", cursor=cursor)
        assert response.status_code == 400, cursor
        assert "bad cursor" in response.json()["detail"]
    assert mixed_api.get("/api/sessions/1/messages", limit=0).status_code == 422
    assert mixed_api.get("/api/sessions/1/messages", direction="sideways").status_code == 422
    missing = mixed_api.get("/api/sessions/1/messages/99999")
    assert missing.status_code == 404 and missing.json()["detail"] == "session 1 has no message 99999"


def test_filters_direction_kind_method_channel(mixed_api: Api) -> None:
    c2s = _page(mixed_api, direction="c2s", limit=5000, count=True)
    assert c2s["total"] == len(c2s["items"]) and {r["direction"] for r in c2s["items"]} == {"c2s"}
    logs = _page(mixed_api, channel="stderr", limit=5000, count=True)
    assert logs["total"] > 0 and {r["kind"] for r in logs["items"]} == {"log"}
    assert logs["items"][0]["preview"].startswith("server log line")
    calls = _page(mixed_api, method="tools/call", limit=5000)["items"]
    assert {r["kind"] for r in calls} == {"request", "response"}  # a response carries its request's method
    prefix = _page(mixed_api, method="tools/*", limit=5000, count=True)
    assert {r["method"] for r in prefix["items"]} == {"tools/call", "tools/list"}
    both = _page(mixed_api, method=["tools/list", "prompts/get"], kind="response", count=True)
    assert both["total"] > 0 and {r["kind"] for r in both["items"]} == {"response"}
    assert {r["method"] for r in both["items"]} == {"tools/list", "prompts/get"}
    # Offset paging under a filter gives the same rows as one big page.
    big = _page(mixed_api, method="tools/call", limit=100)["items"]
    second = _page(mixed_api, method="tools/call", limit=50, offset=50)["items"]
    assert second == big[50:]


def test_text_search_uses_the_full_text_index(demo_api: Api) -> None:
    found = _page(demo_api, q="Lisbon", count=True)
    kinds = {(r["kind"], r["method"]) for r in found["items"]}
    assert ("request", "tools/call") in kinds and ("response", "tools/call") in kinds
    assert found["total"] == len(found["items"])
    assert _page(demo_api, q="Lisbon", direction="s2c", count=True)["total"] == found["total"] - 1
    assert _page(demo_api, q="no-such-word-anywhere", count=True)["total"] == 0
    # Words are literal, not FTS5 syntax.
    assert demo_api.get("/api/sessions/1/messages", q='"unbalanced OR (').status_code == 200


def test_one_message_with_its_pair_both_ways(demo_api: Api) -> None:
    response = next(r for r in _page(demo_api, kind="response", method="tools/list")["items"])
    doc: Any = demo_api.json(f"/api/sessions/1/messages/{response['seq']}")
    assert doc["message"]["seq"] == response["seq"]
    assert doc["message"]["raw"].startswith('{"jsonrpc":"2.0"') and doc["message"]["raw_base64"] is None
    assert doc["pair"]["seq"] == response["answers_seq"] and doc["pair"]["kind"] == "request"
    back: Any = demo_api.json(f"/api/sessions/1/messages/{doc['pair']['seq']}")
    assert back["pair"]["seq"] == response["seq"]
    notification = _page(demo_api, kind="notification", limit=1)["items"][0]
    assert demo_api.json(f"/api/sessions/1/messages/{notification['seq']}")["pair"] is None  # type: ignore[index]


def test_progress_notifications_are_related_to_their_request(demo_api: Api) -> None:
    call = next(r for r in _page(demo_api, q="count_slowly", kind="request")["items"])
    doc: Any = demo_api.json(f"/api/sessions/1/messages/{call['seq']}")
    progress = [r for r in doc["related"] if r["method"] == "notifications/progress"]
    assert len(progress) == 3 and all(call["seq"] < r["seq"] < doc["pair"]["seq"] for r in progress)
    one: Any = demo_api.json(f"/api/sessions/1/messages/{progress[0]['seq']}")
    assert [r["seq"] for r in one["related"]] == [call["seq"]]


def test_raw_download_is_the_exact_bytes(demo_api: Api, demo_db: object) -> None:
    stored = list(iter_messages(open_engine(demo_api.db), 1, limit=5))
    for m in stored:
        response = demo_api.get(f"/api/sessions/1/messages/{m.seq}/raw")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.content == m.raw and response.content.endswith(b"\n")


def test_position_of_a_message_under_a_filter(mixed_api: Api) -> None:
    responses = _page(mixed_api, kind="response", limit=40)["items"]
    target = responses[30]["seq"]
    pos: Any = mixed_api.json(f"/api/sessions/1/messages/{target}/position", kind="response")
    assert pos == {"seq": target, "index": 30, "matches": True}
    request_seq = responses[30]["answers_seq"]
    off: Any = mixed_api.json(f"/api/sessions/1/messages/{request_seq}/position", kind="response")
    assert off["matches"] is False and off["index"] == 30  # 30 responses come before it


def test_methods_seen_with_counts(mixed_api: Api) -> None:
    counts: Any = mixed_api.json("/api/sessions/1/methods")
    assert set(counts) == {"tools/call", "resources/read", "prompts/get", "tools/list"}
    assert sum(counts.values()) == 2000 - _page(mixed_api, channel="stderr", count=True)["total"]
