"""`python -m bench.scale_ui [--quick]`: the timeline in Chromium at scale (issue #21).

For one generated session (100,000 messages with --quick, 1,000,000 without),
in headless Chromium against a running UI server:

- first rendered row: from navigation to the timeline URL (the page's time
  origin) until row 1 is in the DOM (target < 300 ms), whichever draws it: on a
  later tab the page's head script draws the first rows before the app has
  loaded (web/src/first/); the app's own row 1 is printed beside it;
- jump to the last row: from setting the row list's scrollTop to its end until
  the last row is in the DOM (target < 150 ms);
- filter change: from the change (a method picked, a kind chip clicked, a text
  search entered) until the first matching row is in the DOM (target < 200 ms).

Times are taken inside the page (`performance.now()` and a MutationObserver),
each on a fresh tab after one warm-up open; every tab is closed only once its
requests are done (the first open's lint and conversations, each tab's deferred
requests), so no tab's first row waits on the one before. Median and max of the
runs (7 warm runs; 3 with --quick). Beside each figure: the API's own time for the same request over HTTP
(what the browser cannot beat), and the issue's target. The cold figures are
those of the very first open (the session is linted and its conversations
derived then).

The first row's floors, measured in the same run on tabs alternating with the
app's, each served by the same server code (token, guard, headers):
- a page that already holds row 1 and no script: what the browser takes for a
  new tab and a document;
- the React floor (web/floor/, built here with the app's own React and
  react-dom): a page that asks for the same first page and renders its rows
  with the app's row markup, and nothing else. What the framework costs; the
  app's first row less this is the app's own cost.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.ui_bench import CHROMIUM, CHROMIUM_ARGS
from bench.ui_data import generate
from inspector.api import UiServer
from inspector.store import open_engine

TARGETS_MS = {"first_row": 300.0, "jump_to_last": 150.0, "filter": 200.0}
PAGE = 200  # the timeline's page (web/src/timeline/rowStore.ts)
WEB = Path(__file__).resolve().parent.parent / "web"
# (label, query of the filter, how the page applies it); the generated session's first match is not row 1.
FILTERS: list[tuple[str, dict[str, str], str]] = [
    ("method tools/call", {"method": "tools/call"}, "method"),
    ("kind response", {"kind": "response"}, "kind"),
    ("text search", {"q": "tool3"}, "q"),
]

# Installed before every page script: the time (from navigation) row 1 enters the DOM, drawn by
# whichever renderer comes first (`__firstRow`: the page's head script draws a later tab's first rows
# before the app has loaded, web/src/first/), the frame that paints it (`__firstFrame`: its
# animation frame callback, which runs just before that paint), and the time the app's own row 1
# enters the DOM (`__appRow`).
FIRST_ROW_PROBE = """
new MutationObserver((_, obs) => {
  if (window.__firstRow === undefined &&
      document.querySelector("[data-testid=row][data-seq='1'], [data-testid=first-row][data-seq='1']")) {
    window.__firstRow = performance.now();
    requestAnimationFrame(() => { window.__firstFrame = performance.now(); });
  }
  if (document.querySelector("[data-testid=row][data-seq='1']")) {
    window.__appRow = performance.now();
    obs.disconnect();
  }
}).observe(document, { subtree: true, childList: true });
"""

# The floor's page: row 1 in the HTML, nothing to load or run.
FLOOR_PAGE = """<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>floor</title></head>
  <body><div data-testid="rows"><div data-testid="row" data-seq="1">1 initialize</div></div></body>
</html>
"""

# Runs an action inside the page and times it until `selector` is in the DOM.
TIMED = """
async ([action, arg, selector]) => {
  const seen = () => document.querySelector(selector) !== null;
  const done = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (seen()) { obs.disconnect(); resolve(performance.now()); }
    });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const rows = document.querySelector("[data-testid=rows]");
  const t0 = performance.now();
  if (action === "scroll") rows.scrollTop = arg === "end" ? rows.scrollHeight : 0;
  else if (action === "method") {
    const select = document.querySelector("[data-testid=method-filter]");
    const set = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value").set;
    if (![...select.options].some((o) => o.value === arg)) select.add(new Option(arg, arg));
    set.call(select, arg);
    select.dispatchEvent(new Event("change", { bubbles: true }));
  } else if (action === "kind") {
    [...document.querySelectorAll("[aria-label=Kinds] button")].find((b) => b.textContent === arg).click();
  } else if (action === "q") {
    const box = document.querySelector("[data-testid=search]");
    const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    set.call(box, arg);
    box.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 0));  // React has the text before Enter applies it
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  }
  const late = new Promise((resolve) => setTimeout(() => resolve(null), 120000));
  const at = await Promise.race([done, late]);
  return at === null ? null : at - t0;  // null: not shown within two minutes
}
"""


def _stats(ms: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(ms), 1), "max_ms": round(max(ms), 1), "runs": len(ms)}


def api_times(server: UiServer, sid: int, total: int, reps: int) -> tuple[dict[str, Any], dict[str, int]]:
    """The API's own time (HTTP, median) for each request the browser waits on; the first match per filter."""
    base = f"/api/sessions/{sid}/messages"
    asks: dict[str, dict[str, Any]] = {
        "first_row": {"after_seq": 0, "limit": PAGE, "count": "true"},
        "jump_to_last": {"after_seq": total - PAGE, "limit": PAGE},
    }
    for label, query, _ in FILTERS:
        asks[label] = {**query, "offset": 0, "limit": PAGE, "count": "true"}
    out: dict[str, Any] = {}
    first_seq: dict[str, int] = {}
    with httpx.Client(
        base_url=server.base_url, headers={"authorization": f"Bearer {server.token}"}, timeout=600
    ) as c:
        for label, params in asks.items():
            c.get(base, params=params)  # warm-up
            samples = []
            for _ in range(reps):
                t = time.perf_counter()
                r = c.get(base, params=params)
                samples.append((time.perf_counter() - t) * 1000)
                r.raise_for_status()
            out[label] = _stats(samples)
            items = r.json()["items"]
            if items:
                first_seq[label] = items[0]["seq"]
    return out, first_seq


def _settle(page: Any, what: str) -> None:
    """Wait until the tab's requests are done (a first open lints: minutes on 1M rows)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.wait_for_load_state("networkidle", timeout=600_000)
    except PlaywrightError:
        print(f"scale_ui: {what}'s requests were still going after 10 minutes")


def build_react_floor(out: Path) -> Path | None:
    """web/floor/ built into `out` with the app's node_modules; None (and why) when it cannot be."""
    npx = shutil.which("npx")
    if npx is None or not (WEB / "node_modules" / "react-dom").is_dir():
        print("scale_ui: no React floor (run `make web` first: it installs web/node_modules)")
        return None
    done = subprocess.run(
        [
            npx,
            "vite",
            "build",
            "--config",
            "floor/vite.config.ts",
            "--outDir",
            str(out),
            "--logLevel",
            "error",
        ],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        print(f"scale_ui: no React floor, its build failed:\n{done.stderr[-2000:]}")
        return None
    return out


def floor_first_row(context: Any, floor: UiServer, sid: int) -> float:
    """One new tab of a floor's page: the time row 1 is in the DOM."""
    page = context.new_page()
    page.goto(floor.url(f"/sessions/{sid}"))
    page.wait_for_selector("[data-testid=row][data-seq='1']", timeout=60_000)
    at = float(page.evaluate("window.__firstRow"))
    _settle(page, "the floor page")
    page.close()
    return at


def browser_times(
    server: UiServer,
    sid: int,
    total: int,
    reps: int,
    first_seq: dict[str, int],
    floors: dict[str, UiServer] | None = None,
) -> dict[str, Any]:
    """First row, jump to last and each filter change in Chromium: cold (first open), then `reps` warm runs.

    Each run first opens each of `floors` (label: its server) in a tab of its own (`floors` in the
    result: their first rows' times)."""
    from playwright.sync_api import sync_playwright

    runs: dict[str, list[float]] = {"first_row": [], "first_frame": [], "app_row": [], "jump_to_last": []}
    runs.update({label: [] for label, _, _ in FILTERS})
    floor_runs: dict[str, list[float]] = {label: [] for label in floors or {}}
    cold: dict[str, float] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 860})
        context.add_init_script(FIRST_ROW_PROBE)
        for i in range(reps + 1):
            for label, floor in (floors or {}).items():
                at = floor_first_row(context, floor, sid)
                if i > 0:
                    floor_runs[label].append(at)
            page = context.new_page()
            # As `mcp-inspect ui` opens it: the token in the fragment.
            page.goto(server.url(f"/sessions/{sid}"))
            page.wait_for_selector("[data-testid=row][data-seq='1']", timeout=600_000)
            got = {
                "first_row": page.evaluate("window.__firstRow"),
                "first_frame": page.evaluate("window.__firstFrame"),
                "app_row": page.evaluate("window.__appRow"),
            }
            got["jump_to_last"] = page.evaluate(
                TIMED, ["scroll", "end", f"[data-testid=row][data-seq='{total}']"]
            )
            page.evaluate(TIMED, ["scroll", "top", "[data-testid=row][data-seq='1']"])
            for label, query, action in FILTERS:
                arg = {"method": query.get("method"), "kind": query.get("kind"), "q": query.get("q")}[action]
                target = f"[data-testid=row][data-index='0'][data-seq='{first_seq[label]}']"
                got[label] = page.evaluate(TIMED, [action, arg, target])
                page.get_by_role("button", name="Clear filters").click()
                page.wait_for_selector("[data-testid=row][data-index='0'][data-seq='1']", timeout=600_000)
                page.evaluate("document.querySelector('[data-testid=search]').blur()")
            # The first open lints the session and derives its conversations: let that finish, and
            # every later tab's deferred requests, before the next tab opens.
            _settle(page, "the first open" if i == 0 else "a tab")
            if i == 0:
                cold = {k: round(v, 1) if v is not None else float("nan") for k, v in got.items()}
            else:
                for k, v in got.items():
                    if v is None:
                        raise RuntimeError(f"scale_ui: {k} was not shown within two minutes")
                    runs[k].append(v)
            page.close()
        browser.close()
    out: dict[str, Any] = {"cold": cold, "warm": {k: _stats(v) for k, v in runs.items()}}
    out["floors"] = {label: _stats(v) for label, v in floor_runs.items() if v}
    return out


def _reuse(db: Path, total: int) -> int | None:
    """The generated session of `total` messages in `db`, if it holds one (`--db`)."""
    if not db.exists():
        return None
    engine = open_engine(db)
    try:
        with engine.connect() as conn:
            found = conn.exec_driver_sql(
                "SELECT id FROM session WHERE name = ? ORDER BY id DESC LIMIT 1", (f"{total} messages",)
            ).first()
    finally:
        engine.dispose()
    return int(found[0]) if found else None


def run(quick: bool, db: Path | None = None, static: Path | None = None) -> dict[str, Any]:
    """Generate the session (or reuse the one in `db`), measure the API and the browser; the figures."""
    total = 100_000 if quick else 1_000_000
    with tempfile.TemporaryDirectory(prefix="scale-ui-") as tmp:
        t = time.perf_counter()
        path = db or Path(tmp) / "bench.db"
        sid = _reuse(path, total) if db is not None else None
        if sid is None:
            sid = generate(path, total, name=f"{total} messages")
        generated_s = time.perf_counter() - t
        engine = open_engine(path)
        floor_dir = Path(tmp) / "floor"
        floor_dir.mkdir()
        (floor_dir / "index.html").write_text(FLOOR_PAGE)
        floor_dirs = {"no script": floor_dir}
        react_floor = build_react_floor(Path(tmp) / "react-floor")
        if react_floor is not None:
            floor_dirs["React"] = react_floor
        server = (UiServer(engine, port=0, static_dir=static) if static else UiServer(engine, port=0)).start()
        floors = {label: UiServer(engine, port=0, static_dir=d).start() for label, d in floor_dirs.items()}
        try:
            api, first_seq = api_times(server, sid, total, reps=5)
            browser = browser_times(
                server, sid, total, reps=3 if quick else 7, first_seq=first_seq, floors=floors
            )
        finally:
            for floor in floors.values():
                floor.stop()
            server.stop()
            engine.dispose()
    return {
        "session_messages": total,
        "generate_s": round(generated_s, 1),
        "api": api,
        "browser": browser,
        "targets_ms": TARGETS_MS,
    }


def _target(label: str) -> float:
    return TARGETS_MS[label] if label in TARGETS_MS else TARGETS_MS["filter"]


def print_figures(figures: dict[str, Any]) -> None:
    """One line per figure: Chromium median/max, the API's time, the target, met or MISSED."""
    b, api = figures["browser"], figures["api"]
    print(f"Timeline in Chromium, a {figures['session_messages']:,}-message session (ms)")
    print(f"  {'':<20}{'median':>8}{'max':>8}{'API':>8}{'cold':>8}{'target':>8}")
    for label, s in b["warm"].items():
        if label in ("app_row", "first_frame"):
            continue
        target = _target(label)
        verdict = "met" if s["median_ms"] < target else "MISSED"
        name = label.replace("_", " ")
        print(
            f"  {name:<20}{s['median_ms']:>8.0f}{s['max_ms']:>8.0f}{api[label]['median_ms']:>8.0f}"
            f"{b['cold'].get(label, 0):>8.0f}{target:>8.0f}  {verdict}"
        )
    for label, name, what in (
        ("first_frame", "first row, painted", "the frame that paints it"),
        ("app_row", "first row, the app", "React's own rows"),
    ):
        if label in b["warm"]:
            s = b["warm"][label]
            print(f"  {name:<20}{s['median_ms']:>8.0f}{s['max_ms']:>8.0f}  ({what})")
    app = b["warm"]["first_row"]["median_ms"]
    for label, floor in b.get("floors", {}).items():
        name = f"floor: {label}"
        ratio = app / max(floor["median_ms"], 0.1)
        print(
            f"  {name:<20}{floor['median_ms']:>8.0f}{floor['max_ms']:>8.0f}  (the app's first row: {ratio:.1f}x)"
        )
    print("  first row: drawn by the page's head script on a later tab, else by the app")
    print("  floor: no script, a page holding row 1; React, web/floor/ (the rows alone)")
    print("  API: the same request over HTTP; cold: the very first open (lint, conversations)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_ui", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 100,000-message session (1,000,000 without)")
    parser.add_argument(
        "--db",
        type=Path,
        help="keep the generated session in this file and reuse it on later runs (generating 1M"
        " messages takes about a minute); its cold figures are then those of a new server process",
    )
    parser.add_argument(
        "--static",
        type=Path,
        help="serve the UI built in this directory (a copy of an older `make web` output, to compare"
        " builds on the same data and load); the checkout's build without it",
    )
    args = parser.parse_args(argv)
    print_figures(run(args.quick, args.db, args.static))


if __name__ == "__main__":
    main()
