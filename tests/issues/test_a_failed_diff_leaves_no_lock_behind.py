"""`/api/diff` keeps one lock per report being computed, so that requests asking for the same report
at once wait for one diff (`api/diff_pages.DiffReports`). A diff that failed (a bad ignore pattern:
the API's 400) left its lock in the table for good, one entry per distinct failing request, for the
life of the UI server. Now the entry goes when its last request is done, failed or not."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bench.scale_lint import generate_session
from inspector.api.diff_pages import DiffReports
from inspector.errors import InspectorError
from inspector.store import get_session, open_engine


@pytest.fixture
def pair(tmp_path: Path) -> Any:
    db = tmp_path / "pair.db"
    generate_session(db, 200, name="a")
    generate_session(db, 200, name="b", changes=frozenset({7}))
    engine = open_engine(db)
    return engine, get_session(engine, 1), get_session(engine, 2)


def _page(reports: DiffReports, pair: Any, ignore: list[str]) -> dict[str, Any]:
    engine, a, b = pair
    return reports.page(engine, a, b, ignore, False, equal=False, start=0, limit=10)


def test_a_diff_with_a_bad_ignore_pattern_leaves_no_entry(pair: Any) -> None:
    reports = DiffReports()
    for n in range(3):
        with pytest.raises(InspectorError, match="bad ignore pattern"):
            _page(reports, pair, [f"result[{n}"])
    assert reports.computing == 0
    # The same request again fails the same way (no lock left held), and a good one still works.
    with pytest.raises(InspectorError, match="bad ignore pattern"):
        _page(reports, pair, ["result[0"])
    assert _page(reports, pair, [])["counts"]["changed"] >= 1
    assert reports.computing == 0


def test_requests_at_once_share_one_diff_and_leave_nothing(pair: Any) -> None:
    reports = DiffReports()
    start = threading.Barrier(6)
    answers: list[dict[str, Any]] = []

    def ask() -> None:
        start.wait()
        answers.append(_page(reports, pair, []))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 6 and all(a == answers[0] for a in answers)
    assert reports.computed == 1
    assert reports.computing == 0
