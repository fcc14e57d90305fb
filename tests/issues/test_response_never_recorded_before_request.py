"""Regression: a fast server's response was queued for recording before the request that caused it.

The stdio pumps forwarded first and queued the copy afterwards, so the
server's thread could queue the answer ahead of the request; the response
was then recorded as an orphan and the request as never answered.
"""

from __future__ import annotations

from pathlib import Path

from inspector.store import open_engine
from tests.conftest import SCRIPTED
from tests.shim_process import ShimProcess, messages, only_session
from tests.warm_peers import warm_wrap_argv


def test_every_response_follows_its_request(db_path: Path) -> None:
    shim = ShimProcess(warm_wrap_argv(db_path, *SCRIPTED))
    for i in range(300):
        shim.request(i, "ping")
        shim.read_line()
    shim.close_stdin()
    assert shim.wait() == 0
    engine = open_engine(db_path)
    rows = messages(engine, only_session(engine).id)
    responses = [m for m in rows if m.kind == "response"]
    assert len(responses) == 300
    orphans = [m.seq for m in responses if m.answers_seq is None]
    assert orphans == []
    assert all(m.answers_seq < m.seq for m in responses)
