"""A request recorded without params (the SDK's `tools/list`) did not match the same request sent
with `"params": {}` (what `mcp-inspect call` and other clients send): `mock-server` answered -32050
"no recorded request" and replay counted the server's request as unmatched. Absent params and an
empty object ask the same question."""

from __future__ import annotations

from inspector.replay.matching import AnswerBook, MatchPolicy


def test_absent_params_match_empty_params() -> None:
    for mode in ("strict", "lenient"):
        book = AnswerBook(MatchPolicy(mode))
        book.add("tools/list", None, {"result": {"tools": []}})
        assert book.take("tools/list", {}) == (True, {"result": {"tools": []}}), mode
        book = AnswerBook(MatchPolicy(mode))
        book.add("tools/list", {}, {"result": {"tools": []}})
        assert book.take("tools/list", None) == (True, {"result": {"tools": []}}), mode


def test_other_params_still_differ() -> None:
    book = AnswerBook(MatchPolicy("strict"))
    book.add("tools/list", None, {"result": {"tools": []}})
    found, _ = book.take("tools/list", {"cursor": "2"})
    assert not found
