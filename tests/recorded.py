"""Bounded waits for the recorded rows of a session that is still recording.

Recording is off the forwarding path (DESIGN principle 2): a client's round trip, or an API call
that sent a message, returns before the recorder has committed its rows. A test that reads the
rows of a live session (a hosted client or mock server in the UI process, a proxy still running)
polls until the rows it needs are there, with a deadline, instead of reading once or sleeping.
Rows read after the recording process has exited (and was waited for) need no wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Engine

from inspector.store import Message, iter_messages

__all__ = ["POLL_S", "WAIT_S", "poll_until", "rows_until"]

WAIT_S = 60.0  # generous: under load (CI, two busy cores) the writer may lag by seconds
POLL_S = 0.02

T = TypeVar("T")


def poll_until(
    read: Callable[[], T], predicate: Callable[[T], bool], what: str, timeout: float = WAIT_S
) -> T:
    """`read()` again and again until `predicate` holds for what it returned; that value.

    Fails with `what` and the last value read when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if predicate(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not recorded within {timeout:g}s; last read: {value!r:.2000}")
        time.sleep(POLL_S)


def rows_until(
    engine: Engine,
    session_id: int,
    predicate: Callable[[list[Message]], bool],
    what: str,
    timeout: float = WAIT_S,
) -> list[Message]:
    """The session's rows (seq order) once `predicate` holds for them (bounded by `timeout`)."""
    return poll_until(
        lambda: list(iter_messages(engine, session_id)),
        predicate,
        f"{what} (session {session_id})",
        timeout,
    )
