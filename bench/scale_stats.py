"""`python -m bench.scale_stats [--quick]`: a session's numbers at scale (issue #39).

On an n-message session (quick: 100,000; full: 1,000,000; bench.scale_lint's generator: tools/call
requests with names, results, errors, progress and log notifications, stderr lines), beside
baselines measured in the same run, in plain sqlite3 on the same file:

1. `store.stats.session_stats` (the numbers per method and name, tools/list sizes: what `mcp-inspect
   stats --json` prints), and with `overview=True` (what the API's /stats serves the Overview tab);
2. `mcp-inspect stats SID` as a process (start-up, the query, printing the table);
3. baselines: reading the columns the statement needs (seq, kind, method, size, answers_seq,
   latency_ns, raw) for every row of the session (`rows`), and the cheapest aggregate over them
   (`SELECT method, count(*), sum(size) ... GROUP BY method`: `group by`).

Each figure is the median of a few runs, the ratio is against the `rows` baseline (and `group by`).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.scale_lint import generate_session
from inspector.store.opening import open_db
from inspector.store.stats import session_stats


def _median_s(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def _rows(db: Path, sid: int) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "SELECT seq, kind, method, size, answers_seq, latency_ns, raw FROM message WHERE session_id = ?",
            (sid,),
        ).fetchall()


def _group_by(db: Path, sid: int) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "SELECT method, count(*), sum(size), max(latency_ns) FROM message WHERE session_id = ? GROUP BY method",
            (sid,),
        ).fetchall()


def _cli(db: Path, sid: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "stats", str(sid)],
        env={**os.environ, "MCP_INSPECTOR_DB": str(db)},
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-500:]


def run(quick: bool) -> dict[str, Any]:
    """Generate the session, time the stats and the baselines (interleaved, a few rounds)."""
    n = 100_000 if quick else 1_000_000
    runs = 3
    with tempfile.TemporaryDirectory(prefix="scale-stats-") as tmp:
        os.chmod(tmp, 0o700)
        db = Path(tmp) / "stats.db"
        t = time.perf_counter()
        sid = generate_session(db, n, name=f"{n} messages")
        generated_s = time.perf_counter() - t
        store = open_db(db, create=False)
        try:
            found = session_stats(store, sid)
            figures: dict[str, list[float]] = {
                k: [] for k in ("rows", "group_by", "stats", "overview", "cli")
            }
            for _ in range(runs):  # interleaved: the machine's load falls on each alike
                figures["rows"].append(_median_s(lambda: _rows(db, sid), 1))
                figures["group_by"].append(_median_s(lambda: _group_by(db, sid), 1))
                figures["stats"].append(_median_s(lambda: session_stats(store, sid), 1))
                figures["overview"].append(_median_s(lambda: session_stats(store, sid, overview=True), 1))
                figures["cli"].append(_median_s(lambda: _cli(db, sid), 1))
        finally:
            store.dispose()
    medians = {k: round(statistics.median(v), 3) for k, v in figures.items()}
    return {
        "session_messages": n,
        "generate_s": round(generated_s, 1),
        "methods": len(found["methods"]),
        "median_s": medians,
        "ratio_to_rows": {k: round(medians[k] / medians["rows"], 2) for k in ("stats", "overview", "cli")},
        "ratio_to_group_by": {
            k: round(medians[k] / medians["group_by"], 2) for k in ("stats", "overview", "cli")
        },
    }


def print_figures(figures: dict[str, Any]) -> None:
    m, r, g = figures["median_s"], figures["ratio_to_rows"], figures["ratio_to_group_by"]
    print(
        f"Stats of a {figures['session_messages']:,}-message session ({figures['methods']} rows of numbers)"
    )
    print(
        f"  baselines (plain sqlite3): reading the rows it needs {m['rows']} s, a GROUP BY method {m['group_by']} s"
    )
    print(
        f"  session_stats             {m['stats']:>7} s  {r['stats']:>5}x the rows, {g['stats']:>5}x the GROUP BY"
    )
    print(
        f"  with the Overview's parts {m['overview']:>7} s  {r['overview']:>5}x the rows, {g['overview']:>5}x the GROUP BY"
    )
    print(
        f"  `mcp-inspect stats` (process) {m['cli']:>5} s  {r['cli']:>5}x the rows, {g['cli']:>5}x the GROUP BY"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_stats", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 100,000-message session")
    args = parser.parse_args(argv)
    print_figures(run(args.quick))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
