"""The builder parses a stdio line with its terminator (JSON whitespace) to save a copy per line.

Every column must come out as `classify` gives it for the line's body alone,
including the problem text of what does not parse (those lines are classified
again without the terminator)."""

from __future__ import annotations

import pytest

from inspector.capture import MessageBuilder
from inspector.protocol import classify

BODIES = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}',
    b'{"jsonrpc":"2.0","error":{"code":-32600,"message":"no id"}}',
    b'{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}',  # 2**70: beyond 64 bits
    b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]',
    b"[]",
    b"123",
    b'"text"',
    b'{"id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"',  # cut short
    b'{"jsonrpc":"2.0",}',
    b"not json at all",
    b"\xff\xfe{}",
    b"",
    b"   ",
    b"\x0c",
    b'{"jsonrpc":"2.0","id":1,"result":{}}   ',
    b'{"jsonrpc":"2.0","id":1,"result":"a\\r\\nb"}',
]


@pytest.mark.parametrize("terminator", [b"\n", b"\r\n"])
@pytest.mark.parametrize("body", BODIES)
def test_columns_as_classify_gives_them_for_the_body(body: bytes, terminator: bytes) -> None:
    row = MessageBuilder(1).feed(1, "s2c", "stdout", body + terminator)[0]
    msg = classify(body)
    assert row["raw"] == body + terminator
    assert (row["parse_status"], row["kind"], row["rpc_id"], row["error_code"]) == (
        msg.parse_status.value,
        msg.kind.value,
        msg.rpc_id,
        msg.error_code,
    )
    assert row["method"] == msg.method
    assert (row["meta"] or {}).get("problem") == msg.problem
    assert bool((row["meta"] or {}).get("crlf")) == (terminator == b"\r\n")
