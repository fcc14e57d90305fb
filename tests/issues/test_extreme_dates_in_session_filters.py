"""Regression: `started_after` / `started_before` of `GET /api/sessions` at the ends of what ISO 8601
dates allow (`0001-01-01`, `9999-12-31`, with or without a time zone) gave a 500: year 1 cannot
be converted to a timestamp in local time (ValueError), and year 9999 in nanoseconds does not fit
the 64-bit `started_ns` column (OverflowError). A date outside the column's range (1677 to 2262)
now means the range's end, which is what such a filter asks: every session starts after year 1.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.conftest import Api, serve
from tests.api.recordings import generate_session

EARLY = ["0001-01-01", "0001-01-01T00:00:00", "0001-01-01T00:00:00+05:00", "1000-06-15T12:00:00Z"]
LATE = ["9999-12-31", "9999-12-31T23:59:59", "9999-12-31T23:59:59-05:00", "3000-01-01T00:00:00Z"]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    db = tmp_path_factory.mktemp("dates") / "dates.db"
    generate_session(db, 5, name="one")
    generate_session(db, 5, name="two")
    yield from serve(db)


def _total(api: Api, **params: str) -> int:
    response = api.get("/api/sessions", **params)
    assert response.status_code == 200, response.text
    return int(response.json()["total"])


@pytest.mark.parametrize("when", EARLY)
def test_a_date_before_the_range_is_its_start(api: Api, when: str) -> None:
    assert _total(api, started_after=when) == 2
    assert _total(api, started_before=when) == 0


@pytest.mark.parametrize("when", LATE)
def test_a_date_after_the_range_is_its_end(api: Api, when: str) -> None:
    assert _total(api, started_after=when) == 0
    assert _total(api, started_before=when) == 2


def test_a_date_that_is_not_one_is_still_a_422(api: Api) -> None:
    assert api.get("/api/sessions", started_after="10000-01-01").status_code == 422
