"""A session the live feed saw as interrupted, then ended, must reach the browser as ended.

A wrap whose client goes away before its store is open hands what it holds to a detached finishing
process and exits (wrap_finish.py). For a moment the session's row says `recording`
while its recorder's pid is gone, which the API reads as `interrupted`; seconds later the finisher
writes the end. The feed stopped watching the session at `interrupted`, so the end never reached
an open page: the timeline showed "interrupted" for good (seen in CI as
tests/e2e/test_scale_and_live.py::test_a_wrap_started_elsewhere_appears_live).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
from sqlalchemy import update

from inspector.api.live import LiveFeed
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine, schema


def _events(feed: LiveFeed) -> list[dict]:
    return [orjson.loads(body) for _audience, body in feed.poll([])]


def test_an_interrupted_session_that_ends_later_is_sent_as_ended(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "live.db")
    sid = create_session(engine, kind="stdio-wrap", target=["server"], name="handed over")
    feed = LiveFeed(engine)
    feed._reset()  # an open UI: it watches the recording session
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid that is no longer alive: the recorder has exited
    with engine.begin() as conn:
        conn.execute(update(schema.session).where(schema.session.c.id == sid).values(pid=gone.pid))
    first = _events(feed)
    assert [(e["type"], e["session"]["state"]) for e in first] == [("session_ended", "interrupted")]
    # The finisher writes the end.
    writer = SessionWriter(engine, sid)
    writer.on_end(0, "finished by the hand-over", None)
    later = _events(feed)
    assert [(e["type"], e["session"]["state"]) for e in later] == [("session_ended", "ended")]
    assert _events(feed) == []  # and then the feed stops watching it
    engine.dispose()
