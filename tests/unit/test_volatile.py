"""`replay.volatile`: which changed strings are clock noise and which are real changes."""

from __future__ import annotations

import pytest

from inspector.replay.volatile import is_volatile


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Resource 1: created at 3:56:38 PM", "Resource 1: created at 3:57:02 PM"),
        ("at 2026-11-23T20:35:00Z", "at 2026-11-24T01:02:03.5Z"),
        ("run 0f8fad5b-d9cb-469f-a165-70867728950e ok", "run 7c9e6679-7425-40de-944b-e07fc1f90ae7 ok"),
        ("Mon, 23 Nov 2026", "Tue, 24 Dec 2026"),
        ("request #41 served", "request #42 served"),
    ],
)
def test_clock_like_changes_are_volatile(before: str, after: str) -> None:
    assert is_volatile(before, after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Hello, Ada! It is 10:00", "Goodbye, Ada! It is 10:01"),  # a word changed too
        ("20.5", "21.5"),  # a bare number is the answer, not a clock
        (20.5, 21.5),
        ("Europe/London", "Europe/Paris"),
        ("money left", "sunny left"),
        ("1.2.0", "1.3.0"),  # a release, not a clock
        ("same", "same"),
        ({"a": 1}, {"a": 2}),
    ],
)
def test_real_changes_are_not(before: object, after: object) -> None:
    assert not is_volatile(before, after)
