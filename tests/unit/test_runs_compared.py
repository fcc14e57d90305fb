"""Runs compared (issue #39 item 5): the buckets of each exchange of a diff, the latency deltas of
two sessions' stats, and the summary the text report and `--json` of `mcp-inspect diff` open with."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from inspector.cli import app
from inspector.replay.compared import latency_deltas, render_compared
from inspector.replay.diff import SessionDiff, diff_sessions
from inspector.share.html_report import report_html
from inspector.store import get_session, open_engine
from tests import compared_sessions as cs
from tests.two_sessions import imported


def test_every_bucket_of_constructed_exchanges() -> None:
    d = diff_sessions(cs.records(0), cs.records(1))
    assert d.buckets() == cs.BUCKETS
    by_summary = {x.summary: x.bucket for x in d.exchanges}
    assert by_summary == {
        "tools/list": "unchanged", "initialize": "unchanged", "tools/call name=echo": "unchanged",
        "tools/call name=weather": "regressed",  # ok -> isError
        "tools/call name=search": "fixed",  # an error response -> ok
        "tools/call name=book": "regressed",  # ok -> no answer
        "tools/call name=clock": "volatile", "tools/call name=translate": "changed",
        "resources/read uri=demo://gone": "removed", "prompts/get name=review": "new",
    }  # fmt: skip
    # The other way round, regressed and fixed swap, as new and removed do.
    back = diff_sessions(cs.records(1), cs.records(0), keep_equal=False).buckets()
    assert back == {**cs.BUCKETS, "regressed": 1, "fixed": 2}
    # Listing only what differs counts the same; the JSON report reads back to the same buckets.
    short = diff_sessions(cs.records(0), cs.records(1), keep_equal=False)
    assert short.buckets() == cs.BUCKETS
    assert SessionDiff.from_json(json.loads(json.dumps(short.to_json()))).buckets() == cs.BUCKETS


def test_latency_deltas_match_rows_by_method_and_name() -> None:
    def row(method: str, name: str | None, p50: float | None, p95: float | None) -> dict[str, object]:
        return {"method": method, "name": name, "count": 2, "p50_ms": p50, "p95_ms": p95}

    a = [
        row("tools/call", None, 1.0, 4.0),
        row("tools/call", "x", 1.0, 4.0),
        row("notifications/x", None, None, None),
    ]
    b = [row("tools/call", None, 3.5, 3.0), row("ping", None, 0.5, 0.5)]
    got = latency_deltas(a, b)  # type: ignore[arg-type]
    assert [(r["method"], r["name"], r["p50_delta_ms"], r["p95_delta_ms"]) for r in got] == [
        ("tools/call", None, 2.5, -1.0),
        ("tools/call", "x", None, None),  # answered in a only
        ("ping", None, None, None),  # b's own, after a's
    ]
    assert got[1]["b_count"] == 0 and got[2]["a_p50_ms"] is None and got[2]["b_p50_ms"] == 0.5


def test_the_text_summary_fits_80_columns_and_shows_no_control_characters() -> None:
    row = {
        "method": "tools/call", "name": "\x1b]52;c;evil\x07" + "n" * 90, "a_count": 1, "b_count": 1,
        "a_p50_ms": 1234567.891, "b_p50_ms": 0.5, "p50_delta_ms": -1234567.391,
        "a_p95_ms": None, "b_p95_ms": 2.0, "p95_delta_ms": None,
    }  # fmt: skip
    buckets = {k: 10**9 for k in cs.BUCKETS}
    text = render_compared({"buckets": buckets, "latency": [row] * 40}, 1, 2)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "\x1b" not in text and "\x07" not in text and "\\x1b]52" in text
    assert lines[-1] == "  ... 10 more rows (--json lists every one)"


def _cli(db: Path, *args: str) -> str:
    done = CliRunner().invoke(app, [*args, "--db", str(db)])
    assert done.exit_code in (0, 1), done.output
    return done.stdout


def test_diff_opens_with_the_summary_in_text_and_json(tmp_path: Path) -> None:
    db = imported(tmp_path / "c.db", cs.session_file())
    text = _cli(db, "diff", "a", "b").splitlines()
    assert text[:2] == [
        "runs compared: a = session 1, b = session 2",
        "  2 regressed, 1 fixed, 1 new, 1 removed, 1 changed, 1 volatile, 3 unchanged",
    ]
    assert "  echo                           4.0    12.0    +8.0     4.0    12.0    +8.0" in text
    assert "  search                        80.0    20.0   -60.0    80.0    20.0   -60.0" in text
    assert all(len(line) <= 80 for line in text[: text.index("")])
    doc = json.loads(_cli(db, "diff", "a", "b", "--json"))
    assert list(doc)[0] == "summary" and doc["summary"]["buckets"] == cs.BUCKETS
    assert {x["summary"]: x["bucket"] for x in doc["exchanges"]}["tools/call name=book"] == "regressed"
    # The latencies are each session's stats (one computation), side by side.
    stats = [json.loads(_cli(db, "stats", ref, "--json"))["methods"] for ref in ("a", "b")]
    assert doc["summary"]["latency"] == latency_deltas(*stats)
    (echo,) = [r for r in doc["summary"]["latency"] if r["name"] == "echo"]
    assert (echo["a_p50_ms"], echo["b_p50_ms"], echo["p50_delta_ms"]) == (4.0, 12.0, 8.0)


def test_the_html_report_of_a_diff_opens_with_the_summary(tmp_path: Path) -> None:
    engine = open_engine(imported(tmp_path / "c.db", cs.session_file()))
    try:
        a, b = get_session(engine, 1), get_session(engine, 2)
        html = report_html(engine, [a, b], diff=(a, b)).decode()
    finally:
        engine.dispose()
    summary = html[html.index("<h2>Diff</h2>") :]
    assert summary.startswith('<h2>Diff</h2><p>Runs compared: <span class="regressed">2 regressed</span>')
    assert '<td class="num">80.0</td><td class="num">20.0</td><td class="num">-60.0</td>' in summary
    assert summary.count("changed (regressed)") == 2 and summary.count("changed (fixed)") == 1
