"""`protocol.stdout_lines`: each class of stdout line a client cannot read, from the bytes a server
wrote (framed and classified as the recorder does), and a crash tied to the request in flight.
Clean JSON-RPC output is not flagged."""

from __future__ import annotations

import pytest

from inspector.protocol import LineFramer, classify
from inspector.protocol.stdout_lines import Crash, Note, StdioWatch

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'
ANSWER = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'


def _run(server_stdout: bytes, *, stderr: bytes = b"", requests: bytes = INIT) -> list[Note | Crash]:
    """The notes of a session: `requests` on stdin, then `server_stdout`, then `stderr`; closed."""
    watch = StdioWatch()
    seq = 0
    out: list[Note | Crash] = []
    pending: dict[object, int] = {}

    def rows(direction: str, channel: str, data: bytes) -> None:
        nonlocal seq
        framer = LineFramer()
        lines = [(raw, False) for raw in framer.split(data)] + [(x.raw, True) for x in framer.close()]
        for raw, no_newline in lines:
            seq += 1
            c = classify(raw)
            kind = "log" if channel == "stderr" else str(c.kind)
            answers = (
                pending.pop(c.rpc_id, None)
                if direction == "s2c" and c.kind in ("response", "error")
                else None
            )
            if direction == "c2s" and c.kind == "request":
                pending[c.rpc_id] = seq
            out.extend(watch.feed(seq, direction, channel, raw, kind, answers, no_newline))

    rows("c2s", "stdin", requests)
    rows("s2c", "stdout", server_stdout)
    if stderr:
        rows("s2c", "stderr", stderr)
    out.extend(watch.close())
    return out


def _classes(notes: list[Note | Crash]) -> list[tuple[int, str]]:
    return [(n.seq, n.cls.id) for n in notes if isinstance(n, Note)]


def test_clean_json_rpc_is_not_flagged() -> None:
    stdout = (
        ANSWER + b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'
    )
    assert _run(stdout) == []


@pytest.mark.parametrize(
    "line",
    [
        b"2025-06-01 12:00:01,123 INFO server: listening\n",  # Python logging with a timestamp
        b"INFO:root:Processing request of type CallToolRequest\n",  # logging.basicConfig's default
        b"[2025-06-01T12:00:01Z] WARN cache miss\n",
        b'{"level":"info","time":"2025-06-01T12:00:01Z","msg":"tool called"}\n',  # pino / zap JSON logs
    ],
)
def test_a_log_line_after_the_handshake(line: bytes) -> None:
    notes = _run(ANSWER + line)
    assert _classes(notes) == [(3, "log-line")]
    assert "write logs to stderr" in notes[0].explain()
    assert "Python SDK" in notes[0].explain() and "TypeScript SDK" in notes[0].explain()


def test_plain_text_after_the_first_message_is_a_log_line() -> None:
    assert _classes(_run(ANSWER + b"done with that\n")) == [(3, "log-line")]


def test_lines_before_any_json_are_a_banner() -> None:
    stdout = b"=== Weather MCP server v1.2 ===\n\nReady.\n" + ANSWER
    assert _classes(_run(stdout)) == [(2, "banner"), (3, "banner"), (4, "banner")]


def test_a_pretty_printed_message_is_one_block() -> None:
    pretty = b'{\n  "jsonrpc": "2.0",\n  "id": 0,\n  "result": {\n    "capabilities": {}\n  }\n}\n'
    notes = _run(pretty + ANSWER)
    assert _classes(notes) == [(s, "pretty-json") for s in range(2, 9)]
    assert "print JSON on one line" in notes[0].explain()


def test_broken_json_is_no_other_kind_of_line() -> None:
    """A message whose JSON is broken is just that (lint's `malformed-json`), not pretty JSON."""
    assert _run(ANSWER + b'{"jsonrpc": "2.0", "id": 1, "result": {\n' + ANSWER) == []


def test_content_length_framing() -> None:
    body = ANSWER.rstrip(b"\n")
    stdout = b"Content-Length: %d\r\n\r\n%sContent-Length: 2\r\n\r\n{}" % (len(body), body)
    notes = _run(stdout)
    assert {c for _, c in _classes(notes)} == {"content-length"}
    assert [s for s, _ in _classes(notes)] == [2, 3, 4, 5, 6]
    assert "do not use Content-Length framing on stdio" in notes[0].explain()


def test_a_byte_order_mark() -> None:
    notes = _run(b"\xef\xbb\xbf" + ANSWER)
    assert _classes(notes) == [(2, "bom")]
    assert "strip the BOM" in notes[0].explain()


def test_crlf_is_told_once() -> None:
    crlf = ANSWER.replace(b"\n", b"\r\n")
    notes = _run(crlf + crlf)
    assert _classes(notes) == [(2, "crlf")]
    assert "both SDKs accept it" in notes[0].explain()


def test_a_partial_last_line_at_exit() -> None:
    notes = _run(ANSWER.rstrip(b"\n"))
    assert _classes(notes) == [(2, "partial-line")]
    assert "flush stdout before exiting" in notes[0].explain()
    cut = _run(ANSWER + b'{"jsonrpc":"2.0","id":1,"res')
    assert _classes(cut) == [(3, "partial-line")]


CALL = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"explode","arguments":{}}}\n'
PY_TRACEBACK = b"""Traceback (most recent call last):
  File "/srv/server.py", line 40, in <module>
    handle(line)
  File "/srv/server.py", line 22, in handle
    raise ValueError("boom")
    ^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: boom
"""


def test_a_python_traceback_is_tied_to_the_request_in_flight() -> None:
    notes = _run(ANSWER, stderr=PY_TRACEBACK, requests=INIT + CALL)
    crashes = [n for n in notes if isinstance(n, Crash)]
    assert len(crashes) == 1
    assert crashes[0].seq == 2  # the tools/call row
    assert (
        crashes[0]
        .explain()
        .startswith("the server crashed while handling request id 7 (tools/call explode): ValueError: boom")
    )


def test_a_node_stack_and_a_go_panic() -> None:
    node = b"/srv/index.js:12\nTypeError: Cannot read properties of undefined (reading 'x')\n    at run (/srv/index.js:12:5)\n    at main (/srv/index.js:20:3)\n"
    crash = next(n for n in _run(ANSWER, stderr=node, requests=INIT + CALL) if isinstance(n, Crash))
    assert crash.last_line == "TypeError: Cannot read properties of undefined (reading 'x')"
    go = b"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n"
    crash = next(n for n in _run(ANSWER, stderr=go, requests=INIT + CALL) if isinstance(n, Crash))
    assert crash.last_line == "panic: runtime error: index out of range [3] with length 3"
    assert crash.request_seq == 2


def test_a_handled_traceback_is_no_crash() -> None:
    """A server that logs a traceback and then answers went on: nothing to tie."""
    watch = StdioWatch()
    assert not watch.feed(1, "c2s", "stdin", CALL, "request")
    for i, line in enumerate(PY_TRACEBACK.splitlines(keepends=True), start=2):
        watch.feed(i, "s2c", "stderr", line, "log")
    error = b'{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom"}}\n'
    watch.feed(20, "s2c", "stdout", error, "error", 1)
    assert watch.close() == []
