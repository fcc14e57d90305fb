"""`python -m bench.scale_stats [--quick] [--db FILE]`: a session's numbers at scale (issue #39).

On an n-message session (quick: 100,000; full: 1,000,000; bench.scale_lint's generator: tools/call
requests with names, results, errors, progress and log notifications, stderr lines), beside
baselines measured in the same run, in plain sqlite3 on the same file:

1. `store.stats.session_stats` (the numbers per method and name, tools/list sizes: what `mcp-inspect
   stats --json` prints), and with `overview=True` (what the API's /stats serves the Overview tab:
   the same statement with the histogram, errors over time and slowest calls);
2. `mcp-inspect stats SID` as a process (start-up, the query, printing the table);
3. the Overview tab's first paint in headless Chromium: from navigation to the session's
   `/overview` URL (the page's time origin) until the stats table is in the DOM (`drawn`) and the
   frame that paints it (`painted`: its animation frame callback); the first open (cold: the
   session is linted then, for the findings card), then warm runs on fresh tabs, each once the
   tab before had finished its requests; beside it the API's /stats over HTTP;
4. on PostgreSQL (a throwaway cluster, tests/postgres.py, when its binaries are installed): the
   stats of a 100,000-message session against reading the same rows over psycopg;
5. baselines: reading the columns the statement needs (seq, kind, method, size, answers_seq,
   latency_ns, raw) for every row of the session (`rows`: the raw SQL the numbers need), and the
   cheapest aggregate over them (`SELECT method, count(*), sum(size) ... GROUP BY method`).

Each figure is the median of a few interleaved runs (wall clock), the ratio is against the `rows`
baseline (and `group by`) of the same backend.
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

ROWS_SQL = "SELECT seq, kind, method, size, answers_seq, latency_ns, raw FROM message WHERE session_id = {p}"
PG_MESSAGES = 100_000

# Installed before every page script: when the Overview's stats table enters the DOM, and the frame
# that paints it.
PAINT_PROBE = """
new MutationObserver((_, obs) => {
  if (document.querySelector("[data-testid=overview-stats]")) {
    window.__drawn = performance.now();
    requestAnimationFrame(() => { window.__painted = performance.now(); });
    obs.disconnect();
  }
}).observe(document, { subtree: true, childList: true });
"""


def _median_s(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def _rows(db: Path, sid: int) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(ROWS_SQL.format(p="?"), (sid,)).fetchall()


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


def first_paint(db: Path, sid: int, warm_runs: int) -> dict[str, Any] | None:
    """The Overview's first paint in Chromium (ms from navigation) and the API's /stats over HTTP;
    None (and why, printed) when Chromium, Playwright or the built UI is missing."""
    from bench.ui_bench import CHROMIUM, CHROMIUM_ARGS

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("scale_stats: no first paint (Playwright is not installed)")
        return None
    if not Path(CHROMIUM).exists():
        print(f"scale_stats: no first paint ({CHROMIUM} is missing)")
        return None
    import httpx

    from inspector.api import UiServer
    from inspector.store import open_engine

    engine = open_engine(db)
    server = UiServer(engine, port=0).start()
    runs: dict[str, list[float]] = {"drawn": [], "painted": [], "api": []}
    cold: dict[str, float] = {}
    try:
        with (
            sync_playwright() as pw,
            httpx.Client(
                base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}, timeout=600
            ) as http,
        ):
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.add_init_script(PAINT_PROBE)
            for i in range(warm_runs + 1):
                page = context.new_page()
                page.goto(server.url(f"/sessions/{sid}/overview"))
                page.wait_for_selector("[data-testid=overview-stats]", timeout=600_000)
                page.wait_for_function("window.__painted !== undefined", timeout=60_000)
                got = {k: float(page.evaluate(f"window.__{k}")) for k in ("drawn", "painted")}
                # the findings card lints the session on the first open: let every request finish
                page.wait_for_load_state("networkidle", timeout=600_000)
                page.close()
                t = time.perf_counter()
                http.get(f"/api/sessions/{sid}/stats").raise_for_status()
                got["api"] = (time.perf_counter() - t) * 1000
                if i == 0:
                    cold = {k: round(v, 1) for k, v in got.items()}
                else:
                    for k, v in got.items():
                        runs[k].append(v)
            browser.close()
    finally:
        server.stop()
        engine.dispose()
    return {"cold_ms": cold, "warm_ms": {k: round(statistics.median(v), 1) for k, v in runs.items()}}


def postgres(runs: int) -> dict[str, Any] | None:
    """The stats of a `PG_MESSAGES`-message session on a throwaway PostgreSQL cluster, beside reading
    the rows it needs over psycopg; None (printed why) when PostgreSQL is not installed."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.postgres import PgCluster, pg_bin_dir

    bin_dir = pg_bin_dir()
    if bin_dir is None:
        print("scale_stats: no PostgreSQL figures (PostgreSQL is not installed: make postgresql)")
        return None
    import psycopg

    cluster = PgCluster(bin_dir)
    try:
        url = cluster.new_database("stats")
        sid = generate_session(url, PG_MESSAGES, name=f"{PG_MESSAGES} messages")  # type: ignore[arg-type]
        store = open_db(url, create=False)
        dsn = url.replace("postgresql+psycopg://", "postgresql://")

        def rows() -> None:
            with psycopg.connect(dsn) as conn:
                conn.execute(ROWS_SQL.format(p="%s"), (sid,)).fetchall()

        figures: dict[str, list[float]] = {"rows": [], "stats": [], "overview": []}
        try:
            for _ in range(runs):
                figures["rows"].append(_median_s(rows, 1))
                figures["stats"].append(_median_s(lambda: session_stats(store, sid), 1))
                figures["overview"].append(_median_s(lambda: session_stats(store, sid, overview=True), 1))
        finally:
            store.dispose()
    finally:
        cluster.destroy()
    medians = {k: round(statistics.median(v), 3) for k, v in figures.items()}
    return {
        "session_messages": PG_MESSAGES,
        "median_s": medians,
        "ratio_to_rows": {k: round(medians[k] / medians["rows"], 2) for k in ("stats", "overview")},
    }


def _reuse(db: Path, n: int) -> int | None:
    """The generated session of `n` messages in `db`, if it holds one (`--db`)."""
    if not db.exists():
        return None
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "SELECT id FROM session WHERE name = ? ORDER BY id DESC LIMIT 1", (f"{n} messages",)
        ).fetchone()
    return int(found[0]) if found else None


def run(quick: bool, db: Path | None = None, *, paint: bool = True, pg: bool = True) -> dict[str, Any]:
    """Generate the session (or reuse the one in `db`), time the stats and the baselines (interleaved,
    a few rounds), the Overview's first paint and the PostgreSQL figures."""
    n = 100_000 if quick else 1_000_000
    runs = 3
    with tempfile.TemporaryDirectory(prefix="scale-stats-") as tmp:
        os.chmod(tmp, 0o700)
        path = db or Path(tmp) / "stats.db"
        t = time.perf_counter()
        sid = _reuse(path, n) if db is not None else None
        if sid is None:
            sid = generate_session(path, n, name=f"{n} messages")
        generated_s = time.perf_counter() - t
        store = open_db(path, create=False)
        try:
            found = session_stats(store, sid)
            figures: dict[str, list[float]] = {
                k: [] for k in ("rows", "group_by", "stats", "overview", "cli")
            }
            for _ in range(runs):  # interleaved: the machine's load falls on each alike
                figures["rows"].append(_median_s(lambda: _rows(path, sid), 1))
                figures["group_by"].append(_median_s(lambda: _group_by(path, sid), 1))
                figures["stats"].append(_median_s(lambda: session_stats(store, sid), 1))
                figures["overview"].append(_median_s(lambda: session_stats(store, sid, overview=True), 1))
                figures["cli"].append(_median_s(lambda: _cli(path, sid), 1))
        finally:
            store.dispose()
        painted = first_paint(path, sid, warm_runs=3) if paint else None
    medians = {k: round(statistics.median(v), 3) for k, v in figures.items()}
    out: dict[str, Any] = {
        "session_messages": n,
        "generate_s": round(generated_s, 1),
        "methods": len(found["methods"]),
        "median_s": medians,
        "ratio_to_rows": {k: round(medians[k] / medians["rows"], 2) for k in ("stats", "overview", "cli")},
        "ratio_to_group_by": {
            k: round(medians[k] / medians["group_by"], 2) for k in ("stats", "overview", "cli")
        },
    }
    if painted is not None:
        rows_ms = medians["rows"] * 1000
        out["first_paint"] = painted
        out["first_paint"]["ratio_to_rows"] = {
            k: round(v / rows_ms, 2) for k, v in painted["warm_ms"].items()
        }
    if pg:
        out["postgresql"] = postgres(runs)
    return out


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
    paint = figures.get("first_paint")
    if paint:
        w, c, pr = paint["warm_ms"], paint["cold_ms"], paint["ratio_to_rows"]
        print("  Overview tab in Chromium (ms from navigation; warm median, cold = first open)")
        for k, label in (
            ("drawn", "stats table drawn"),
            ("painted", "stats table painted"),
            ("api", "API /stats (HTTP)"),
        ):
            print(f"    {label:<22}{w[k]:>8.0f}  {pr[k]:>5}x the rows   cold {c[k]:>8.0f}")
    pg = figures.get("postgresql")
    if pg:
        m, r = pg["median_s"], pg["ratio_to_rows"]
        print(
            f"  PostgreSQL, {pg['session_messages']:,} messages: reading the rows it needs {m['rows']} s (psycopg)"
        )
        print(f"    session_stats             {m['stats']:>7} s  {r['stats']:>5}x the rows")
        print(f"    with the Overview's parts {m['overview']:>7} s  {r['overview']:>5}x the rows")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_stats", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 100,000-message session")
    parser.add_argument(
        "--db",
        type=Path,
        help="keep the generated session in this file and reuse it on later runs (generating 1M"
        " messages takes minutes)",
    )
    parser.add_argument(
        "--no-paint", action="store_true", help="without the Overview's first paint in Chromium"
    )
    parser.add_argument("--no-postgresql", action="store_true", help="without the PostgreSQL figures")
    args = parser.parse_args(argv)
    print_figures(run(args.quick, args.db, paint=not args.no_paint, pg=not args.no_postgresql))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
