"""The recorder's side of the proxy's lighter hot path (#14, httpfast14).

- Raw header pairs handed over by an HTTP exchange (`http_raw_headers`) are
  decoded on the recording thread and then pass the one redaction step: the
  stored row holds [name, value] strings with the secrets replaced, exactly as
  when the transport decoded them itself.
- The redaction's per-name cache of the secret-name pattern is bounded and
  never changes an answer.
- The recording thread's doorbell: ending a session, a durable submit and
  stop wake it at once, however long its poll interval.

Real Recorder, real StoreWriter, real SQLite.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import orjson

from inspector.capture import Recorder
from inspector.capture import redact as redact_module
from inspector.capture.redact import Redaction, header_pairs
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, open_engine
from inspector.transports.http_record import HttpExchange

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
RESPONSE = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
REQUEST_HEADERS = [
    (b"Host", b"127.0.0.1:9"),
    (b"Authorization", b"Bearer sk-live-request-secret"),
    (b"X-Api-Key", b"key-request-secret"),
    (b"Content-Type", b"application/json"),
    (b"X-Odd", b"caf\xe9"),  # latin-1, as HTTP header bytes are decoded
]
RESPONSE_HEADERS = [
    (b"content-type", b"application/json"),
    (b"set-cookie", b"sid=response-secret; Path=/; HttpOnly"),
    (b"mcp-session-id", b"abc"),
]


def _rows(db: Path) -> list[tuple[str, str, bytes]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT channel, http_headers, raw FROM message ORDER BY seq").fetchall()


def test_raw_headers_are_decoded_and_redacted_on_the_recording_thread(db_path: Path) -> None:
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    sid = create_session(engine, kind="http-proxy", target="http://127.0.0.1:9/mcp")
    tap = recorder.open(sid)
    ex = HttpExchange(tap, 1, "POST", "/mcp", "")
    headers = list(REQUEST_HEADERS)
    ex.request(REQUEST, headers)
    ex.status = 200
    ex.raw_response_headers = list(RESPONSE_HEADERS)
    ex.record("s2c", "http-response", RESPONSE, head=True)
    tap.end(None, "done")
    recorder.stop()

    rows = _rows(db_path)
    assert [r[0] for r in rows] == ["http-request", "http-response"]
    request_headers = orjson.loads(rows[0][1])
    response_headers = orjson.loads(rows[1][1])
    # The same pairs the transport used to decode itself, then redacted.
    assert [n for n, _ in request_headers] == [n for n, _ in header_pairs(REQUEST_HEADERS)]
    assert dict(request_headers)["Host"] == "127.0.0.1:9"
    assert dict(request_headers)["X-Odd"] == "café"
    assert dict(request_headers)["Authorization"].startswith("Bearer [secret:")
    assert "[secret:" in dict(request_headers)["X-Api-Key"]
    assert dict(response_headers)["set-cookie"].startswith("sid=[secret:")
    assert dict(response_headers)["mcp-session-id"] == "abc"
    stored = db_path.read_bytes() + b"".join(p.read_bytes() for p in db_path.parent.glob("*-wal"))
    for secret in (b"sk-live-request-secret", b"key-request-secret", b"response-secret"):
        assert secret not in stored
    assert [r[2] for r in rows] == [REQUEST, RESPONSE]
    assert headers == REQUEST_HEADERS  # the caller's list is left as it was


def test_decoded_headers_still_accepted(db_path: Path) -> None:
    """Producers that decode themselves (`http_headers=`, `response_headers`) are unchanged."""
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], redaction=Redaction()).start()
    sid = create_session(engine, kind="http-client", target="http://127.0.0.1:9/mcp")
    tap = recorder.open(sid)
    ex = HttpExchange(tap, 1, "POST", "/mcp", "")
    ex.request(REQUEST, REQUEST_HEADERS)
    ex.status = 200
    ex.response_headers = header_pairs(RESPONSE_HEADERS)
    ex.raw_response_headers = [(b"ignored", b"when decoded ones are given")]
    ex.record("s2c", "http-response", RESPONSE, head=True)
    recorder.stop()
    response_headers = orjson.loads(_rows(db_path)[1][1])
    assert [n for n, _ in response_headers] == ["content-type", "set-cookie", "mcp-session-id"]


def test_secret_name_cache_is_bounded_and_exact(monkeypatch) -> None:
    monkeypatch.setattr(redact_module, "_PATTERN_HITS", {})
    monkeypatch.setattr(redact_module, "_PATTERN_HITS_MAX", 50)
    r = Redaction()
    for i in range(200):  # more names than the cache holds: answers stay right past the bound
        assert r._secret_header(f"x-plain-{i}") is False
        assert r._secret_header(f"x-{i}-access-token") is True
        assert r._secret_header(f"x-plain-{i}") is False  # a cached answer is the same answer
    assert len(redact_module._PATTERN_HITS) == 50
    assert r._secret_header("authorization") is True
    assert Redaction(frozenset({"x-plain-1"}))._secret_header("x-plain-1") is True  # user names win


def test_the_recording_thread_is_woken_at_once(db_path: Path) -> None:
    """With a poll interval of a minute, an end, a durable submit and stop still take effect at once."""
    engine = open_engine(db_path)
    recorder = Recorder([StoreWriter(engine)], drain_interval=60.0, flush_interval=60.0).start()
    sid = create_session(engine, kind="stdio-wrap", target="x")
    tap = recorder.open(sid)
    started = time.monotonic()
    tap.submit_durable("c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    assert len(_rows(db_path)) == 1
    tap.end(0, "exited")
    recorder.stop()
    assert time.monotonic() - started < 10.0
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT status FROM session WHERE id = ?", (sid,)).fetchone()[0] == "ended"
