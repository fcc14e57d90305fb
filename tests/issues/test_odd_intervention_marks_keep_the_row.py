"""A row whose intervention mark carries an odd `n` (a list, a bool) is still recorded and paired.

The builder keyed its pending originals by `n` as given: an unhashable one raised inside the
recording thread, which dropped the row ("internal error while recording")."""

from __future__ import annotations

from inspector.capture import MessageBuilder


def test_unhashable_intervention_number_keeps_the_row() -> None:
    b = MessageBuilder(1)
    req = b.message(
        1,
        "c2s",
        "stdin",
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        meta={"intercept": {"n": [1], "delivered": False}},
    )
    copy = b.message(
        2, "c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', meta={"injected": {"n": [1]}}
    )
    odd = b.message(
        3, "s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":{}}\n', meta={"injected": {"n": True}}
    )
    assert [r["seq"] for r in (req, copy, odd)] == [1, 2, 3]
    assert odd["answers_seq"] == 1  # paired as if unmarked
