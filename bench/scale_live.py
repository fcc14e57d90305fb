"""`python -m bench.scale_live [--quick]`: a live session at 5,000 messages per second in Chromium.

A recorder in another process (the recorder's own row builder and `StoreWriter`, fed at a
controlled rate in small commits like a `wrap`'s writer thread) writes 5,000 msg/s for 20 s
(quick: 10 s) into a session open in Chromium's timeline at the tail (Follow on). The UI
server runs in a process of its own, so its RSS is its own. Sampled every 250 ms:

- how far behind the last rendered row is: the session's newest seq in the database minus
  the highest `data-seq` in the DOM (messages, and ms at the feed's rate);
- the UI server's RSS (start, peak, end; and 8 s after the session ended, once the page asked
  for its findings);
- after the feed stops: how long until the last row is shown.

From the page: the longest main-thread task (PerformanceObserver `longtask` and
`long-animation-frame`) against the 50 ms long-task threshold, and the longest once rows flow
(long tasks that started before the first push are listed apart: the page's own start, or the
recorder process starting on the same cores); from the websocket frames: the
events pushed per second and rows per push; from `/api/live/status`: behind markers sent.
`--profile` adds the three longest main-thread tasks by thread time (CPU), each broken down by
trace event: what a frame costs whatever the machine's load.
`--static DIR` serves another UI build (an old one kept aside, for alternating A/B runs).
Targets (the issue's, absolute): longest task < 50 ms, lag p95 < 1 s, RSS growth < 30 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

RATE = 5000
TARGET_TASK_MS = 50.0
TARGET_LAG_MS = 1000.0
TARGET_RSS_MB = 30.0
SETTLE_S = 8.0
# The first push as Playwright saw it comes after the page got it: a task starting up to this much
# earlier may be that push's render (it counts as the stream's).
PUSH_SLACK_MS = 250.0
CHROMIUM = "/usr/bin/chromium"

REQ = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool%d","arguments":{"n":%d}}}\n'
RESP = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer %d"}]}}\n'


def feed(db: str, sid: int, rate: int, seconds: float, commit_every: float = 0.01) -> int:
    """Write `rate` messages per second for `seconds` into session `sid` (a recorder's commits
    every `commit_every` s), then end the session; return the final seq."""
    from inspector.capture import MessageBuilder
    from inspector.store import open_engine
    from inspector.store.writer import StoreWriter

    engine = open_engine(db)
    writer = StoreWriter(engine)
    builder = MessageBuilder(sid)
    total = int(rate * seconds)
    start = time.monotonic()
    i = 0
    while builder.seq < total:
        due = min(total, int(rate * (time.monotonic() - start)) + 1)
        rows: list[Any] = []
        while builder.seq < due:
            i += 1
            ts = time.time_ns()
            rows += builder.feed(ts, "c2s", "stdin", REQ % (i, i % 7, i))
            if builder.seq < total:
                rows += builder.feed(ts + 1000, "s2c", "stdout", RESP % (i, i))
        if rows:
            writer.on_batch(rows, {})
        time.sleep(commit_every)
    writer.on_end(sid, 0, "fed", builder.facts.snapshot())
    writer.close()
    engine.dispose()
    return builder.seq


def feed_process(db: Path, sid: int, rate: int, seconds: float) -> subprocess.Popen[bytes]:
    """`feed` in a process of its own (a recorder is another process than the UI server)."""
    code = f"from bench.scale_live import feed; feed({str(db)!r}, {sid}, {rate}, {seconds})"
    return subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1])


UI_CODE = """
import sys
from pathlib import Path
from inspector.api import UiServer
from inspector.store import open_engine
kw = {"static_dir": Path(sys.argv[2])} if len(sys.argv) > 2 else {}
server = UiServer(open_engine(sys.argv[1]), port=0, **kw)
print(server.url("/"), flush=True)
server.run()
"""


def ui_process(db: Path, static: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """A UI server in its own process (serving the UI build in `static`, default the package's);
    its base URL with the token fragment."""
    proc = subprocess.Popen(
        [sys.executable, "-c", UI_CODE, str(db), *([str(static)] if static else [])],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().decode().strip()
    base = url.split("/#")[0]
    for _ in range(200):
        try:
            httpx.get(base + "/", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.05)
    return proc, url


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process used so far, with its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


OBSERVE = """
window.__longest = {longtask: 0, loaf: 0, tasks: 0};
for (const type of ['longtask', 'long-animation-frame']) {
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const k = type === 'longtask' ? 'longtask' : 'loaf';
        window.__longest[k] = Math.max(window.__longest[k], e.duration);
        if (type === 'longtask') {
          window.__longest.tasks++;
          // When each long task started: the page's own start vs the stream (see `stream`).
          const all = window.__longest.list || (window.__longest.list = []);
          if (all.length < 500) all.push([Math.round(e.startTime), Math.round(e.duration)]);
        }
        // The longest frames' scripts (what ran in them), for --json.
        if (k === 'loaf' && e.duration >= 50) {
          const top = window.__longest.frames || (window.__longest.frames = []);
          top.push({ms: Math.round(e.duration), render_ms: Math.round(e.duration - (e.renderStart ?
            e.renderStart - e.startTime : e.duration)), scripts: (e.scripts || []).map((x) =>
            `${x.invoker} ${x.sourceFunctionName || ''} ${Math.round(x.duration)} ms`)});
          top.sort((a, b) => b.ms - a.ms);
          top.length = Math.min(top.length, 5);
        }
      }
    }).observe({type, buffered: true});
  } catch (e) {}
}
"""

LAST_SEQ = """() => {
  let m = 0;
  for (const el of document.querySelectorAll('[data-testid=row]')) m = Math.max(m, +el.dataset.seq || 0);
  return m;
}"""


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def _top_js(profile: dict[str, Any], n: int = 12) -> list[tuple[str, float]]:
    """The functions with the most self time in a CDP CPU profile (ms)."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_ms: dict[str, float] = {}
    deltas = profile.get("timeDeltas", [])
    for sample, dt in zip(profile.get("samples", []), deltas, strict=False):
        frame = nodes[sample]["callFrame"]
        url = frame["url"].rsplit("/", 1)[-1]
        key = f"{frame['functionName'] or '(anon)'} {url}:{frame['lineNumber']}"
        self_ms[key] = self_ms.get(key, 0.0) + dt / 1000
    return sorted(self_ms.items(), key=lambda kv: -kv[1])[:n]


def _top_trace(trace: bytes, n: int = 12) -> dict[str, Any]:
    """The main-thread trace events with the most total time (ms), and the longest layouts."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    total: dict[str, float] = {}
    layouts: list[tuple[float, Any]] = []
    for e in events:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        total[e["name"]] = total.get(e["name"], 0.0) + e["dur"] / 1000
        if e["name"] in ("Layout", "UpdateLayoutTree"):
            layouts.append((e["dur"] / 1000, e.get("args", {}).get("beginData", e.get("args"))))
    layouts.sort(key=lambda x: -x[0])

    # The longest main-thread tasks by thread time (CPU: what a frame costs whatever the load), each
    # with the thread time of what ran in it (self time by name).
    def cpu(e: dict[str, Any]) -> float:
        return float(e.get("tdur", e["dur"]))

    timed = [e for e in events if e.get("ph") == "X" and "dur" in e]
    main = [e for e in timed if e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask")]
    renderers = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    tid = max(
        {(e["pid"], e["tid"]) for e in main} & renderers,
        key=lambda k: sum(cpu(e) for e in main if (e["pid"], e["tid"]) == k),
        default=None,
    )
    mine = [e for e in main if (e["pid"], e["tid"]) == tid]
    tasks = sorted(mine, key=lambda e: -cpu(e))[:3]
    inner = sorted(
        (e for e in timed if (e.get("pid"), e.get("tid")) == tid), key=lambda e: (e["ts"], -e["dur"])
    )
    longest: list[dict[str, Any]] = []
    for task in tasks:
        t0, t1 = task["ts"], task["ts"] + task["dur"]
        self_ms: dict[str, float] = {}
        stack: list[dict[str, Any]] = []
        for e in inner:  # self time: an event's thread time less its direct children's
            if (
                not (t0 <= e["ts"] and e["ts"] + e["dur"] <= t1)
                or e is task
                or e["name"] in ("RunTask", "ThreadControllerImpl::RunTask")
            ):
                continue
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack:
                self_ms[stack[-1]["name"]] = self_ms.get(stack[-1]["name"], 0.0) - cpu(e) / 1000
            self_ms[e["name"]] = self_ms.get(e["name"], 0.0) + cpu(e) / 1000
            stack.append(e)
        top = sorted(self_ms.items(), key=lambda kv: -kv[1])[:8]
        longest.append(
            {
                "wall_ms": round(task["dur"] / 1000, 1),
                "cpu_ms": round(cpu(task) / 1000, 1),
                "self_cpu_ms": [(k, round(v, 1)) for k, v in top],
            }
        )
    cpus = sorted((cpu(e) / 1000 for e in mine), reverse=True)
    return {
        "longest_tasks": longest,
        "tasks_over_50ms_cpu": sum(1 for c in cpus if c >= 50),
        "task_cpu_p99_ms": round(cpus[len(cpus) // 100], 1) if cpus else None,
        "by_name": sorted(((k, round(v, 1)) for k, v in total.items()), key=lambda kv: -kv[1])[:n],
        "longest_layouts": [(round(ms, 1), str(data)[:200]) for ms, data in layouts[:4]],
    }


def stream(rate: int, seconds: float, *, profile: bool = False, static: Path | None = None) -> dict[str, Any]:
    """One run: the feed into a session open at the tail; the figures."""
    from playwright.sync_api import WebSocket, expect, sync_playwright

    from bench.ui_bench import CHROMIUM_ARGS
    from inspector.capture.sessions import create_session
    from inspector.store import open_engine

    tmp = Path(tempfile.mkdtemp(prefix="scale-live-"))
    db = tmp / "live.db"
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["flooding-server"], name="flood")
    engine.dispose()
    ui, url = ui_process(db, static)
    raw = sqlite3.connect(db)
    frames: list[tuple[float, int]] = []  # (time, rows) of each `messages` frame
    markers = 0

    def on_frame(payload: str | bytes) -> None:
        nonlocal markers
        text = payload if isinstance(payload, str) else payload.decode()
        if text.startswith('{"type":"messages"'):
            frames.append((time.monotonic(), len(json.loads(text)["items"])))
        elif '"type":"behind"' in text[:20]:
            markers += 1

    requests: dict[str, int] = {}

    def on_request(request: Any) -> None:
        path = request.url.split("?")[0].split("/api/", 1)[-1]
        key = "/".join("N" if part.isdigit() else part for part in path.split("/"))
        if streaming:
            requests[key] = requests.get(key, 0) + 1

    streaming = False

    def on_ws(ws: WebSocket) -> None:
        ws.on("framereceived", on_frame)

    figures: dict[str, Any] = {"rate": rate, "seconds": seconds}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            page.add_init_script(OBSERVE)
            page.on("websocket", on_ws)
            page.on("request", on_request)
            page.goto(url.replace("/#", f"/sessions/{sid}#"))
            expect(page.get_by_test_id("follow")).to_be_checked(timeout=30_000)
            time.sleep(1.0)  # the websocket subscribes
            rss = [rss_mb(ui.pid)]
            ui_cpu = cpu_s(ui.pid)
            cdp = None
            if profile:
                browser.start_tracing(page=page, categories=["devtools.timeline", "toplevel"])
                cdp = page.context.new_cdp_session(page)
                cdp.send("Profiler.enable")
                cdp.send("Profiler.start")
            feeder = feed_process(db, sid, rate, seconds)
            streaming = True
            lag_msgs: list[float] = []
            lag_ms: list[float] = []
            # Only what happens while streaming counts (not the page's own load).
            page_start = page.evaluate(
                "window.__longest = {longtask: 0, loaf: 0, tasks: 0}, performance.now()"
            )
            start = time.monotonic()
            while feeder.poll() is None:
                newest = raw.execute("SELECT max(seq) FROM message WHERE session_id = ?", (sid,)).fetchone()[
                    0
                ]
                shown = page.evaluate(LAST_SEQ)
                now_ns = time.time_ns()
                if newest:
                    lag_msgs.append(max(0, newest - shown))
                    # ms: since the newest row written when the sample was taken was written.
                    at = raw.execute(
                        "SELECT ts_ns FROM message WHERE session_id = ? AND seq = ?", (sid, max(shown, 1))
                    ).fetchone()
                    if at and shown < newest:
                        lag_ms.append((now_ns - at[0]) / 1e6)
                    elif at:
                        lag_ms.append(0.0)
                rss.append(rss_mb(ui.pid))
                time.sleep(0.25)
            fed_s = time.monotonic() - start
            ui_cpu = cpu_s(ui.pid) - ui_cpu
            if cdp is not None:
                figures["js_self_ms"] = _top_js(cdp.send("Profiler.stop")["profile"])
                figures["trace_ms"] = _top_trace(browser.stop_tracing())
            streaming = False
            final = raw.execute("SELECT max(seq) FROM message WHERE session_id = ?", (sid,)).fetchone()[0]
            t = time.monotonic()
            caught_up = None
            while time.monotonic() - t < 30:
                if page.evaluate(LAST_SEQ) >= final:
                    caught_up = time.monotonic() - t
                    break
                time.sleep(0.05)
            rss.append(rss_mb(ui.pid))
            # After the session ended the page asks for its findings (the whole session linted):
            # the RSS once that is done and the server is idle again.
            time.sleep(SETTLE_S)
            rss_settled = rss_mb(ui.pid)
            longest = page.evaluate("window.__longest")
            status = httpx.get(
                url.split("/#")[0] + "/api/live/status",
                headers={"authorization": f"Bearer {url.split('#token=')[1]}"},
            ).json()
            browser.close()
    finally:
        ui.terminate()
        try:
            ui.wait(10)
        except subprocess.TimeoutExpired:
            ui.kill()
            ui.wait()
        raw.close()
    assert ui.stdout is not None
    said = ui.stdout.read().decode().strip()
    if said:
        figures["ui_said"] = said[-2000:]
    # Long tasks by when they started, in ms since the feed started: a task that started before
    # (the page's own start, reported late) is not the stream's; nor is one before the first push
    # (the recorder process starting up on the same cores). The stream's longest is the figure.
    first_push = (frames[0][0] - start) * 1000 if frames else 0.0
    tasks = [(t - page_start, ms) for t, ms in longest.get("list", [])]
    streaming_tasks = [ms for t, ms in tasks if t >= first_push - PUSH_SLACK_MS]
    pushes = len(frames)
    span = (frames[-1][0] - frames[0][0]) if pushes > 1 else fed_s
    rows_pushed = sum(n for _, n in frames)
    figures.update(
        final_seq=final,
        fed_s=round(fed_s, 2),
        lag_msgs_median=statistics.median(lag_msgs) if lag_msgs else None,
        lag_msgs_p95=_pct(lag_msgs, 0.95),
        lag_msgs_max=max(lag_msgs, default=0),
        lag_ms_p95=round(_pct(lag_ms, 0.95), 1),
        lag_ms_max=round(max(lag_ms, default=0), 1),
        caught_up_s=None if caught_up is None else round(caught_up, 2),
        longest_task_ms=round(longest["longtask"], 1),
        longest_frame_ms=round(longest["loaf"], 1),
        longest_streaming_task_ms=max(streaming_tasks, default=0),
        long_streaming_tasks=len(streaming_tasks),
        long_tasks_before_first_push=[(round(t), ms) for t, ms in tasks if t < first_push - PUSH_SLACK_MS],
        first_push_ms=round(first_push),
        long_task_times=[(round(t), ms) for t, ms in tasks],
        long_tasks=longest["tasks"],
        longest_frames=longest.get("frames", []),
        rss_start_mb=round(rss[0], 1),
        rss_peak_mb=round(max(rss), 1),
        rss_end_mb=round(rss[-1], 1),
        rss_settled_mb=round(rss_settled, 1),
        rss_series_mb=[round(rss[int(k * (len(rss) - 1) / 7)]) for k in range(8)],
        pushes_per_s=round(pushes / span, 1) if span else None,
        rows_per_push=round(rows_pushed / pushes, 1) if pushes else None,
        rows_pushed=rows_pushed,
        behind_markers=markers,
        ui_cpu_s=round(ui_cpu, 2),
        requests_while_streaming=requests,
        status=status,
    )
    return figures


def run(quick: bool) -> dict[str, Any]:
    return stream(RATE, 10.0 if quick else 20.0)


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


def print_figures(figures: dict[str, Any]) -> None:
    f = figures
    print(f"live tail: {f['rate']:,} msg/s for {f['seconds']:.0f} s into an open timeline")
    print(f"  fed {f['final_seq']:,} messages in {f['fed_s']} s; caught up {f['caught_up_s']} s after")
    lag_ok = f["lag_ms_p95"] < TARGET_LAG_MS
    print(
        f"  lag, last row  p95 {f['lag_msgs_p95']:>6,.0f} msgs {f['lag_ms_p95']:>6.0f} ms"
        f" (max {f['lag_ms_max']:.0f}) target < {TARGET_LAG_MS:.0f} ms {_mark(lag_ok)}"
    )
    task_ok = f["longest_task_ms"] < TARGET_TASK_MS
    print(
        f"  longest task     {f['longest_task_ms']:>7.1f} ms ({f['long_tasks']} long)"
        f"{'':10}target < {TARGET_TASK_MS:.0f} ms  {_mark(task_ok)}"
    )
    stream_ok = f["longest_streaming_task_ms"] < TARGET_TASK_MS
    print(
        f"  longest task once rows flow {f['longest_streaming_task_ms']:>5.0f} ms ({f['long_streaming_tasks']} long)"
        f"  target < {TARGET_TASK_MS:.0f} ms  {_mark(stream_ok)}"
    )
    print(
        f"    before the first push ({f['first_push_ms']} ms in), [start ms, ms]:"
        f" {f['long_tasks_before_first_push'][:6]}"
    )
    print(f"  longest frame    {f['longest_frame_ms']:>7.1f} ms (long-animation-frame)")
    growth = f["rss_peak_mb"] - f["rss_start_mb"]
    print(
        f"  UI server RSS    start {f['rss_start_mb']:.0f} peak {f['rss_peak_mb']:.0f}"
        f" end {f['rss_end_mb']:.0f} MB  +{growth:.0f}  target < +{TARGET_RSS_MB:.0f} MB"
        f"  {_mark(growth < TARGET_RSS_MB)}"
    )
    print(f"  RSS over the run {' '.join(str(v) for v in f['rss_series_mb'])} MB")
    print(
        f"  RSS {SETTLE_S:.0f} s after the end {f['rss_settled_mb']:.0f} MB"
        f" (+{f['rss_settled_mb'] - f['rss_start_mb']:.0f}; the session's findings asked meanwhile)"
    )
    if "trace_ms" in f:
        for task in f["trace_ms"]["longest_tasks"]:
            parts = ", ".join(f"{k} {v}" for k, v in task["self_cpu_ms"][:4])
            print(f"  task {task['wall_ms']:>6} ms wall {task['cpu_ms']:>5} ms CPU: {parts}"[:80])
    print(
        f"  pushes           {f['pushes_per_s']}/s, {f['rows_per_push']} rows each;"
        f" behind markers {f['behind_markers']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 s instead of 20 s")
    parser.add_argument("--rate", type=int, default=RATE, help="messages per second (default 5000)")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--profile", action="store_true", help="a CPU profile of the page while streaming")
    parser.add_argument(
        "--static", type=Path, default=None, help="serve this UI build (A/B against an old one)"
    )
    args = parser.parse_args()
    seconds = args.seconds if args.seconds is not None else (10.0 if args.quick else 20.0)
    figures = stream(args.rate, seconds, profile=args.profile, static=args.static)
    print_figures(figures)
    if args.json:
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
