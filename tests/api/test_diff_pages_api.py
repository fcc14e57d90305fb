"""Issue 21 (second round): `/api/diff` answers with the counts and the exchanges that differ, a page
at a time (`limit`, `cursor` → `next_cursor`); `equal=true` lists the equal ones too, each exchange
with its `index` in the whole report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.scale_lint import generate_session
from tests.api.conftest import Api, in_process

CHANGES = frozenset({30, 31, 77, 400, 401, 402, 650})


@pytest.fixture(scope="module")
def pages_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db: Path = tmp_path_factory.mktemp("pages") / "pages.db"
    generate_session(db, 3000, name="a")  # 1
    generate_session(db, 3000, name="b", changes=CHANGES)  # 2
    yield from in_process(db)


def _all_pages(api: Api, **query: object) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page: Any = api.json("/api/diff", a=1, b=2, **query, **({"cursor": cursor} if cursor else {}))
        out.extend(page["exchanges"])
        cursor = page["next_cursor"]
        if cursor is None:
            return out


def test_the_report_lists_what_differs_and_counts_the_rest(pages_api: Api) -> None:
    doc: Any = pages_api.json("/api/diff", a=1, b=2)
    assert doc["listed"] == "differing" and doc["next_cursor"] is None
    assert doc["counts"]["changed"] == len(CHANGES) and doc["counts"]["equal"] > 1000
    assert [x["status"] for x in doc["exchanges"]] == ["changed"] * len(CHANGES)
    whole: Any = pages_api.json("/api/diff", a=1, b=2, equal="true", limit=5000)
    assert whole["listed"] == "all" and whole["counts"] == doc["counts"]
    assert [x["index"] for x in whole["exchanges"]] == list(range(len(whole["exchanges"])))
    # Each differing exchange keeps its place in the whole report.
    by_index = {x["index"]: x for x in whole["exchanges"]}
    assert all(by_index[x["index"]] == x for x in doc["exchanges"])


def test_pages_follow_the_cursor(pages_api: Api) -> None:
    whole: Any = pages_api.json("/api/diff", a=1, b=2, equal="true", limit=5000)
    first: Any = pages_api.json("/api/diff", a=1, b=2, equal="true", limit=1000)
    assert len(first["exchanges"]) == 1000 and first["next_cursor"] == "1000"
    assert _all_pages(pages_api, equal="true", limit=700) == whole["exchanges"]
    differing = _all_pages(pages_api, limit=2)
    assert differing == [x for x in whole["exchanges"] if x["status"] != "equal"]


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ({"cursor": "x1"}, 400),
        ({"cursor": "-1"}, 400),
        ({"cursor": "١٢"}, 400),  # digits, but not ASCII ones
        ({"cursor": "9" * 30}, 422),
        ({"limit": 0}, 422),
        ({"limit": 5001}, 422),
        ({"equal": "maybe"}, 422),
    ],
)
def test_bad_pages_get_clear_errors(pages_api: Api, query: dict[str, object], status: int) -> None:
    response = pages_api.get("/api/diff", a=1, b=2, **query)
    assert response.status_code == status, response.text
    assert "detail" in response.json()


def test_a_cursor_past_the_end_is_an_empty_page(pages_api: Api) -> None:
    doc: Any = pages_api.json("/api/diff", a=1, b=2, cursor="99999999")
    assert doc["exchanges"] == [] and doc["next_cursor"] is None and doc["counts"]["changed"] == len(CHANGES)
