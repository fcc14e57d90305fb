"""Volatile values in the replay-job API and the diff route, against the real clock peer.

The clock peer's answers carry the time to the nanosecond, so every replay of
its recording differs from it in clock-like parts only ("volatile"). Like
`mcp-inspect replay`, a replay job passes on those unless it was started with
`strict_volatile`, and `calibrate` replays twice first; `GET /api/diff` takes
the same switch. A changed word (`$GREETING`, through `env`) fails either way.
Before this, the job API refused `strict_volatile` (422) and always passed on
volatile values, and the diff route could not count them as changes.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.conftest import Api, in_process
from tests.sessions import load
from tests.warm_peers import peer_argv

# The replay jobs spawn the clock peer (`CLOCK`, a Python process): the lane rule of tests/conftest.py
# reads the tests' text, where only the API's request names the command.
pytestmark = pytest.mark.processes

# The clock peer (an SDK server), forked from the warm server of tests/warm_peers.py: ~0.1 s of CPU a
# start instead of ~2 s of imports, for the eleven runs the replay jobs of this module start.
CLOCK = peer_argv("tests.peers.clock_server")


@pytest.fixture(scope="module")
def clock_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The API (in-process) on a database of this module's own; session 1: greet Ada, now, now (the
    clock peer recorded through the real shim as `record_clock` drives it, checked in as
    tests/data/sessions/clock.jsonl, imported)."""
    db = tmp_path_factory.mktemp("volatile") / "clock.db"
    assert load(db, "clock", name="clock") == 1
    yield from in_process(db)


def replay(api: Api, command: list[str] = CLOCK, limit: float = 120, **body: Any) -> dict[str, Any]:
    """Start a replay job of session 1 and long-poll it until it ends (bounded)."""
    response = api.http.post("/api/sessions/1/replay", json={"target": {"command": command}, **body})
    assert response.status_code == 202, response.text
    job = response.json()
    deadline = time.monotonic() + limit
    while job["state"] == "running":
        assert time.monotonic() < deadline, f"replay job still running after {limit}s: {job}"
        job = api.json(f"/api/replays/{job['id']}", wait=10)
    assert job["state"] == "finished", job["error"]
    return job  # type: ignore[no-any-return]


def statuses(report: dict[str, Any]) -> dict[str, str]:
    """Each non-equal exchange's summary -> "volatile" (changed only in volatile values) or its status."""
    out = {}
    for x in report["exchanges"]:
        if x["status"] == "equal":
            continue
        only_volatile = x["status"] == "changed" and all(c["volatile"] for c in x["changes"])
        out[f"{x['summary']} #{x['original_seq']}"] = "volatile" if only_volatile else x["status"]
    return out


@pytest.mark.parametrize("calibrate", [False, True])
def test_volatile_values_pass_by_default(clock_api: Api, calibrate: bool) -> None:
    job = replay(clock_api, calibrate=calibrate)
    assert job["strict_volatile"] is False and job["calibrate"] is calibrate
    report = job["report"]
    assert report["passed"] is True and report["changed"] is False
    assert report["strict_volatile"] is False
    assert report["counts"]["volatile"] == report["counts"]["changed"] == 3
    assert set(statuses(report).values()) == {"volatile"}, statuses(report)
    assert report["calibration_noise"] == []  # clock values are marked, not learnt as noise


def test_strict_volatile_fails_on_them(clock_api: Api) -> None:
    job = replay(clock_api, strict_volatile=True)
    assert job["strict_volatile"] is True
    report = job["report"]
    assert report["passed"] is False and report["changed"] is True and report["strict_volatile"] is True
    assert report["counts"]["volatile"] == 3  # still told apart, now counted as changes


def test_strict_volatile_with_calibrate_learns_what_the_two_runs_disagree_on(clock_api: Api) -> None:
    # As the CLI: with --strict-volatile calibration no longer skips clock values, so the text the
    # two runs disagree on (nanoseconds) is learnt as noise and ignored: nothing left to fail.
    job = replay(clock_api, calibrate=True, strict_volatile=True)
    report = job["report"]
    assert any("content" in p or "structuredContent" in p for p in report["calibration_noise"]), report
    assert report["passed"] is True and report["counts"]["volatile"] == 0


@pytest.mark.parametrize("strict_volatile", [False, True])
def test_a_changed_word_fails_either_way(clock_api: Api, strict_volatile: bool) -> None:
    env = shutil.which("env")
    assert env is not None
    report = replay(clock_api, [env, "GREETING=Goodbye", *CLOCK], strict_volatile=strict_volatile)["report"]
    assert report["passed"] is False and report["changed"] is True
    assert list(statuses(report).values()) == ["changed", "volatile", "volatile"], statuses(report)
    greet = next(x for x in report["exchanges"] if x["summary"].startswith("tools/call name=greet"))
    assert any("Goodbye" in str(c["after"]) for c in greet["changes"])


def test_diff_route_takes_strict_volatile(clock_api: Api) -> None:
    b = replay(clock_api)["report"]["replay"]
    lenient: Any = clock_api.json("/api/diff", a=1, b=b)
    strict: Any = clock_api.json("/api/diff", a=1, b=b, strict_volatile="true")
    assert lenient["changed"] is False and lenient["strict_volatile"] is False
    assert strict["changed"] is True and strict["strict_volatile"] is True
    assert lenient["counts"] == strict["counts"] and lenient["counts"]["volatile"] == 3
    bad = clock_api.get("/api/diff", a=1, b=b, strict_volatile="maybe")
    assert bad.status_code == 422 and "strict_volatile" in bad.text
    wrong = clock_api.http.post(
        "/api/sessions/1/replay", json={"target": {"command": CLOCK}, "strict_volatile": "maybe"}
    )
    assert wrong.status_code == 422 and "strict_volatile" in wrong.text
