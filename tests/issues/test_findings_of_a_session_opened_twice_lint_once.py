"""Two requests for the findings of a never-linted session, at once, each linted the whole
session (both saw it stale): twice the work, the second answer no sooner. Now the second waits
for the first lint and reads what it stored."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bench.scale_lint import generate_session
from inspector.lint import stored
from inspector.store import open_engine


def test_two_opens_lint_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "twice.db"
    sid = generate_session(db, 2_000, name="twice")
    engine = open_engine(db)
    real = stored.lint_session
    runs: list[int] = []
    started = threading.Event()

    def counted(*args: Any, **kwargs: Any) -> Any:  # the real lint, counted and made slower to start
        runs.append(1)
        started.set()
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(stored, "lint_session", counted)
    answers: dict[str, list[Any]] = {}

    def open_page(name: str) -> None:
        answers[name] = stored.findings_of(engine, sid)

    first = threading.Thread(target=open_page, args=("first",))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=open_page, args=("second",))
    second.start()
    first.join(30)
    second.join(30)
    engine.dispose()
    assert len(runs) == 1
    assert answers["first"] == answers["second"] and len(answers["first"]) > 0
