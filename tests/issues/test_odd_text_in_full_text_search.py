"""Regression: a NUL in the full-text filter `q` of the message routes gave a 500: the FTS5 query
was a quoted string, and SQLite ends a string at NUL ("unterminated string"). The route's other
spellings of FTS5 syntax were quoted already; the words are now split at characters no SQLite
string can hold (the tokenizer separates words there anyway), so any text is a valid search.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from inspector.store import open_engine, search_messages
from tests.api.conftest import Api, new_store, serve
from tests.api.recordings import generate_session

ODD = ["\x00", "a\x00b", "tools\x00", '"', '"\x00"', "NEAR(a b)", "*", "a OR", "-x", "^a", "col:a", "(", "\\"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    # PostgreSQL too (issue 19): its text cannot hold NUL either, and its tsquery has a syntax.
    db = new_store(request, str(request.param), tmp_path_factory.mktemp("fts") / "fts.db")
    generate_session(db, 50, name="fts")
    yield from serve(db)


@pytest.mark.parametrize("q", ODD, ids=repr)
@pytest.mark.parametrize("route", ["/api/sessions/1/messages", "/api/sessions/1/messages/3/position"])
def test_any_search_text_is_answered(api: Api, route: str, q: str) -> None:
    response = api.http.get(route, params={"q": q, "count": "true"})
    assert response.status_code == 200, response.text


def test_a_nul_separates_words_like_a_space(api: Api) -> None:
    spaced = api.json("/api/sessions/1/messages", q="jsonrpc method", count="true")
    nul = api.json("/api/sessions/1/messages", q="jsonrpc\x00method", count="true")
    assert spaced["total"] and nul["total"] == spaced["total"]  # type: ignore[index]


def test_the_store_search_takes_any_text(api: Api) -> None:
    engine = open_engine(api.db)
    words = search_messages(engine, "jsonrpc method", limit=5)
    assert words and search_messages(engine, "jsonrpc\x00method\ud800", limit=5) == words
