"""`python -m bench.ui_bench [--quick]`: how fast the UI's server pages messages and the browser shows them.

1. Server time for a page of 500 messages from a 1,000,000-message session
   (target: under 50 ms). Timed three ways at random depths: the store query
   and JSON encoding in-process, the full HTTP request to a running UI server,
   and as a baseline the same 500 rows read with plain sqlite3 (the ratio says
   what the API adds on top of the database).
2. Time to first rendered row of a 100,000-message session in Chromium: from
   `page.goto` of the timeline until row 1 is in the DOM (fresh page each
   time, after one warm-up), and the time to show the last row after a jump to
   the end of the scroll range.

`run(quick)` returns the figures (quick: a 100,000-message session for part 1
and fewer repetitions). Needs the built UI (`make web`) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine
from inspector.store.pages import message_rows

PAGE = 500
TARGET_PAGE_MS = 50.0
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s)
    return {
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2),
        "max_ms": round(ms[-1], 2),
    }


def page_times(db: Path, sid: int, total: int, reps: int) -> dict[str, Any]:
    """Part 1: a page of 500 at random depths, in-process, over HTTP, and plain sqlite3."""
    engine = open_engine(db)
    rng = random.Random(5)
    depths = [rng.randrange(0, total - PAGE) for _ in range(reps)]
    raw = sqlite3.connect(db)
    baseline, inproc, http = [], [], []
    for d in depths:
        t = time.perf_counter()
        raw.execute(
            "SELECT * FROM message WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?", (sid, d, PAGE)
        ).fetchall()
        baseline.append(time.perf_counter() - t)
        t = time.perf_counter()
        orjson.dumps(message_rows(engine, sid, after_seq=d, limit=PAGE))
        inproc.append(time.perf_counter() - t)
    server = UiServer(engine, port=0).start()
    try:
        with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}) as c:
            c.get(f"/api/sessions/{sid}/messages", params={"limit": PAGE})  # warm-up
            for d in depths:
                t = time.perf_counter()
                r = c.get(f"/api/sessions/{sid}/messages", params={"after_seq": d, "limit": PAGE})
                http.append(time.perf_counter() - t)
                assert r.status_code == 200 and len(r.json()["items"]) == PAGE
            t = time.perf_counter()
            deep = c.get(
                f"/api/sessions/{sid}/messages",
                params={"method": "tools/call", "offset": total // 8, "limit": PAGE, "count": "true"},
            )
            filtered = time.perf_counter() - t
            assert deep.status_code == 200
    finally:
        server.stop()
        raw.close()
        engine.dispose()
    out = {
        "session_messages": total,
        "sqlite3_baseline": _stats(baseline),
        "in_process": _stats(inproc),
        "http": _stats(http),
        "filtered_deep_offset_with_count_ms": round(filtered * 1000, 1),
    }
    out["http_vs_sqlite3_ratio"] = round(out["http"]["median_ms"] / out["sqlite3_baseline"]["median_ms"], 1)
    out["target_ms"] = TARGET_PAGE_MS
    out["met"] = out["http"]["p95_ms"] < TARGET_PAGE_MS
    return out


def first_row_times(db: Path, sid: int, total: int, reps: int) -> dict[str, Any]:
    """Part 2: navigation to the timeline until its first row renders, and jumping to the last row."""
    from playwright.sync_api import sync_playwright

    server = UiServer(open_engine(db), port=0).start()
    first, last = [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 860})
            page = context.new_page()
            page.goto(server.url("/"))  # the tab keeps the token (sessionStorage)
            page.wait_for_selector("[data-session-id]")
            for i in range(reps + 1):
                page = context.new_page()
                t = time.perf_counter()
                page.goto(f"{server.base_url}/sessions/{sid}")
                page.wait_for_selector("[data-testid=row][data-seq='1']", timeout=60_000)
                elapsed = time.perf_counter() - t
                rows = page.get_by_test_id("rows")
                t = time.perf_counter()
                rows.evaluate("el => { el.scrollTop = el.scrollHeight }")
                page.wait_for_selector(f"[data-testid=row][data-seq='{total}']", timeout=60_000)
                to_end = time.perf_counter() - t
                if i:  # the first round warms caches up
                    first.append(elapsed)
                    last.append(to_end)
                page.close()
            browser.close()
    finally:
        server.stop()
    return {"session_messages": total, "first_row": _stats(first), "jump_to_last_row": _stats(last)}


def run(quick: bool) -> dict[str, Any]:
    """Measure both parts; return the figures (also printed by `main`)."""
    with tempfile.TemporaryDirectory(prefix="ui-bench-") as tmp:
        db = Path(tmp) / "bench.db"
        big = 100_000 if quick else 1_000_000
        t = time.perf_counter()
        big_sid = generate(db, big, name=f"{big} messages")
        generated_s = time.perf_counter() - t
        hundred_k = big_sid if big == 100_000 else generate(db, 100_000, name="100000 messages")
        pages = page_times(db, big_sid, big, reps=20 if quick else 100)
        browser = first_row_times(db, hundred_k, 100_000, reps=3 if quick else 10)
    return {"generate_s": round(generated_s, 1), "page_of_500": pages, "browser": browser}


def print_figures(figures: dict[str, Any]) -> None:
    p = figures["page_of_500"]
    b = figures["browser"]
    verdict = "met" if p["met"] else "MISSED"
    print(f"UI server: a page of {PAGE} messages from a {p['session_messages']:,}-message session")
    print(
        f"  HTTP request     median {p['http']['median_ms']} ms, p95 {p['http']['p95_ms']} ms "
        f"(target p95 < {p['target_ms']:.0f} ms: {verdict})"
    )
    print(f"  in-process       median {p['in_process']['median_ms']} ms (query + JSON)")
    print(
        f"  sqlite3 baseline median {p['sqlite3_baseline']['median_ms']} ms "
        f"(HTTP is {p['http_vs_sqlite3_ratio']}x the raw query)"
    )
    print(
        f"  filtered (method) page at a deep offset, with count: {p['filtered_deep_offset_with_count_ms']} ms"
    )
    print(f"Chromium: a {b['session_messages']:,}-message session")
    print(
        f"  first rendered row   median {b['first_row']['median_ms']} ms, max {b['first_row']['max_ms']} ms"
    )
    print(f"  jump to the last row median {b['jump_to_last_row']['median_ms']} ms")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ui_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 messages for the page test, fewer runs")
    args = parser.parse_args(argv)
    figures = run(args.quick)
    print_figures(figures)


if __name__ == "__main__":
    main()
