"""`mcp-inspect proxy` at the HTTP level: faults, big bodies, invalid JSON, Origin, resumption, DELETE.

One scripted upstream (tests/peers/scripted_http_server.py, stateless but for its count of closed
streams) serves the whole file; each test starts its own proxy, recording into its own store."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.store import Message, list_sessions, open_engine
from tests.http_peers import demo_http_server, free_port, proxy_in_process, scripted_http_server
from tests.shim_process import messages

JSON_SSE = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _all_rows(db: Path) -> list[Message]:
    engine = open_engine(db)
    return [m for s in list_sessions(engine) for m in messages(engine, s.id)]


def _wait_rows(db: Path, predicate, timeout: float = 20.0) -> list[Message]:  # type: ignore[no-untyped-def]
    """The proxy records off the forwarding path: wait (bounded) until the rows are committed."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        rows = _all_rows(db) if db.exists() else []
        if predicate(rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"rows never matched; have {[(m.channel, m.kind, m.meta) for m in rows]}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """The scripted upstream's base URL."""
    with scripted_http_server() as url:
        yield url


def test_upstream_not_listening_gives_502_and_is_recorded(db_path: Path) -> None:
    target = f"http://127.0.0.1:{free_port()}/mcp"
    with proxy_in_process(target, db_path) as (url, _proxy):
        reply = httpx.post(url, content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}', headers=JSON_SSE)
        assert reply.status_code == 502
        assert "upstream" in reply.text and "ConnectError" in reply.text
        # The proxy keeps working: a second try gets the same clear answer.
        assert httpx.post(url, content=b"{}", headers=JSON_SSE).status_code == 502
    rows = _all_rows(db_path)
    failures = [m for m in rows if m.http_status == 502]
    assert len(failures) == 2 and "ConnectError" in failures[0].meta["problem"]
    assert [m.method for m in rows if m.kind == "request"] == ["ping"]


def test_invalid_json_is_forwarded_unchanged_and_recorded_invalid(db_path: Path, base: str) -> None:
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        body = b'{"jsonrpc": "2.0", "id": 1, "method": '
        reply = httpx.post(url, content=body, headers=JSON_SSE)
        assert reply.status_code == 400 and reply.json()["error"]["code"] == -32700
        good = httpx.post(url, content=b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}', headers=JSON_SSE)
        assert good.json()["result"] == {"echo": "tools/list"}
    rows = _all_rows(db_path)
    bad = next(m for m in rows if m.channel == "http-request" and m.kind == "invalid")
    assert bad.raw == body and bad.parse_status == "invalid-json"
    error = next(m for m in rows if m.http_status == 400)
    assert error.kind == "error" and error.error_code == -32700
    paired = next(m for m in rows if m.kind == "response")
    assert paired.method == "tools/list" and paired.answers_seq is not None


def test_ten_megabyte_response_streams_through_unchanged(db_path: Path, base: str) -> None:
    size = 10 * 1024 * 1024
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        request = b'{"jsonrpc":"2.0","id":9,"method":"tools/call"}'
        direct = httpx.post(f"{base}/big?bytes={size}", content=request, headers=JSON_SSE, timeout=60)
        proxied = httpx.post(
            url.replace("/mcp", "/big") + f"?bytes={size}", content=request, headers=JSON_SSE, timeout=60
        )
        assert proxied.status_code == 200 and proxied.content == direct.content
    rows = _wait_rows(db_path, lambda rows: any(m.size > size for m in rows))
    big = next(m for m in rows if m.size > size)
    assert big.raw == direct.content and big.kind == "response" and big.answers_seq is not None


def test_other_paths_are_forwarded_and_recorded_as_http(db_path: Path, base: str) -> None:
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        well_known = url.replace("/mcp", "/.well-known/oauth-authorization-server")
        reply = httpx.get(well_known, headers={"authorization": "Bearer s3cret-token", "cookie": "a=b"})
        assert reply.json()["issuer"] == "http://127.0.0.1"
        assert httpx.get(url.replace("/mcp", "/nope")).status_code == 404
    rows = _wait_rows(db_path, lambda rows: sum(m.channel == "http-response" for m in rows) >= 2)
    request = next(m for m in rows if m.http_path == "/.well-known/oauth-authorization-server")
    headers = dict((k.lower(), v) for k, v in request.http_headers)
    assert (
        headers["authorization"] == "Bearer [secret:authorization]" and headers["cookie"] == "[secret:cookie]"
    )
    assert b"s3cret" not in b"".join(m.raw + json.dumps(m.http_headers).encode() for m in rows)
    assert any(m.http_status == 404 for m in rows)


def test_absolute_legacy_endpoint_is_rewritten_to_the_proxy(db_path: Path, base: str) -> None:
    lines = []
    with (
        proxy_in_process(f"{base}/abs-sse", db_path) as (url, _proxy),
        httpx.stream("GET", url) as r,
    ):
        for line in r.iter_lines():
            lines.append(line)
            if line.startswith("data:") and "session_id" in line:
                break
    assert "data: /messages?session_id=abc123" in lines, lines
    rows = _wait_rows(db_path, lambda rows: any((m.meta or {}).get("event") == "endpoint" for m in rows))
    endpoint = next(m for m in rows if (m.meta or {}).get("event") == "endpoint")
    assert endpoint.meta["rewritten_to"] == "/messages?session_id=abc123"
    assert endpoint.body == f"{base}/messages?session_id=abc123".encode(), (
        "the row keeps what the server sent"
    )
    assert endpoint.raw.startswith(b"event: endpoint") and endpoint.raw.endswith(b"\n\n")


def test_foreign_origin_is_refused_own_and_allowed_origins_pass(db_path: Path, base: str) -> None:
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        evil = httpx.post(url, content=ping, headers={**JSON_SSE, "origin": "http://evil.example"})
        assert evil.status_code == 403 and "not allowed" in evil.text
        # Another port is another origin, loopback or not.
        other = httpx.post(url, content=ping, headers={**JSON_SSE, "origin": "http://localhost:5173"})
        assert other.status_code == 403 and "--allow-origin" in other.json()["detail"]
        own = "http://" + url.split("/")[2]
        assert httpx.post(url, content=ping, headers={**JSON_SSE, "origin": own}).status_code == 200
    allowed = ("--allow-origin", "http://localhost:5173")
    with proxy_in_process(f"{base}/mcp", db_path, *allowed) as (url, _proxy):
        local = httpx.post(url, content=ping, headers={**JSON_SSE, "origin": "http://localhost:5173"})
        assert local.status_code == 200


def test_upstream_breaking_mid_stream_is_seen_by_client_and_recorded(db_path: Path, base: str) -> None:
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        events = []
        with (
            pytest.raises(httpx.RemoteProtocolError),
            httpx.stream("GET", url.replace("/mcp", "/stream-then-break")) as r,
        ):
            for line in r.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))
        assert [e["params"]["data"] for e in events] == [1, 2]
    rows = _wait_rows(db_path, lambda rows: any("broke" in str(m.meta) for m in rows))
    sse = [m for m in rows if m.channel == "sse" and m.kind == "notification"]
    assert [m.sse_event_id for m in sse] == ["1", "2"]


def test_client_leaving_mid_stream_closes_the_upstream_stream(db_path: Path, base: str) -> None:
    closed_before = httpx.get(f"{base}/stats").json()["disconnects"]  # by this file's earlier tests
    with proxy_in_process(f"{base}/mcp", db_path) as (url, _proxy):
        with httpx.stream("GET", url.replace("/mcp", "/slow-stream")) as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    break
        import time

        deadline = time.monotonic() + 20
        while httpx.get(f"{base}/stats").json()["disconnects"] < closed_before + 1:
            assert time.monotonic() < deadline, "the upstream stream was never closed"
            time.sleep(0.05)
    _wait_rows(db_path, lambda rows: any("client disconnected" in str(m.meta) for m in rows))


def _sse_messages(response: httpx.Response, until_id: int | None = None) -> list[tuple[str | None, dict]]:
    out: list[tuple[str | None, dict]] = []
    event_id = None
    for line in response.iter_lines():
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:") and line[5:].strip():
            msg = json.loads(line[5:])
            out.append((event_id, msg))
            if until_id is None or msg.get("id") == until_id:
                return out
    return out


def test_dropped_stream_resumes_with_last_event_id_and_delete_ends_session(db_path: Path) -> None:
    with (
        demo_http_server("streamable-http", "--resumable", warm=True) as target,
        proxy_in_process(target, db_path) as (url, _),
        httpx.Client(timeout=30) as http,
    ):
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        with http.stream("POST", url, json=init, headers=JSON_SSE) as r:
            session_id = r.headers["mcp-session-id"]
            _sse_messages(r, until_id=1)
        headers = {**JSON_SSE, "mcp-session-id": session_id, "mcp-protocol-version": "2025-06-18"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "count_slowly",
                "arguments": {"n": 4, "delay_s": 0.1},
                "_meta": {"progressToken": "tok"},
            },
        }
        with http.stream("POST", url, json=call, headers=headers) as r:
            first_id, first = _sse_messages(r)[0]
        assert first["method"] in ("notifications/progress", "notifications/message") and first_id
        # The stream was dropped after one event; resume it where it stopped.
        resume = {**headers, "last-event-id": first_id, "accept": "text/event-stream"}
        # The server learns of the dropped stream one hop later through the proxy: under load the
        # first resume can come back before the server let go of it (no events). A real client
        # reconnects after the stream's `retry` delay; do the same, a bounded number of times.
        for _attempt in range(5):
            with http.stream("GET", url, headers=resume) as r:
                status = r.status_code
                rest = _sse_messages(r, until_id=2)
            if rest:
                break
            time.sleep(0.2)
        assert rest, f"the resumed stream never delivered an event (last status {status})"
        assert rest[-1][1]["id"] == 2 and "result" in rest[-1][1]
        assert all(int(event_id) > int(first_id) for event_id, _ in rest if event_id)
        assert http.delete(url, headers=headers).status_code < 300
    engine = open_engine(db_path)
    session = next(s for s in list_sessions(engine) if s.message_count > 3)
    rows = messages(engine, session.id)
    gets = [m for m in rows if m.http_method == "GET" and m.channel == "http-request" and m.http_headers]
    assert gets and all(
        ["last-event-id", first_id] in [[k.lower(), v] for k, v in g.http_headers] for g in gets
    )
    result = next(m for m in rows if m.kind == "response" and m.rpc_id == "2")
    assert result.method == "tools/call" and result.answers_seq is not None
    assert result.meta["exchange"] == gets[-1].meta["exchange"], "delivered on the (last) GET"
    progress = [m for m in rows if m.method == "notifications/progress"]
    assert len(progress) >= 2 and all(m.meta.get("related_seq") for m in progress)
    assert session.status == "ended" and session.end_reason.startswith("DELETE answered")
