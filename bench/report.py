"""Targets and printing: Rich tables of the figures, and each target with MET / MISSED."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from bench.peer import LABELS

LATENCY_RATIO_TARGET = 1.15  # wrapped/direct p50
THROUGHPUT_TARGET = 50_000  # messages/s through the shim, recording on
RSS_TARGET_MB = 150.0

LATENCY_RUNS = (
    ("latency", "CPUs as the scheduler places them"),
    ("latency_1cpu", "everything pinned to one CPU"),
)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _f(value: float | None, fmt: str = "{:.1f}") -> str:
    return "n/a" if value is None else fmt.format(value)


def _target(name: str, wanted: str, actual: str, met: bool) -> dict[str, Any]:
    return {"name": name, "target": wanted, "actual": actual, "met": bool(met)}


def evaluate(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets and whether each was met (information only: the bench exits 0 either way)."""
    targets: list[dict[str, Any]] = []
    errors = results.get("errors", {})
    for key, where in LATENCY_RUNS:
        if key in errors:
            targets.append(_target(f"latency ({where})", "measured", "ERROR: " + errors[key][:60], False))
        lat = results.get(key)
        if not lat:
            continue
        s = lat["setups"]
        ratio = _ratio(s["wrap"]["p50_us"], s["direct"]["p50_us"])
        vs_tee = _ratio(s["wrap"]["p50_us"], s["tee"]["p50_us"])
        targets.append(
            _target(
                f"latency: wrapped/direct p50, {where}",
                f"<= {LATENCY_RATIO_TARGET:.2f}x",
                f"{_f(ratio, '{:.2f}x')} (wrapped/tee {_f(vs_tee, '{:.2f}x')})",
                ratio is not None and ratio <= LATENCY_RATIO_TARGET,
            )
        )
        targets.append(_complete(f"completeness: latency run, {where}", lat["db"]))
    for key in ("flood", "million"):
        if key in errors:
            targets.append(_target(f"{key} run", "measured", "ERROR: " + errors[key][:60], False))
        run = results.get(key)
        if not run or "wrap" not in run:
            continue
        wrap = run["wrap"]
        if key == "flood":
            rate = wrap["msgs_per_s_to_exit"]
            targets.append(
                _target(
                    "throughput: shim with recording (first request -> all rows committed)",
                    f">= {THROUGHPUT_TARGET:,} msg/s",
                    f"{rate:,.0f} msg/s",
                    rate >= THROUGHPUT_TARGET,
                )
            )
        peak = wrap.get("peak_rss_mb")
        growth = _growth(wrap)
        targets.append(
            _target(
                f"memory: shim peak RSS, {key} run ({wrap['messages']:,} msgs)",
                f"< {RSS_TARGET_MB:.0f} MB",
                f"{_f(peak)} MB"
                + (f" (RSS 25%->75% of the run: {growth:+.1f} MB)" if growth is not None else ""),
                peak is not None and peak < RSS_TARGET_MB,
            )
        )
        targets.append(_complete(f"completeness: {key} run", wrap["db"]))
    if "stages" in errors:
        targets.append(_target("stages", "measured", "ERROR: " + errors["stages"][:60], False))
    return targets


def _growth(run: dict[str, Any]) -> float | None:
    timeline = {p["at"]: p["rss_mb"] for p in run.get("rss_mb_timeline", [])}
    if 0.25 in timeline and 0.75 in timeline:
        return timeline[0.75] - timeline[0.25]
    return None


def _complete(name: str, db: dict[str, Any]) -> dict[str, Any]:
    ok = db["ok"] and db.get("bytes_ok", True) and db["status"] == "ended"
    if db["missing"] == 0:
        actual = f"OK ({db['rows']:,} rows)"
    elif db["missing"] > 0:
        actual = f"MISSING {db['missing']:,} of {db['expected']:,}"
    else:
        actual = f"EXTRA {-db['missing']:,} rows ({db['rows']:,} for {db['expected']:,})"
    if db.get("bytes_ok") is False:
        actual += ", bytes differ"
    if db["status"] != "ended":
        actual += f", session {db['status']}"
    return _target(name + " (wrap: DB rows)", "rows == sent + received", actual, ok)


def print_report(results: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    env = results["env"]
    console.print(
        f"[bold]mcp-inspector stdio bench[/bold]  {env['cpus']} CPUs, Python {env['python']}, "
        f"node {env['node']}, load average at start {env['loadavg_start']}, at end {env.get('loadavg_end')}"
    )
    console.print(
        "Setups: direct = the bench spawns the server; tee(1) pipeline = sh -c 'tee c2s | SERVER | tee s2c'; "
        "tee relay (py) = bench/tee_relay.py,\none Python thread per stream with blocking os.read/os.write, "
        "appending copies to files; mcp-inspect wrap = the shim, recording into a temporary SQLite file."
    )
    for key, where in LATENCY_RUNS:
        lat = results.get(key)
        if lat:
            _latency_table(console, lat, where)
    if results.get("flood"):
        _flood_table(
            console,
            "2./3. Throughput and memory: pipelined ping flood to bench/responder.py",
            results["flood"],
        )
    if results.get("million"):
        _flood_table(console, "3. Memory, long run", results["million"])
    if results.get("stages"):
        _stages_table(console, results["stages"])
    for key, text in results.get("errors", {}).items():
        console.print(f"[bold red]ERROR in {key}:[/bold red] {text}")
    t = Table(title="Targets (information only; the bench exits 0 either way)", title_justify="left")
    for col in ("target", "wanted", "measured", "result"):
        t.add_column(col)
    for tg in results["targets"]:
        t.add_row(
            tg["name"],
            tg["target"],
            tg["actual"],
            "[green]MET[/green]" if tg["met"] else "[bold red]MISSED[/bold red]",
        )
    console.print(t)
    console.print(f"JSON: {results['json_path']}  ({results['seconds']:.0f} s in all)")


def _latency_table(console: Console, lat: dict[str, Any], where: str) -> None:
    s = lat["setups"]
    t = Table(
        title=f"1. Latency, {where}: {lat['pings']:,} sequential pings per setup to server-everything over stdio, "
        f"after {lat['warmup']} warm-up, in {lat['rounds']} interleaved rounds",
        title_justify="left",
    )
    for col in (
        "setup",
        "p50 us",
        "p90 us",
        "p99 us",
        "mean us",
        "min us",
        "p50/direct",
        "p99/direct",
        "RSS MB",
    ):
        t.add_column(col, justify="right" if col != "setup" else "left")
    for name, r in s.items():
        t.add_row(
            LABELS[name],
            _f(r["p50_us"]),
            _f(r["p90_us"]),
            _f(r["p99_us"]),
            _f(r["mean_us"]),
            _f(r["min_us"]),
            _f(_ratio(r["p50_us"], s["direct"]["p50_us"]), "{:.2f}x"),
            _f(_ratio(r["p99_us"], s["direct"]["p99_us"]), "{:.2f}x"),
            _f(r.get("peak_rss_mb")),
        )
    console.print(t)
    w, d, tee = s["wrap"], s["direct"], s["tee"]
    console.print(
        f"   wrapped/direct p50 {_f(_ratio(w['p50_us'], d['p50_us']), '{:.2f}x')}, "
        f"p99 {_f(_ratio(w['p99_us'], d['p99_us']), '{:.2f}x')};  "
        f"wrapped/tee p50 {_f(_ratio(w['p50_us'], tee['p50_us']), '{:.2f}x')}, "
        f"p99 {_f(_ratio(w['p99_us'], tee['p99_us']), '{:.2f}x')};  "
        f"wrapped-tee p50 {w['p50_us'] - tee['p50_us']:+.1f} us"
    )


def _flood_table(console: Console, title: str, run: dict[str, Any]) -> None:
    first = next(iter(run.values()))
    t = Table(
        title=f"{title}: {first['requests']:,} requests + {first['requests']:,} responses "
        f"= {first['messages']:,} messages (both directions counted)",
        title_justify="left",
    )
    for col in (
        "setup",
        "msg/s to last response",
        "msg/s to exit",
        "/direct",
        "EOF->exit s",
        "CPU us/msg",
        "peak RSS MB",
        "RSS MB 0/25/50/75/100%",
        "checks",
    ):
        t.add_column(col, justify="left" if col in ("setup", "checks") else "right")
    direct = run.get("direct")
    for name, r in run.items():
        checks = []
        if direct and name != "direct":
            same = r["response_digest"] == direct["response_digest"]
            checks.append("same bytes" if same else "[red]BYTES DIFFER[/red]")
        if "tee_files_ok" in r:
            checks.append("files OK" if r["tee_files_ok"] else "[red]files short[/red]")
        if "db" in r:
            db = r["db"]
            ok = db["ok"] and db.get("bytes_ok")
            checks.append(f"DB OK {db['rows']:,} rows" if ok else f"[red]DB MISSING {db['missing']:,}[/red]")
        if r.get("exit_code"):
            checks.append(f"[red]exit {r['exit_code']}[/red]")
        timeline = "/".join(f"{p['rss_mb']:.0f}" for p in r.get("rss_mb_timeline", []))
        t.add_row(
            LABELS[name],
            f"{r['msgs_per_s']:,.0f}",
            f"{r['msgs_per_s_to_exit']:,.0f}",
            _f(_ratio(r["msgs_per_s_to_exit"], direct["msgs_per_s_to_exit"]) if direct else None, "{:.3f}x"),
            f"{r['close_to_exit_s']:.2f}",
            _f(r.get("cpu_us_per_msg") or None),
            _f(r.get("peak_rss_mb")),
            timeline or "-",
            ", ".join(checks) or "-",
        )
    console.print(t)
    console.print(
        "   'to last response': first request written -> last response read by the client. 'to exit': -> the "
        "program exited after the client's EOF,\n   i.e. for the shim every row committed: the sustained rate "
        "with recording (the shim may queue captured chunks, so forwarding can run ahead of recording)."
    )


_STAGES = (
    ("framing", "LineFramer.feed"),
    ("classify", "jsonrpc.classify"),
    ("correlate", "Correlator.observe"),
    ("facts", "SessionFacts.observe"),
    ("builder", "MessageBuilder.feed: all of the above + building the row dict"),
    ("store", "SessionWriter.on_batch: SQLAlchemy Core executemany into SQLite, 5000-row batches"),
    ("recorder", "Recorder thread end to end: queue + builder + store"),
)


def _stages_table(console: Console, stages: dict[str, Any]) -> None:
    t = Table(
        title=f"Recorder cost per message, in-process ({stages['messages']:,} flood messages in ~64 KB chunks, "
        f"best of {stages.get('repeat', 1)})",
        title_justify="left",
    )
    t.add_column("stage")
    t.add_column("us/msg", justify="right")
    t.add_column("share of recorder", justify="right")
    t.add_column("what")
    total = stages.get("recorder")
    for key, what in _STAGES:
        if key in stages:
            t.add_row(key, _f(stages[key], "{:.2f}"), _f(_ratio(stages[key], total), "{:.0%}"), what)
    console.print(t)
    if total:
        console.print(
            f"   => one recorder thread sustains at most about {1e6 / total:,.0f} msg/s on this machine "
            f"(the {THROUGHPUT_TARGET:,} msg/s target needs <= {1e6 / THROUGHPUT_TARGET:.0f} us/msg)"
        )
