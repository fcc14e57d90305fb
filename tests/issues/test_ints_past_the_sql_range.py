"""Regression: an integer past 2^63-1 (the range of the database's 64-bit columns) in a path, a
query, a cursor or a JSON body gave a 500 (OverflowError while binding it to SQL) on 13 routes,
and some dropped the connection. Every int that reaches SQL is now the API's one `SqlInt` type
(`inspector/api/params.py`): a 422 naming the parameter and its maximum, before the route runs.
Session references that may be names (`/api/sessions/{ref}`, `/api/diff?a=&b=`) and the cursor
keep their own answers: 404 (no such session) and 400 (not a cursor the API gave).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.api.deps import encode_cursor
from inspector.errors import NotFoundError
from inspector.store import get_session, open_engine
from tests.api.conftest import Api, serve
from tests.api.recordings import generate_session

SQL_INT_MAX = 2**63 - 1  # signed 64-bit columns (SQLite INTEGER, PostgreSQL bigint)
BIGS = [2**63, 2**64]
URL_TARGET = {"url": "http://127.0.0.1:9/mcp"}  # never reached: each request is refused before


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = tmp_path_factory.mktemp("bigints") / "small.db"
    generate_session(db, 20, name="small")
    yield from serve(db)


def _cases(big: int) -> list[tuple[str, str, dict[str, Any], Any, int]]:
    """(method, path, query, JSON body, expected status) for every place an int reaches SQL."""
    s = "/api/sessions"
    return [
        ("GET", s, {"offset": big}, None, 422),
        ("GET", f"{s}/{big}", {}, None, 404),
        ("PATCH", f"{s}/{big}", {}, {"name": "x"}, 422),
        ("DELETE", f"{s}/{big}", {}, None, 422),
        ("GET", f"{s}/{big}/methods", {}, None, 422),
        ("GET", f"{s}/{big}/messages", {}, None, 422),
        ("GET", f"{s}/1/messages", {"after_seq": big}, None, 422),
        ("GET", f"{s}/1/messages", {"before_seq": big}, None, 422),
        ("GET", f"{s}/1/messages", {"offset": big}, None, 422),
        ("GET", f"{s}/1/messages", {"cursor": encode_cursor("a", big)}, None, 400),
        ("GET", f"{s}/1/messages", {"cursor": encode_cursor("b", big)}, None, 400),
        ("GET", f"{s}/{big}/messages/1", {}, None, 422),
        ("GET", f"{s}/1/messages/{big}", {}, None, 422),
        ("GET", f"{s}/{big}/messages/1/raw", {}, None, 422),
        ("GET", f"{s}/1/messages/{big}/raw", {}, None, 422),
        ("GET", f"{s}/{big}/messages/1/position", {}, None, 422),
        ("GET", f"{s}/1/messages/{big}/position", {}, None, 422),
        ("GET", f"{s}/{big}/messages/1/resend", {}, None, 422),
        ("GET", f"{s}/1/messages/{big}/resend", {}, None, 422),
        ("GET", f"{s}/{big}/exchanges", {}, None, 422),
        ("GET", f"{s}/{big}/findings", {}, None, 422),
        ("GET", f"{s}/1/findings", {"seq": big}, None, 422),
        ("GET", f"{s}/{big}/mock-server", {}, None, 422),
        ("POST", f"{s}/{big}/replay", {}, {"target": URL_TARGET}, 422),
        ("GET", "/api/diff", {"a": big, "b": 1}, None, 404),
        ("GET", "/api/diff", {"a": 1, "b": big}, None, 404),
        ("GET", "/api/diff/side", {"session": big, "seq": 1}, None, 422),
        ("GET", "/api/diff/side", {"session": 1, "seq": big}, None, 422),
        # JSON bodies: a recorded responder's session, the session a versions run replays.
        (
            "POST",
            "/api/clients",
            {},
            {"target": URL_TARGET, "responders": {"roots/list": {"mode": "recorded", "session_id": big}}},
            422,
        ),
        ("POST", "/api/versions", {}, {"target": URL_TARGET, "replay_session_id": big}, 422),
    ]


CASES = [
    pytest.param(
        big,
        *case,
        id=f"{case[0]} {case[1].replace(str(big), 'BIG')} {sorted(case[2])} 2^{big.bit_length() - 1}",
    )
    for big in BIGS
    for case in _cases(big)
]


@pytest.mark.parametrize(("big", "method", "path", "query", "body", "expected"), CASES)
def test_an_int_past_the_sql_range_is_a_clear_4xx(
    api: Api, big: int, method: str, path: str, query: dict[str, Any], body: Any, expected: int
) -> None:
    try:
        response = api.http.request(method, path, params=query, json=body)
    except httpx.TransportError as exc:  # main dropped some of these connections outright
        pytest.fail(f"{method} {path} {query}: the server dropped the connection ({exc!r})")
    assert response.status_code == expected, response.text
    detail = response.json()["detail"]
    if expected == 422:
        # FastAPI's validation answer names where the bad value is and the limit it broke.
        assert any(str(SQL_INT_MAX) in item["msg"] for item in detail), detail
    else:
        assert isinstance(detail, str) and detail


def test_the_largest_id_the_database_holds_is_a_plain_404(api: Api) -> None:
    for path in (f"/api/sessions/{SQL_INT_MAX}", f"/api/sessions/{SQL_INT_MAX}/messages"):
        response = api.get(path)
        assert response.status_code == 404 and "no session" in response.json()["detail"]
    assert api.get("/api/sessions/1/messages", after_seq=SQL_INT_MAX).json()["items"] == []


def test_the_store_reads_a_huge_session_number_as_unknown(tmp_path: Path) -> None:
    """The CLI (`show`, `diff`, `serve` scenarios' `recording:`) resolves references through here."""
    engine = open_engine(tmp_path / "empty.db")
    for ref in (str(2**63), str(2**64), 2**63):
        with pytest.raises(NotFoundError, match="no session with id"):
            get_session(engine, ref)
