"""`python -m bench`: stdio latency, throughput, memory and completeness of `mcp-inspect wrap`, and HTTP.

Every figure is a ratio against baselines measured in the same run:
"direct" (the bench spawns the server itself), "socat" (`socat - EXEC:SERVER`,
a C relay: the floor of one extra process hop), "tee" (bench/tee_relay.py, a
Python relay with one blocking read/write thread per stream that appends
copies of both directions to files: the baseline the ratios use) and, for
reference, "tee1" (a shell pipeline `tee c2s.bin | SERVER | tee s2c.bin`).
bench/startup.py times spawn -> first answer (direct, socat, wrap).
See bench/stdio_latency.py and bench/stdio_flood.py for what exactly is
timed, bench/stages.py for the in-process cost breakdown of the recorder.
The "http" section (bench/http_bench.py) times tools/call round trips over
Streamable HTTP, direct vs `mcp-inspect proxy` vs nginx as a reverse proxy
(the floor of one extra HTTP hop) vs `mitmdump --mode reverse` (mitmproxy is
installed into bench/.venv-mitm on first use). The "stores" section
(bench/store_backends.py) puts SQLite beside PostgreSQL: recording throughput,
wrap and proxy latency with each store. The "storage" section (bench/storage_bench.py):
bytes stored per byte seen over repeated real-server sessions, and the writer's throughput,
with large bodies compressed and stored once vs as before.
The "scale" section (bench/scale_*.py, issue 21): API pages, full-text search, lint and
diff, the timeline in Chromium and the live tail of a 1,000,000-message session (100,000
with --quick), each figure beside a baseline taken in the same run (the raw query in plain
sqlite3, reading the rows) and the issue's target.
Results go to stdout and to bench/results/latest.json. Missed targets are
printed as MISSED and do not change the exit status, which is 0 unless a
part of the bench itself failed (then 1, and the other parts still run).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from bench import http_setups, peer
from bench.http_bench import run_http
from bench.intercept_latency import print_intercept, run_intercept_latency
from bench.peer import BENCH_DIR, SERVER_EVERYTHING, SETUPS, workdir
from bench.report import evaluate, print_report
from bench.stages import run_stages
from bench.startup import run_startup
from bench.stdio_flood import run_flood
from bench.stdio_latency import run_latency

SECTIONS = ("startup", "latency", "intercept", "flood", "stages", "http", "stores", "storage", "scale")
# The "scale" section (issue 21): browsing a 1,000,000-message session (100,000 with --quick). Each
# part is its own module bench/scale_<part>.py with `run(quick) -> dict` and `print_figures(dict)`.
SCALE_PARTS = ("pages", "search", "lint", "ui", "live", "stats")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a fast sanity run (small counts)")
    p.add_argument("--pings", type=int, help="measured pings per setup (default 2000; quick 300)")
    p.add_argument("--warmup", type=int, help="warm-up pings per setup (default 500; quick 100)")
    p.add_argument(
        "--rounds", type=int, help="interleaved rounds the measured pings are split into (default 10)"
    )
    p.add_argument(
        "--flood",
        type=int,
        help="flood messages per setup, both directions counted (default 200000; quick 20000)",
    )
    p.add_argument(
        "--scale-parts",
        help=f"comma-separated parts of the scale section: {','.join(SCALE_PARTS)} (default: all)",
    )
    p.add_argument("--million", action="store_true", help="also a long wrapped flood for memory flatness")
    p.add_argument(
        "--million-messages",
        type=int,
        default=1_000_000,
        help="messages of the --million run (default 1000000)",
    )
    p.add_argument(
        "--stage-messages",
        type=int,
        help="messages of the in-process stage timing (default 30000, best of 3)",
    )
    p.add_argument(
        "--startup-runs",
        type=int,
        help="spawns per setup of the startup section (default 15; quick 5); its commands run at most "
        "this many times (default 5)",
    )
    p.add_argument(
        "--no-commands",
        action="store_true",
        help="skip the start-up section's commands (--help, the read commands, call): wrap's start-up only",
    )
    p.add_argument("--only", help=f"comma-separated sections to run: {','.join(SECTIONS)} (default: all)")
    p.add_argument(
        "--pin",
        type=int,
        default=min(os.sched_getaffinity(0)),
        help="CPU for the second, pinned latency run (default: the first allowed CPU)",
    )
    p.add_argument(
        "--no-pin", dest="pin", action="store_const", const=None, help="skip the pinned latency run"
    )
    p.add_argument(
        "--wrap-prefix",
        default=None,
        help="command that starts the shim, instead of 'PYTHON -m inspector wrap' (e.g. a patched copy); "
        "'--db PATH --quiet -- SERVER' is appended",
    )
    h = p.add_argument_group("http section")
    h.add_argument(
        "--http-calls", type=int, help="measured echo calls per setup and mode (default 1000; quick 200)"
    )
    h.add_argument(
        "--http-warmup", type=int, help="warm-up echo calls per setup and mode (default 200; quick 50)"
    )
    h.add_argument(
        "--http-rounds", type=int, help="interleaved rounds of the measured calls (default 10; quick 4)"
    )
    h.add_argument(
        "--http-clients", type=int, default=8, help="concurrent clients of the throughput run (default 8)"
    )
    h.add_argument(
        "--http-client-calls",
        type=int,
        help="echo calls per concurrent client (default 200; quick 40)",
    )
    h.add_argument(
        "--http-streams", type=int, help="SSE streams per setup for the event latency (default 10; quick 3)"
    )
    h.add_argument("--http-stream-events", type=int, default=20, help="events per SSE stream (default 20)")
    h.add_argument(
        "--http-stream-interval-ms",
        type=float,
        default=5.0,
        help="ms between the events of a stream (default 5)",
    )
    h.add_argument("--no-mitm", action="store_true", help="skip the mitmdump column (and its install)")
    h.add_argument(
        "--no-nginx", action="store_true", help="skip the nginx column (the floor of one HTTP hop)"
    )
    h.add_argument(
        "--no-intercept-setups",
        action="store_true",
        help="skip the two proxies with --faults (a rule that never matches; delay 0 on every message)",
    )
    h.add_argument(
        "--proxy-prefix",
        default=None,
        help="command that starts the proxy, instead of 'PYTHON -m inspector proxy' (e.g. a patched copy); "
        "'--target URL --listen 127.0.0.1:0 --db PATH' is appended",
    )
    h.add_argument(
        "--compare-prefix",
        default=None,
        help="also measure a second proxy started by this command (setup 'proxy_b', e.g. the code before a "
        "change), in the same interleaved rounds",
    )
    p.add_argument("--traceback", action="store_true", help="print the traceback of a failed part")
    p.add_argument(
        "--json", type=Path, default=BENCH_DIR / "results" / "latest.json", help="where to write JSON"
    )
    args = p.parse_args(argv)
    q = args.quick
    args.pings = args.pings or (300 if q else 2000)
    args.warmup = args.warmup if args.warmup is not None else (100 if q else 500)
    args.rounds = args.rounds or (3 if q else 10)
    args.flood = args.flood or (20_000 if q else 200_000)
    args.startup_runs = args.startup_runs or (5 if q else 15)
    args.stage_messages = args.stage_messages or (10_000 if q else 30_000)
    args.http_calls = args.http_calls or (200 if q else 1000)
    args.http_warmup = args.http_warmup if args.http_warmup is not None else (50 if q else 200)
    args.http_rounds = args.http_rounds or (4 if q else 10)
    args.http_client_calls = args.http_client_calls or (40 if q else 200)
    args.http_streams = args.http_streams or (3 if q else 10)
    args.scale_parts = [x for x in (args.scale_parts or ",".join(SCALE_PARTS)).split(",") if x]
    bad = set(args.scale_parts) - set(SCALE_PARTS)
    if bad:
        p.error(f"unknown scale parts: {', '.join(sorted(bad))}")
    args.only = set(args.only.split(",")) if args.only else set(SECTIONS)
    unknown = args.only - set(SECTIONS)
    if unknown:
        p.error(f"unknown sections: {', '.join(sorted(unknown))}")
    return args


def environment() -> dict[str, Any]:
    try:
        node = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except OSError:
        node = "not found"
    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "node": node,
        "loadavg_start": _loadavg(),
    }


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.wrap_prefix:
        peer.WRAP_PREFIX[:] = shlex.split(args.wrap_prefix)
    if args.proxy_prefix:
        http_setups.PROXY_PREFIX[:] = shlex.split(args.proxy_prefix)
    if args.compare_prefix:
        http_setups.COMPARE_PREFIX[:] = shlex.split(args.compare_prefix)
    if args.no_intercept_setups:
        http_setups.INTERCEPT_SETUPS.clear()
    console = Console(width=None if sys.stdout.isatty() else 160)
    started = time.perf_counter()
    results: dict[str, Any] = {
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "config": {
            k: (sorted(v) if isinstance(v, set) else str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
        },
        "env": environment(),
    }
    errors: dict[str, str] = {}
    results["errors"] = errors

    def section(key: str, status: str, fn: Callable[[Path], Any]) -> Any:
        """Run one part; a failure is recorded and printed, and the other parts still run."""
        try:
            with console.status(status), workdir(key) as d:
                return fn(Path(d))
        except Exception as exc:  # the program under test may crash: report it, measure the rest
            errors[key] = f"{type(exc).__name__}: {exc}"
            console.print(f"[bold red]{key} failed:[/bold red] {errors[key]}")
            if args.traceback:
                console.print_exception()
            return None

    if "startup" in args.only:
        st = section(
            "startup",
            "startup: spawn -> first answer, direct / socat / wrap ...",
            lambda d: run_startup(d, args.startup_runs, commands=not args.no_commands),
        )
        if st:
            results["startup"] = st
    if "latency" in args.only:
        if not SERVER_EVERYTHING.exists():
            console.print(f"[red]{SERVER_EVERYTHING} is missing: run `make peers` first[/red]")
            return 2
        lat = section(
            "latency",
            "latency: pinging server-everything through every setup ...",
            lambda d: run_latency(d, args.pings, args.warmup, args.rounds),
        )
        if lat:
            results["latency"] = lat
        if args.pin is not None:
            lat = section(
                "latency_1cpu",
                f"latency: the same, everything on CPU {args.pin} ...",
                lambda d: run_latency(d, args.pings, args.warmup, args.rounds, pin=args.pin),
            )
            if lat:
                results["latency_1cpu"] = lat
    if "intercept" in args.only and SERVER_EVERYTHING.exists():
        ic = section(
            "intercept",
            "intercept: wrap / wrap --faults (idle rule, delay 0) side by side ...",
            lambda d: run_intercept_latency(d, args.pings, args.warmup, args.rounds),
        )
        if ic:
            results["intercept"] = ic
    if "flood" in args.only:
        requests = max(1, args.flood // 2)
        flood = {}
        for setup in SETUPS:
            r = section(
                "flood" if setup == "wrap" else f"flood_{setup}",
                f"flood: {2 * requests:,} messages through {setup} ...",
                lambda d, setup=setup: run_flood(setup, requests, d),
            )
            if r:
                flood[setup] = r
        if flood:
            results["flood"] = flood
    if args.million:
        requests = max(1, args.million_messages // 2)
        r = section(
            "million",
            f"million: {2 * requests:,} messages through wrap ...",
            lambda d: run_flood("wrap", requests, d, sample_interval=0.1),
        )
        if r:
            results["million"] = {"wrap": r}
    if "stages" in args.only:
        st = section(
            "stages",
            "stages: timing the recorder's pieces in-process ...",
            lambda d: run_stages(max(1, args.stage_messages // 2), d),
        )
        if st:
            results["stages"] = st
    if "http" in args.only:
        # mitmproxy's first-use install prints progress, so it runs before the spinner starts
        if not args.no_mitm:
            from bench.http_mitm import ensure_mitmdump

            ensure_mitmdump(lambda text: console.print(f"[dim]{text}[/dim]"))
        http = section(
            "http",
            "http: tools/call round trips direct / proxy / nginx / mitmdump, JSON and SSE responses ...",
            lambda d: run_http(
                d,
                calls=args.http_calls,
                warmup=args.http_warmup,
                rounds=args.http_rounds,
                clients=args.http_clients,
                client_calls=args.http_client_calls,
                streams=args.http_streams,
                stream_events=args.http_stream_events,
                interval_ms=args.http_stream_interval_ms,
                mitm=not args.no_mitm,
                nginx=not args.no_nginx,
                say=lambda text: console.log(text),
            ),
        )
        if http:
            results["http"] = http
    if "stores" in args.only:
        from bench.store_backends import print_stores, run_stores

        stores = section(
            "stores", "stores: SQLite beside PostgreSQL (throughput, wrap, proxy) ...", lambda d: run_stores()
        )
        if stores:
            results["stores"] = stores
    if "storage" in args.only:
        from bench.storage_bench import run_storage

        storage = section(
            "storage",
            "storage: repeated real-server sessions, large bodies compressed vs not ...",
            lambda d: run_storage(d, starts=2 if args.quick else 5),
        )
        if storage:
            results["storage"] = storage
    if "scale" in args.only:
        scale = {}
        for part in args.scale_parts:
            module = importlib.import_module(f"bench.scale_{part}")
            r = section(
                f"scale_{part}",
                f"scale: {part} ({'100,000' if args.quick else '1,000,000'} messages) ...",
                lambda d, module=module: module.run(args.quick),
            )
            if r:
                scale[part] = r
        if scale:
            results["scale"] = scale
    results["env"]["loadavg_end"] = _loadavg()
    results["targets"] = evaluate(results)
    results["seconds"] = time.perf_counter() - started
    results["json_path"] = str(args.json)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2))
    print_report(results, console)
    if results.get("intercept"):
        print_intercept(console, results["intercept"])
    if results.get("stores"):
        print_stores(results["stores"], console.print)
    if results.get("storage"):
        from bench.storage_bench import print_storage

        print_storage(results["storage"], console.print)
    for part, figures in results.get("scale", {}).items():
        importlib.import_module(f"bench.scale_{part}").print_figures(figures)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
