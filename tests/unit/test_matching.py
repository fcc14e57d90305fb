"""Request matching for replay and the mock server: JSON-aware, never by id."""

from __future__ import annotations

import pytest

from inspector.replay.matching import AnswerBook, MatchPolicy

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "a", "version": "1"},
}


def test_key_order_and_progress_token_do_not_matter() -> None:
    book = AnswerBook()
    book.add(
        "tools/call", {"name": "echo", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": 1}}, "A"
    )
    assert book.take(
        "tools/call", {"arguments": {"b": 2, "a": 1}, "name": "echo", "_meta": {"progressToken": 9}}
    ) == (True, "A")


def test_strict_ignores_the_2026_envelope_but_not_other_meta() -> None:
    book = AnswerBook()
    book.add("tools/list", {"_meta": {**ENVELOPE, "custom": 1}}, "A")
    other_client = {**ENVELOPE, "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "2"}}
    assert book.take("tools/list", {"_meta": {**other_client, "custom": 1}}) == (True, "A")
    assert book.take("tools/list", {"_meta": {**other_client, "custom": 2}}) == (False, None)


def test_repeated_requests_get_recorded_answers_in_order_then_the_last_again() -> None:
    book = AnswerBook()
    for answer in ("first", "second"):
        book.add("tools/call", {"name": "counter"}, answer)
    assert [book.take("tools/call", {"name": "counter"})[1] for _ in range(4)] == [
        "first",
        "second",
        "second",
        "second",
    ]


def test_lenient_ignores_meta_and_extra_keys() -> None:
    book = AnswerBook(MatchPolicy("lenient"))
    book.add("prompts/get", {"name": "p", "arguments": {"x": "1"}}, "A")
    assert book.take(
        "prompts/get", {"name": "p", "arguments": {"x": "1"}, "extra": True, "_meta": {"k": 1}}
    ) == (True, "A")
    assert book.take("prompts/get", {"name": "p", "arguments": {"x": "2"}}) == (False, None)


def test_ignored_paths_and_wildcards() -> None:
    book = AnswerBook(MatchPolicy("strict", ignore=("arguments.when", "*.nonce")))
    book.add("tools/call", {"name": "t", "arguments": {"when": "now", "nonce": 1, "x": 1}}, "A")
    assert book.take("tools/call", {"name": "t", "arguments": {"when": "later", "nonce": 2, "x": 1}}) == (
        True,
        "A",
    )
    assert book.take("tools/call", {"name": "t", "arguments": {"when": "later", "nonce": 2, "x": 2}}) == (
        False,
        None,
    )


def test_miss_names_the_nearest_request_and_the_differing_paths() -> None:
    book = AnswerBook()
    book.add("tools/call", {"name": "echo", "arguments": {"text": "a"}}, "A")
    book.add("tools/call", {"name": "weather", "arguments": {"city": "Oslo"}}, "B")
    miss = book.miss("tools/call", {"name": "echo", "arguments": {"text": "b"}})
    assert miss.nearest_params == {"name": "echo", "arguments": {"text": "a"}}
    assert miss.differences == ["params.arguments.text"]
    assert "params.arguments.text" in miss.message()
    assert book.miss("nothing/like/it", {}).nearest_params is None


def test_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="strict or lenient"):
        MatchPolicy("fuzzy")
