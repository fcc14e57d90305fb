"""The streamed lint leaves the cyclic garbage collector alone: it is process-wide, and the API
server's other threads (live feed, pages) must keep their automatic collections while a session is
linted. The first streamed lint held it off; the linter's lean per-row work
(`lint.check.Linter`) made that unnecessary."""

from __future__ import annotations

import gc
from pathlib import Path

from bench.scale_lint import generate_session
from inspector.lint.stored import lint_rows
from inspector.store import open_engine


def test_collection_stays_on_while_a_session_is_linted(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    sid = generate_session(db, 3_000, name="gc")
    engine = open_engine(db)
    seen: list[bool] = []
    try:
        assert gc.isenabled()
        found = list(lint_rows(engine, sid, page=500, progress=lambda n: seen.append(gc.isenabled())))
    finally:
        engine.dispose()
    assert found and len(seen) >= 5
    assert all(seen) and gc.isenabled()
