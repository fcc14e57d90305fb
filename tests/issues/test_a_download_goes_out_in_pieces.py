"""A session downloaded from the UI goes out in pieces of a few hundred KB, not a line at a time
(issue #36, item 2): the API's StreamingResponse iterates the export in a worker thread, one thread
hop per item, and a session file of 20,000 lines cost 2.9 s of CPU to send where it took 0.35 s to
make (tests/e2e/test_share_ui.py downloaded two per run)."""

from __future__ import annotations

from pathlib import Path

from bench.ui_data import generate
from inspector.api.routes_share import _PIECE, _export
from inspector.share.export import jsonl_lines
from inspector.store import get_session, open_engine


def test_a_long_session_downloads_in_few_pieces_of_the_same_bytes(tmp_path: Path) -> None:
    db = tmp_path / "rows.db"
    generate(db, 3_000, name="three thousand")
    engine = open_engine(db)
    session = get_session(engine, 1)
    lines = list(jsonl_lines(engine, [session]))
    for fmt in ("jsonl", "html"):
        pieces = list(_export(engine, session, fmt))
        assert all(len(piece) >= _PIECE for piece in pieces[:-1]), fmt
        assert pieces[-1]
        if fmt == "jsonl":
            assert b"".join(pieces) == b"".join(lines)
            assert len(pieces) < len(lines) // 100
    engine.dispose()
