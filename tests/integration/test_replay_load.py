"""`replay --rate | --max --concurrency K` (a recording as load) against real processes.

The recordings are the checked-in demo and clock sessions (tests/sessions.py); the command runs in
this process (tests/cli_in_process.py) against the scripted stdio peer (tests/peers/scripted_server.py,
`--delay`: one answer at a time, late, so requests sent without waiting pile up), the demo on the
official SDK over stdio (its sampling, elicitation and roots requests answered from the recording)
and over Streamable HTTP. What is checked is read back from the recorded replay session, never
from the clock of the test: K requests in flight, the spacing of the sends, and the report's
numbers equal to `mcp-inspect stats` of that session."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from inspector.replay.load import FIRST_ID
from inspector.store import iter_messages, open_engine
from inspector.store.models import Message
from tests.cli_in_process import run
from tests.http_peers import demo_http_server
from tests.sessions import load
from tests.warm_peers import demo_argv, peer_argv


def _load(db: Path, session: int, *args: str, code: int = 0) -> dict[str, Any]:
    out = run("replay", str(session), "--db", str(db), "--json", *args, timeout=120)
    assert out.returncode == code, out.stderr
    assert "Traceback" not in out.stderr
    report = json.loads(out.stdout)
    assert f"recorded as session {report['replay']}" in out.stderr
    return report  # type: ignore[no-any-return]


def _rows(db: Path, session: int) -> list[Message]:
    engine = open_engine(db)
    try:
        return list(iter_messages(engine, session))
    finally:
        engine.dispose()


def _in_flight(rows: list[Message]) -> int:
    """The most requests the recording shows asked and not yet answered at once."""
    asked: set[int] = set()
    most = 0
    for m in rows:
        if m.kind == "request" and m.direction == "c2s":
            asked.add(m.seq)
        elif m.kind in ("response", "error") and m.direction == "s2c":
            asked.discard(m.answers_seq or -1)
        most = max(most, len(asked))
    return most


def _agrees_with_stats(db: Path, report: dict[str, Any]) -> None:
    out = run("stats", str(report["replay"]), "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["methods"] == report["methods"]


def _method(report: dict[str, Any], method: str, name: str | None = None) -> dict[str, Any]:
    return next(r for r in report["methods"] if r["method"] == method and r["name"] == name)


def test_max_keeps_k_requests_in_flight_and_counts_errors(db_path: Path) -> None:
    original = load(db_path, "demo", name="demo")  # initialize, initialized, then 19 messages
    server = peer_argv("tests.peers.scripted_server", "--delay", "0.02", "--error-method", "tools/list")
    report = _load(db_path, original, "--max", "--concurrency", "3", "--repeat", "2", "--", *server)
    assert report["sent"] == 38 and report["requests"] == report["answered"] == 38
    assert report["unanswered"] == 0 and report["problem"] is None
    assert _in_flight(_rows(db_path, report["replay"])) == 3  # at most K, and K reached
    assert _method(report, "tools/list")["errors"] == _method(report, "tools/list")["count"] == 2
    assert report["errors"] == 2
    assert _method(report, "initialize")["count"] == 1  # the handshake once
    assert _method(report, "tools/call", "echo")["count"] == 2
    _agrees_with_stats(db_path, report)


def test_rate_paces_the_sends(db_path: Path) -> None:
    original = load(db_path, "demo", name="demo")
    rate = 40.0
    report = _load(db_path, original, "--rate", str(rate), "--", *peer_argv("tests.peers.scripted_server"))
    assert report["load"]["mode"] == "rate" and report["asked_per_s"] == rate
    assert 0 < report["achieved_per_s"] <= rate * 1.01  # never ahead of the schedule
    sends = [
        m.ts_ns
        for m in _rows(db_path, report["replay"])
        if m.direction == "c2s" and m.kind == "request" and m.rpc_id is not None and int(m.rpc_id) >= FIRST_ID
    ]
    assert len(sends) == 19
    # Open loop on a fixed schedule: the i-th never goes before i/rate (a loaded machine only makes
    # them late), and most gaps are near 1/rate.
    assert (sends[-1] - sends[0]) / 1e9 >= 18 / rate * 0.95
    gaps = [(b - a) / 1e9 for a, b in zip(sends, sends[1:], strict=False)]
    assert 0.3 / rate <= statistics.median(gaps) <= 3 / rate, gaps


def test_unanswered_requests_make_exit_status_1(db_path: Path) -> None:
    original = load(db_path, "clock", name="clock")
    server = peer_argv("tests.peers.scripted_server", "--delay", "0.25")
    report = _load(
        db_path, original, "--max", "--concurrency", "8", "--timeout", "0.1", "--", *server, code=1
    )
    # Late answers (after --timeout) are still recorded, so `stats` may show their latency; the
    # sender counts them unanswered.
    assert report["unanswered"] == report["requests"] > 0 and report["answered"] == 0
    _agrees_with_stats(db_path, report)


def test_the_sdk_demo_as_load_answers_its_server_requests_over_stdio_and_http(db_path: Path) -> None:
    original = load(db_path, "demo", name="demo")
    reports = [_load(db_path, original, "--max", "--concurrency", "4", "--repeat", "2", "--", *demo_argv())]
    with demo_http_server(warm=True) as url:
        reports.append(_load(db_path, original, "--max", "--concurrency", "4", "--repeat", "2", "--url", url))
    for report in reports:
        assert report["answered"] == report["requests"] == 38, report
        assert report["unmatched_server_requests"] == []
        for asked in ("sampling/createMessage", "elicitation/create", "roots/list"):
            assert _method(report, asked)["count"] == 2 and _method(report, asked)["errors"] == 0
        assert _method(report, "tools/call", "fail")["errors"] == 2  # isError results
        assert _method(report, "resources/read", "demo://notes/does-not-exist")["errors"] == 2
        assert _in_flight(_rows(db_path, report["replay"])) <= 4
        _agrees_with_stats(db_path, report)


def test_duration_stops_the_schedule_and_the_text_report_fits_80_columns(db_path: Path) -> None:
    original = load(db_path, "clock", name="clock")
    server = peer_argv("tests.peers.scripted_server")
    out = run(
        "replay", str(original), "--db", str(db_path), "--rate", "20", "--duration", "0.5", "--", *server
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "load: --rate 20, for 0.5 s"
    # The sends due before 0.5 s (at 0, 0.05, ... 0.45 s), round and round the recorded messages.
    assert lines[1].startswith("sent 10 messages in ") and lines[1].endswith("(asked: 20.0/s)"), lines[1]
    assert any(line.startswith("method / name") for line in lines)
    assert max(len(line) for line in lines) <= 80
