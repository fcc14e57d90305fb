"""Targets and printing: Rich tables of the figures, and each target with MET / MISSED."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from bench.http_setups import HTTP_LABELS
from bench.peer import LABELS
from bench.startup import command_targets, print_commands

LATENCY_RATIO_TARGET = 1.15  # wrapped/direct p50
LATENCY_VS_SOCAT_TARGET = 1.10  # wrapped/socat p50: socat, a C relay, is the floor of one extra hop
STARTUP_ADDED_MS_TARGET = 100.0  # spawn -> first answer, wrap minus direct
THROUGHPUT_TARGET = 100_000  # messages/s through the shim, every row committed (issue #14)
RSS_TARGET_MB = 150.0
HTTP_LATENCY_RATIO_TARGET = 1.25  # proxy/direct p50 of a tools/call round trip (nginx, the floor: ~1.04)
HTTP_VS_MITM_TARGET = 2.0  # proxy rt/s / mitmdump rt/s

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
    if "startup" in errors:
        targets.append(_target("startup", "measured", "ERROR: " + errors["startup"][:60], False))
    st = results.get("startup")
    if st:
        added = st["added_ms"]
        targets.append(
            _target(
                "startup: spawn -> first answer, wrap minus direct (median)",
                f"<= {STARTUP_ADDED_MS_TARGET:.0f} ms",
                f"{added['wrap']:+.0f} ms (socat, the floor: {added['socat']:+.0f} ms)",
                added["wrap"] <= STARTUP_ADDED_MS_TARGET,
            )
        )
        if st.get("commands"):
            targets.extend(_target(*t) for t in command_targets(st["commands"]))
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
        if "socat" in s:
            vs_socat = _ratio(s["wrap"]["p50_us"], s["socat"]["p50_us"])
            targets.append(
                _target(
                    f"latency: wrapped/socat p50, {where}",
                    f"<= {LATENCY_VS_SOCAT_TARGET:.2f}x",
                    f"{_f(vs_socat, '{:.2f}x')} (socat/direct "
                    f"{_f(_ratio(s['socat']['p50_us'], s['direct']['p50_us']), '{:.2f}x')})",
                    vs_socat is not None and vs_socat <= LATENCY_VS_SOCAT_TARGET,
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
    if "http" in errors:
        targets.append(_target("http", "measured", "ERROR: " + errors["http"][:60], False))
    if results.get("http"):
        targets += _http_targets(results["http"])
    return targets


def _http_targets(http: dict[str, Any]) -> list[dict[str, Any]]:
    targets = []
    mitm_note = http["mitm"]["note"]
    for mode, run in http["modes"].items():
        s = run["setups"]
        ratio = _ratio(s["proxy"]["p50_us"], s["direct"]["p50_us"])
        floor = (
            f"nginx, the floor: {_f(_ratio(s['nginx']['p50_us'], s['direct']['p50_us']), '{:.2f}x')}"
            if "nginx" in s
            else "no nginx floor: " + http.get("nginx", {}).get("note", "not run")[:40]
        )
        targets.append(
            _target(
                f"http {mode}: proxy/direct p50 of a tools/call round trip",
                f"<= {HTTP_LATENCY_RATIO_TARGET:.2f}x",
                f"{_f(ratio, '{:.2f}x')} ({s['proxy']['p50_us']:,.0f} vs {s['direct']['p50_us']:,.0f} us; "
                f"{floor})",
                ratio is not None and ratio <= HTTP_LATENCY_RATIO_TARGET,
            )
        )
        for key, what in (("seq", "sequential"), ("conc", f"{http['clients']} concurrent clients")):
            name = f"http {mode}: proxy/mitmdump round trips/s, {what}"
            want = f">= {HTTP_VS_MITM_TARGET:.1f}x"
            if "mitm" not in s:
                targets.append(
                    {"name": name, "target": want, "actual": f"mitmdump: {mitm_note[:60]}", "met": None}
                )
                continue
            p, m = _rts(s["proxy"], key), _rts(s["mitm"], key)
            r = _ratio(p, m)
            targets.append(
                _target(
                    name, want, f"{_f(r, '{:.2f}x')} ({p:,.0f} vs {m:,.0f} rt/s)", r is not None and r >= 2
                )
            )
        ev = run.get("sse_events", {}).get("proxy")
        if ev:
            targets.append(
                _target(
                    f"http {mode}: proxy forwards each SSE event while the stream is open",
                    "0 events held to the stream's end",
                    f"{ev['held_to_end']} of {ev['held_eligible']} held; event latency p50 "
                    f"{ev['p50_us']:,.0f} us (direct {run['sse_events']['direct']['p50_us']:,.0f} us)",
                    ev["held_to_end"] == 0 and ev["held_eligible"] > 0,
                )
            )
        db = run["db"]
        targets.append(
            _target(
                f"completeness: http {mode} (proxy DB rows)",
                "rows == requests + responses + events",
                f"OK ({db['rows']:,} rows, {db['sessions']} sessions ended, bytes equal)"
                if db["ok"]
                else "; ".join(db["problems"])[:120],
                db["ok"],
            )
        )
    return targets


def _met(proxy: dict[str, Any], mitm: dict[str, Any]) -> str:
    """Whether the proxy kept >= 2x mitmdump's round trips/s both sequentially and concurrently."""
    ok = all((_ratio(_rts(proxy, k), _rts(mitm, k)) or 0) >= HTTP_VS_MITM_TARGET for k in ("seq", "conc"))
    return "met" if ok else "NOT met"


def _rts(setup: dict[str, Any], key: str) -> float:
    return setup["rt_per_s"] if key == "seq" else setup["concurrent"]["rt_per_s"]


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
        f"[bold]mcp-inspector bench[/bold]  {env['cpus']} CPUs, Python {env['python']}, "
        f"node {env['node']}, load average at start {env['loadavg_start']}, at end {env.get('loadavg_end')}"
    )
    if any(k in results for k in ("latency", "latency_1cpu", "flood", "million", "stages")):
        console.print(
            "Setups: direct = the bench spawns the server; socat relay = socat - EXEC:SERVER (C, the floor "
            "of one extra process);\ntee(1) pipeline = sh -c 'tee c2s | SERVER | tee s2c'; "
            "tee relay (py) = bench/tee_relay.py,\none Python thread per stream with blocking os.read/os.write, "
            "appending copies to files; mcp-inspect wrap = the shim, recording into a temporary SQLite file."
        )
    if results.get("startup"):
        _startup_table(console, results["startup"])
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
    if results.get("http"):
        _http_tables(console, results["http"])
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
            "[yellow]SKIPPED[/yellow]"
            if tg["met"] is None
            else "[green]MET[/green]"
            if tg["met"]
            else "[bold red]MISSED[/bold red]",
        )
    console.print(t)
    for line in summary_lines(results):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
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
        "p50/socat",
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
            _f(_ratio(r["p50_us"], s["socat"]["p50_us"]) if "socat" in s else None, "{:.2f}x"),
            _f(r.get("peak_rss_mb")),
        )
    console.print(t)
    w, d, tee = s["wrap"], s["direct"], s["tee"]
    if "socat" in s:
        so = s["socat"]
        console.print(
            f"   p50 side by side: wrap/direct {_f(_ratio(w['p50_us'], d['p50_us']), '{:.2f}x')}, "
            f"socat/direct {_f(_ratio(so['p50_us'], d['p50_us']), '{:.2f}x')}, "
            f"wrap/socat {_f(_ratio(w['p50_us'], so['p50_us']), '{:.2f}x')}"
        )
    console.print(
        f"   wrapped/direct p50 {_f(_ratio(w['p50_us'], d['p50_us']), '{:.2f}x')}, "
        f"p99 {_f(_ratio(w['p99_us'], d['p99_us']), '{:.2f}x')};  "
        f"wrapped/tee p50 {_f(_ratio(w['p50_us'], tee['p50_us']), '{:.2f}x')}, "
        f"p99 {_f(_ratio(w['p99_us'], tee['p99_us']), '{:.2f}x')};  "
        f"wrapped-tee p50 {w['p50_us'] - tee['p50_us']:+.1f} us"
    )


def _startup_table(console: Console, st: dict[str, Any]) -> None:
    t = Table(
        title=f"0. Start-up: spawn -> the answer to a ping written at once (bench/responder.py), "
        f"median of {st['runs']} interleaved runs",
        title_justify="left",
    )
    for col in ("setup", "ms to first answer", "added ms over direct"):
        t.add_column(col, justify="left" if col == "setup" else "right")
    for name, ms in st["median_ms"].items():
        added = st["added_ms"].get(name)
        t.add_row(name, f"{ms:.1f}", "-" if added is None else f"{added:+.1f}")
    console.print(t)
    heavy = ", ".join(st["forwarding_heavy_imports"]) or "none"
    console.print(
        f"   imports before wrap forwards: {st['forwarding_imports_ms']:.0f} ms "
        f"(python -X importtime); heavy ones among them: {heavy}"
    )
    ex = st.get("exit")
    if ex:
        ratio = "-" if ex["ratio"] is None else f"{ex['ratio']:.1f}x"
        lost = ex["sessions_not_recorded"]
        console.print(
            f"   wrap exit after server exit (stdin closed -> exit, median of {ex['runs']}): "
            f"{ex['median_ms']['wrap']:.0f} ms, {ratio} the server's own {ex['median_ms']['direct']:.0f} ms "
            f"(max {ex['max_ms']['wrap']:.0f} ms); sessions not recorded in full: {lost}"
        )
    if st.get("commands"):
        print_commands(console, st["commands"])


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
    wrap = run.get("wrap") or {}
    floor = wrap.get("sqlite_floor")
    if floor:
        console.print(
            f"   the floor, same run: plain sqlite3 executemany of the same {floor['rows']:,} rows into a fresh file "
            f"of the same schema (FTS included, 5000 a transaction) {floor['msgs_per_s']:,.0f} msg/s; "
            f"wrap recording (to exit) / floor = "
            f"{_f(_ratio(wrap['msgs_per_s_to_exit'], floor['msgs_per_s']), '{:.2f}x')}"
        )
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
    ("redact", "Redaction.row, built-in rules (a stdio row: nothing configured to look for)"),
    ("redact+", "Redaction.row with a --redact name and --redact-path configured (bytes test)"),
    ("store", "SessionWriter.on_batch: the store writer into SQLite, 5000-row batches"),
    (
        "sqlite",
        "the floor: the same rows by plain sqlite3 executemany, same schema and FTS, 5000 a transaction",
    ),
    ("recorder", "Recorder thread end to end: queue + builder + redact + store"),
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
    floor = stages.get("sqlite")
    if total and floor:
        console.print(
            f"   => recorder / plain sqlite3 executemany of the same rows (same run): {total / floor:.2f}x "
            f"(the floor alone allows at most about {1e6 / floor:,.0f} msg/s here)"
        )


def _http_tables(console: Console, http: dict[str, Any]) -> None:
    console.print(
        "HTTP setups, one bench/http_server.py (Python SDK) per response mode: direct = the bench's raw HTTP/1.1 "
        "client talks to the server; mcp-inspect proxy = `python -m inspector proxy`, recording into a temporary "
        "SQLite file;\nnginx reverse = nginx as a reverse proxy, one worker, keep-alive upstream, proxy_buffering off "
        f"(the floor of one extra HTTP hop; {http.get('nginx', {}).get('note', 'not run')});\nmitmdump reverse = `mitmdump --mode reverse:URL` (quiet, default options; "
        f"{http['mitm']['note']}). One keep-alive connection per client; a round trip ends with the last byte of "
        "the HTTP response."
    )
    for mode, run in http["modes"].items():
        s = run["setups"]
        d = s["direct"]
        t = Table(
            title=f"4. HTTP, {mode} responses: {http['calls']:,} sequential tools/call echo round trips per setup "
            f"after {http['warmup']} warm-up, in {http['rounds']} interleaved rounds; throughput: "
            f"{http['clients']} concurrent clients x {http['client_calls']:,} calls",
            title_justify="left",
        )
        cols = ("setup", "p50 us", "p90 us", "p99 us", "mean us", "p50/direct", "p99/direct", "rt/s seq",
                f"rt/s {http['clients']} clients", "CPU us/rt middle", "CPU us/rt server", "peak RSS MB")  # fmt: skip
        for col in cols:
            t.add_column(col, justify="left" if col == "setup" else "right", no_wrap=col == "setup")
        for name, r in s.items():
            conc = r.get("concurrent", {})
            t.add_row(
                HTTP_LABELS.get(name, name),
                _f(r["p50_us"], "{:,.0f}"),
                _f(r["p90_us"], "{:,.0f}"),
                _f(r["p99_us"], "{:,.0f}"),
                _f(r["mean_us"], "{:,.0f}"),
                _f(_ratio(r["p50_us"], d["p50_us"]), "{:.2f}x"),
                _f(_ratio(r["p99_us"], d["p99_us"]), "{:.2f}x"),
                _f(r["rt_per_s"], "{:,.0f}"),
                _f(conc.get("rt_per_s"), "{:,.0f}"),
                _f(conc.get("mid_cpu_us_per_rt"), "{:,.0f}") if name != "direct" else "-",
                _f(conc.get("server_cpu_us_per_rt"), "{:,.0f}"),
                _f(r.get("peak_rss_mb") or r.get("server_peak_rss_mb")),
            )
        console.print(t)
        p = s["proxy"]
        line = (
            f"   proxy/direct p50 {_f(_ratio(p['p50_us'], d['p50_us']), '{:.2f}x')} "
            f"(+{p['p50_us'] - d['p50_us']:,.0f} us; target <= {HTTP_LATENCY_RATIO_TARGET:.2f}x: "
            f"{'met' if _ratio(p['p50_us'], d['p50_us']) <= HTTP_LATENCY_RATIO_TARGET else 'NOT met'}), "
            f"p99 {_f(_ratio(p['p99_us'], d['p99_us']), '{:.2f}x')}"
        )
        for name, label in (("nginx", "nginx"), ("mitm", "mitmdump")):
            if name in s:
                line += f";  {label}/direct p50 {_f(_ratio(s[name]['p50_us'], d['p50_us']), '{:.2f}x')}"
            elif name == "nginx":
                line += ";  nginx/direct p50 n/a (nginx not run: see above)"
        if "mitm" in s:
            m = s["mitm"]
            line += (
                f";  proxy/mitmdump rt/s sequential {_f(_ratio(p['rt_per_s'], m['rt_per_s']), '{:.2f}x')}, "
                f"{http['clients']} clients "
                f"{_f(_ratio(p['concurrent']['rt_per_s'], m['concurrent']['rt_per_s']), '{:.2f}x')} "
                f"(target >= {HTTP_VS_MITM_TARGET:.1f}x: {_met(p, m)})"
            )
        console.print(line)
        intercept = [(n, s[n]) for n in ("proxy_nomatch", "proxy_delay0") if n in s]
        if intercept:
            console.print(
                "   interception (#17), p50 over the plain proxy's in the same rounds: "
                + ", ".join(
                    f"{HTTP_LABELS[n]} {_f(_ratio(r['p50_us'], p['p50_us']), '{:.2f}x')}"
                    for n, r in intercept
                )
            )
        console.print(
            "   CPU us/rt: CPU time of that process during the concurrent run / round trips (the middle: proxy, nginx's worker or "
            "mitmdump; the proxy's includes its recording thread)."
        )
        if run.get("sse_events"):
            _sse_table(console, http, run["sse_events"])


def _sse_table(console: Console, http: dict[str, Any], events: dict[str, Any]) -> None:
    t = Table(
        title=f"5. SSE event latency: {http['streams']} streams x {http['stream_events']} progress notifications "
        f"{http['interval_ms']:g} ms apart per setup; latency = client arrival - server's time.time_ns() in the event",
        title_justify="left",
    )
    cols = (
        "setup",
        "events",
        "p50 us",
        "p99 us",
        "max us",
        "first event p50 us",
        "late",
        "held to end",
        "verdict",
    )
    for col in cols:
        t.add_column(col, justify="left" if col in ("setup", "verdict") else "right")
    labels = {**HTTP_LABELS, "mitm_stream": "mitmdump --set stream_large_bodies=1"}
    for name, e in events.items():
        t.add_row(
            labels.get(name, name),
            f"{e['events']:,}",
            _f(e["p50_us"], "{:,.0f}"),
            _f(e["p99_us"], "{:,.0f}"),
            _f(e["max_us"], "{:,.0f}"),
            _f(e["first_event_p50_us"], "{:,.0f}"),
            f"{e['late']}",
            f"{e['held_to_end']} of {e['held_eligible']}",
            "streams each event" if e["held_to_end"] == 0 else "[red]waits for the stream's end[/red]",
        )
    console.print(t)
    first = next(iter(events.values()))
    console.print(
        f"   held to end = sent >= {first['held_margin_ms']:g} ms before the stream's last event, but reached the "
        "client only after the server sent that last one (a buffering setup holds every event, up to "
        f"~{first['stream_duration_ms']:g} ms);\n   late = reached the client after the server had sent the next "
        "event (informational: a busy machine delays a few anywhere)."
    )


# -- the four figures of issue #14, in one block at the end ------------------------------------------


def summary_lines(results: dict[str, Any]) -> list[str]:
    """The four #14 ratios, each measured beside its target and its floor, from whatever ran.

    One line per figure (per HTTP response mode), under 80 columns: measured,
    target, the floor (the same kind of hop done by a C program: nginx,
    socat), then `met` or `NOT met`; `not measured` when that section did not
    run or failed."""
    lines = ["Issue #14 targets, measured in this run (floor: a C program's extra hop):"]
    http = results.get("http")
    if http and http.get("modes"):
        for mode, run in http["modes"].items():
            s = run["setups"]
            ratio = _ratio(s["proxy"]["p50_us"], s["direct"]["p50_us"])
            floor = _ratio(s["nginx"]["p50_us"], s["direct"]["p50_us"]) if "nginx" in s else None
            lines.append(
                _summary(
                    f"http p50 proxy/direct ({mode})",
                    _f(ratio, "{:.2f}x"),
                    f"<= {HTTP_LATENCY_RATIO_TARGET:.2f}x",
                    f"nginx {_f(floor, '{:.2f}x')}",
                    ratio is not None and ratio <= HTTP_LATENCY_RATIO_TARGET,
                )
            )
    else:
        lines.append(_unmeasured("http p50 proxy/direct", results, "http"))
    key = next((k for k, _ in LATENCY_RUNS if results.get(k)), None)
    if key is not None:
        s = results[key]["setups"]
        ratio = _ratio(s["wrap"]["p50_us"], s["socat"]["p50_us"]) if "socat" in s else None
        floor = _ratio(s["socat"]["p50_us"], s["direct"]["p50_us"]) if "socat" in s else None
        lines.append(
            _summary(
                "stdio p50 wrap/socat" + (" (1 CPU)" if key == "latency_1cpu" else ""),
                _f(ratio, "{:.2f}x"),
                f"<= {LATENCY_VS_SOCAT_TARGET:.2f}x",
                f"socat/direct {_f(floor, '{:.2f}x')}",
                ratio is not None and ratio <= LATENCY_VS_SOCAT_TARGET,
            )
        )
    else:
        lines.append(_unmeasured("stdio p50 wrap/socat", results, "latency"))
    wrap = (results.get("flood") or {}).get("wrap")
    if wrap:
        rate = wrap["msgs_per_s_to_exit"]
        complete = _complete("", wrap["db"])["met"]
        lines.append(
            _summary(
                "recording msg/s, all committed",
                f"{rate:,.0f}",
                f">= {THROUGHPUT_TARGET:,}",
                None if complete else "ROWS MISSING",
                rate >= THROUGHPUT_TARGET and complete,
            )
        )
    else:
        lines.append(_unmeasured("recording msg/s, all committed", results, "flood"))
    st = results.get("startup")
    if st:
        added = st["added_ms"]
        lines.append(
            _summary(
                "wrap start-up, added ms",
                f"{added['wrap']:+.0f}",
                f"<= {STARTUP_ADDED_MS_TARGET:.0f}",
                f"socat {added['socat']:+.0f}",
                added["wrap"] <= STARTUP_ADDED_MS_TARGET,
            )
        )
    else:
        lines.append(_unmeasured("wrap start-up, added ms", results, "startup"))
    return lines


def _summary(name: str, measured: str, target: str, floor: str | None, met: bool) -> str:
    floor_text = f"; {floor}" if floor else ""
    return f"  {name}: {measured} ({target}{floor_text}) {'met' if met else 'NOT met'}"


def _unmeasured(name: str, results: dict[str, Any], section: str) -> str:
    why = "failed" if section in results.get("errors", {}) else "not run"
    return f"  {name}: not measured ({section} {why})"
