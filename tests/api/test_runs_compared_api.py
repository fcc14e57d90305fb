"""`GET /api/diff` opens with the runs-compared summary (issue #39 item 5) on its first page: the
same buckets and latency deltas as `mcp-inspect diff --json`, and each exchange's bucket."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from inspector.replay.compared import runs_compared
from inspector.replay.diff import diff_sessions
from inspector.store import open_engine
from inspector.store.wire import StoredMessages
from tests import compared_sessions as cs
from tests.api.conftest import Api, in_process
from tests.two_sessions import imported


@pytest.fixture(scope="module")
def compared_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from in_process(imported(tmp_path_factory.mktemp("compared") / "c.db", cs.session_file()))


def test_the_first_page_carries_the_summary(compared_api: Api) -> None:
    doc: Any = compared_api.json("/api/diff", a="a", b="b")
    engine: Engine = open_engine(compared_api.db)
    try:
        diff = diff_sessions(StoredMessages(engine, 1), StoredMessages(engine, 2), keep_equal=False)
        assert doc["summary"] == runs_compared(engine, diff, 1, 2)
    finally:
        engine.dispose()
    assert doc["summary"]["buckets"] == cs.BUCKETS
    assert {x["bucket"] for x in doc["exchanges"]} == set(cs.BUCKETS) - {"unchanged"}
    # A later page leaves it out; listing the equal ones too counts the same.
    page: Any = compared_api.json("/api/diff", a="a", b="b", equal="true", limit=3)
    assert page["summary"]["buckets"] == cs.BUCKETS and page["next_cursor"] is not None
    later: Any = compared_api.json(
        "/api/diff", a="a", b="b", equal="true", limit=3, cursor=page["next_cursor"]
    )
    assert later["summary"] is None and later["exchanges"]
