"""`store.waterfall.nest` (issue #39 item 3): a server's sampling, elicitation or roots request is drawn
inside the client request it was sent for: on HTTP the one of its exchange, else the innermost client
request open when it was sent."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.store.waterfall import nest


def _span(
    seq: int, start: int, end: int | None, direction: str, method: str, exchange: int | None = None
) -> Any:
    return {
        "seq": seq,
        "start_ns": start,
        "end_ns": end,
        "direction": direction,
        "method": method,
        "exchange": exchange,
    }


@pytest.mark.parametrize(
    ("exchange", "parent"),
    [(None, 2), (1, 1)],  # by time: the innermost open request; on HTTP: the request of its exchange
)
def test_a_server_request_nests_in_its_exchange_else_the_innermost_open_request(
    exchange: int | None, parent: int
) -> None:
    spans = [
        _span(1, 0, 100, "c2s", "tools/call", 1),
        _span(2, 10, 90, "c2s", "tools/call", 2),
        _span(3, 20, 30, "s2c", "sampling/createMessage", exchange),
        _span(4, 40, 50, "s2c", "ping"),  # not one of the nested kinds
        _span(5, 200, None, "c2s", "tools/call"),  # never answered: open to the end
        _span(6, 300, 301, "s2c", "roots/list"),
    ]
    nest(spans)
    assert [s["parent_seq"] for s in spans] == [None, None, parent, None, None, 5]
