"""HTTP: tools/call round trips over Streamable HTTP, direct vs `mcp-inspect proxy` vs nginx vs mitmdump.

For each response mode (`json`: the server answers a POST with
application/json; `sse`: with a text/event-stream carrying the answer), one
bench/http_server.py process (the official Python SDK) serves three setups
at once (bench/http_setups.py): direct, through the proxy (recording into a
temporary SQLite file), through nginx as a reverse proxy (the floor of one
extra HTTP hop; skipped with a note when nginx is not installed) and through
mitmdump (from bench/.venv-mitm). The
client is bench/http_client.py: raw HTTP/1.1 on one keep-alive socket per
MCP session, the same few microseconds per request in every setup.

Measured per mode and setup:
1. Sequential latency: initialize + notifications/initialized, `warmup`
   echo calls, then `calls` echo calls in `rounds` interleaved blocks
   (rotating the order, as the stdio latency bench). Each round trip is timed
   from just before the request's `sendall` to the end of the HTTP response
   (the last chunk of an SSE stream: a keep-alive client can only send its
   next request then). rt/s = 1 / mean round trip.
2. Throughput: `clients` concurrent MCP sessions (one thread and one
   connection each), `client_calls` sequential echo calls each, split into
   up to `rounds` interleaved blocks (rotating the order, at least 40 calls
   per client in a block; new sessions each block); rt/s = all calls / the
   summed wall time from each block's start signal to its last answer.
   CPU us/rt: CPU time of the process in the middle (and of the server) over
   the calls it carried.
3. SSE event latency (sse mode): the `stream` tool sends `stream_events`
   progress notifications `interval_ms` apart on the POST's event stream,
   each carrying the server's time.time_ns(); latency = client arrival
   time - that stamp. An event "held to the end" was sent at least
   HELD_MARGIN_MS before the stream's last event but reached the client only
   after the server had sent that last one: the setup did not forward it
   while the stream was open (mitmdump buffers whole bodies by default; the
   extra `mitm_stream` setup runs it with `--set stream_large_bodies=1`).
   "Late" events (informational) arrived after the server had sent the next
   event: on a busy machine a few happen anywhere.
4. Completeness: after the proxy is stopped (SIGINT: it commits what it
   recorded), its database must hold one c2s row per request, one response
   row per HTTP response and one row per SSE event, with the same body bytes
   the client sent and received, in one ended session per MCP session.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from bench import http_setups
from bench.http_client import HttpError, McpSession, result_of
from bench.http_mitm import ensure_mitmdump
from bench.http_nginx import find_nginx
from bench.http_setups import Service, start_mitm, start_nginx, start_proxy, start_server
from bench.stdio_latency import percentile
from inspector.protocol.sse import stored_body
from inspector.store.bodies import decode

MODES = ("json", "sse")
HELD_MARGIN_MS = 20.0  # an event this long before the stream's last one must arrive before the last is sent
ECHO_MESSAGE = "hello from the mcp-inspector bench"


def _cpu_s(pid: int) -> float:
    """utime + stime of a process, in seconds (0.0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


_TICK = float(os.sysconf("SC_CLK_TCK"))


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _worker_pid(master: int) -> int:
    """nginx's one worker process (where its CPU time goes), or the master when none shows up in 5 s."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:  # the master forks it after binding: it may not be there yet
        try:
            with open(f"/proc/{master}/task/{master}/children") as f:
                children = f.read().split()
        except OSError:
            return master
        if children:
            return int(children[0])
        time.sleep(0.01)
    return master


class Counter:
    """What the client sent and got through one setup (the proxy's DB must match it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions = 0
        self.requests = 0
        self.responses = 0
        self.events = 0
        self.request_bytes = 0
        self.response_bytes = 0

    def add(self, s: McpSession) -> None:
        with self.lock:
            self.sessions += 1
            self.requests += s.requests
            self.responses += s.responses
            self.events += s.events
            self.request_bytes += s.request_body_bytes
            self.response_bytes += s.response_body_bytes


def _open(url: str) -> McpSession:
    s = McpSession(url)
    s.initialize()
    return s


def _close(s: McpSession, counter: Counter) -> None:
    s.delete()
    s.close()
    counter.add(s)


def _echo_calls(s: McpSession, count: int, times: list[int] | None) -> None:
    """`count` sequential echo calls; appends each round trip (ns) to `times`."""
    clock = time.perf_counter_ns
    exchange = s.conn.exchange
    for _ in range(count):
        rpc_id, body = s.call_bytes("echo", {"message": ECHO_MESSAGE})
        request = s.request_bytes(body)
        t0 = clock()
        resp = exchange(request)
        t1 = clock()
        s.count(body, resp)
        result = result_of(resp, rpc_id) if resp.status == 200 else None
        if not result or result.get("content", [{}])[0].get("text") != ECHO_MESSAGE:
            raise HttpError(f"unexpected answer to echo {rpc_id}: HTTP {resp.status} {resp.body[:300]!r}")
        if times is not None:
            times.append(t1 - t0)


def _stats(ns: list[int]) -> dict[str, float]:
    return {
        "p50_us": percentile(ns, 50) / 1000,
        "p90_us": percentile(ns, 90) / 1000,
        "p99_us": percentile(ns, 99) / 1000,
        "mean_us": sum(ns) / len(ns) / 1000,
        "min_us": min(ns) / 1000,
        "max_us": max(ns) / 1000,
        "rt_per_s": len(ns) / (sum(ns) / 1e9),
    }


def _sequential(
    urls: dict[str, str],
    mid: dict[str, int],
    calls: int,
    warmup: int,
    rounds: int,
    counters: dict[str, Counter],
) -> dict[str, dict[str, Any]]:
    sessions = {name: _open(url) for name, url in urls.items()}
    names = list(urls)
    samples: dict[str, list[int]] = {n: [] for n in names}
    cpu = dict.fromkeys(names, 0.0)
    try:
        for name in names:
            _echo_calls(sessions[name], warmup, None)
        per_round = [calls // rounds + (1 if r < calls % rounds else 0) for r in range(rounds)]
        for r, count in enumerate(per_round):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                pid = mid.get(name)
                c0 = _cpu_s(pid) if pid else 0.0
                _echo_calls(sessions[name], count, samples[name])
                if pid:
                    cpu[name] += _cpu_s(pid) - c0
    finally:
        for name, s in sessions.items():
            _close(s, counters[name])
    out = {}
    for name in names:
        out[name] = _stats(samples[name])
        if name in mid:
            out[name]["cpu_us_per_rt"] = cpu[name] / calls * 1e6
    return out


def _concurrent(
    url: str, clients: int, client_calls: int, pids: dict[str, int], counter: Counter
) -> dict[str, Any]:
    """`clients` sessions calling concurrently; rt/s over the wall time, CPU of each watched process."""
    sessions = [_open(url) for _ in range(clients)]
    for s in sessions:
        _echo_calls(s, 5, None)  # warm connections (the proxy's upstream pool too)
    start = threading.Barrier(clients + 1)
    errors: list[BaseException] = []
    done_at: list[float] = []

    def worker(s: McpSession) -> None:
        try:
            start.wait()
            _echo_calls(s, client_calls, None)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            done_at.append(time.perf_counter())

    threads = [threading.Thread(target=worker, args=(s,), daemon=True) for s in sessions]
    for t in threads:
        t.start()
    cpu0 = {k: _cpu_s(p) for k, p in pids.items()}
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = max(done_at) - t0
    cpu = {k: _cpu_s(p) - cpu0[k] for k, p in pids.items()}
    for s in sessions:
        _close(s, counter)
    if errors:
        raise errors[0]
    total = clients * client_calls
    return {
        "rt_per_s": total / wall,
        "wall_s": wall,
        **{f"{k}_cpu_us_per_rt": v / total * 1e6 for k, v in cpu.items()},
    }


def _concurrent_rounds(
    urls: dict[str, str],
    clients: int,
    client_calls: int,
    rounds: int,
    pids: dict[str, dict[str, int]],
    counters: dict[str, Counter],
) -> dict[str, dict[str, Any]]:
    """`_concurrent` for every setup in interleaved rounds (rotating the order, as `_sequential`).

    One block per setup in a row would measure each at a different time: on a shared machine
    the load moves by a factor of two within a minute. rt/s = all calls / the summed wall time
    of a setup's blocks; CPU us/rt over all of them."""
    n = max(1, min(rounds, client_calls // 40))  # at least 40 calls per client in a block
    per_round = [client_calls // n + (1 if r < client_calls % n else 0) for r in range(n)]
    names = list(urls)
    total: dict[str, dict[str, float]] = {name: {} for name in names}
    for r, count in enumerate(per_round):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            block = _concurrent(urls[name], clients, count, pids[name], counters[name])
            t = total[name]
            t["calls"] = t.get("calls", 0) + clients * count
            t["wall_s"] = t.get("wall_s", 0.0) + block["wall_s"]
            for key in pids[name]:
                k = f"{key}_cpu_us_per_rt"
                t[k] = t.get(k, 0.0) + block[k] * clients * count  # back to CPU us, divided below
    out = {}
    for name, t in total.items():
        calls = t.pop("calls")
        out[name] = {
            "rt_per_s": calls / t["wall_s"],
            "wall_s": t["wall_s"],
            "rounds": n,
            **{k: v / calls for k, v in t.items() if k.endswith("_cpu_us_per_rt")},
        }
    return out


def _sse_events(url: str, streams: int, events: int, interval_ms: float, counter: Counter) -> dict[str, Any]:
    """Event latency (client arrival - server stamp) for `streams` calls of the `stream` tool."""
    s = _open(url)
    latencies: list[int] = []
    late = held = eligible = 0
    first: list[int] = []
    try:
        for _ in range(streams):
            rpc_id, body = s.call_bytes(
                "stream", {"count": events, "interval_ms": interval_ms}, {"progressToken": "bench"}
            )
            resp = s.conn.exchange(s.request_bytes(body))
            s.count(body, resp)
            if resp.status != 200 or not resp.is_sse:
                raise HttpError(f"stream: HTTP {resp.status}, {resp.headers.get(b'content-type')!r}")
            stamps = []
            for data, arrived in zip(resp.events, resp.event_times_ns, strict=True):
                msg = orjson.loads(data)
                if msg.get("method") == "notifications/progress":
                    stamps.append((int(msg["params"]["message"]), arrived))
            if len(stamps) != events or result_of(resp, rpc_id) is None:
                raise HttpError(f"stream: {len(stamps)} of {events} events, answer {resp.body[-200:]!r}")
            last_sent = stamps[-1][0]
            for i, (sent, arrived) in enumerate(stamps):
                latencies.append(arrived - sent)
                if i + 1 < len(stamps) and arrived > stamps[i + 1][0]:
                    late += 1
                if last_sent - sent >= HELD_MARGIN_MS * 1e6:
                    eligible += 1
                    held += arrived > last_sent
            first.append(stamps[0][1] - stamps[0][0])
    finally:
        _close(s, counter)
    n = len(latencies)
    return {
        "events": n,
        "p50_us": percentile(latencies, 50) / 1000,
        "p99_us": percentile(latencies, 99) / 1000,
        "max_us": max(latencies) / 1000,
        "first_event_p50_us": percentile(first, 50) / 1000,
        "late": late,  # arrived after the server had sent the next event
        "held_to_end": held,  # of `held_eligible`: arrived only after the stream's last event was sent
        "held_eligible": eligible,  # events sent >= HELD_MARGIN_MS before their stream's last event
        "held_margin_ms": HELD_MARGIN_MS,
        "stream_duration_ms": (events - 1) * interval_ms,
    }


def ratios(setups: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """The figures the #14 targets are judged on, under stable keys (bench/report.py's summary reads them).

    `<setup>_direct_p50`: that setup's p50 / direct's (proxy, and nginx, the floor, and mitm);
    `proxy_mitm_rt_per_s_seq` / `_conc`: the proxy's round trips/s over mitmdump's,
    sequential and with concurrent clients. None where a setup did not run."""
    d = setups["direct"]["p50_us"]
    out: dict[str, float | None] = {}
    for name in ("proxy", "nginx", "mitm", "proxy_b", *http_setups.INTERCEPT_RULES):
        s = setups.get(name)
        out[f"{name}_direct_p50"] = s["p50_us"] / d if s and d else None
    p, m = setups["proxy"], setups.get("mitm")
    for name in http_setups.INTERCEPT_RULES:  # interception on vs off, measured in the same rounds
        s = setups.get(name)
        out[f"{name}_proxy_p50"] = s["p50_us"] / p["p50_us"] if s and p["p50_us"] else None
    out["proxy_mitm_rt_per_s_seq"] = p["rt_per_s"] / m["rt_per_s"] if m else None
    out["proxy_mitm_rt_per_s_conc"] = (
        p["concurrent"]["rt_per_s"] / m["concurrent"]["rt_per_s"] if m and "concurrent" in m else None
    )
    return out


def check_proxy_db(db: Path, counter: Counter) -> dict[str, Any]:
    """The proxy's recording against what the client sent and got through it."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        sessions = conn.execute("SELECT status, count(*) FROM session GROUP BY status").fetchall()
        rows = {
            (d, ch): (n, size)
            for d, ch, n, size in conn.execute(
                "SELECT direction, channel, count(*), coalesce(sum(size), 0) FROM message GROUP BY 1, 2"
            )
        }
        # An SSE row holds the whole event (field lines, blank line): the client counted its data.
        # A large event's row holds its start; the whole is in `blob` (inspector/store/bodies.py).
        data_bytes = sum(
            len(stored_body("sse", decode(codec, data, size) if codec else raw))
            for raw, codec, size, data in conn.execute(
                "SELECT m.raw, b.codec, b.size, b.data FROM message m LEFT JOIN blob b ON b.sha256 = m.body_sha256 "
                "WHERE m.direction = 's2c' AND m.channel = 'sse'"
            )
        )
    requests = rows.get(("c2s", "http-request"), (0, 0))
    responses = rows.get(("s2c", "http-response"), (0, 0))
    events = rows.get(("s2c", "sse"), (0, 0))
    events = (events[0], data_bytes)
    total = sum(n for n, _ in rows.values())
    expected = counter.requests + counter.responses + counter.events
    status = dict(sessions)
    n_sessions = sum(status.values())
    checks = {
        "request rows": (requests[0], counter.requests),
        "response rows": (responses[0], counter.responses),
        "SSE event rows": (events[0], counter.events),
        "request body bytes": (requests[1], counter.request_bytes),
        "response body bytes": (responses[1] + events[1], counter.response_bytes),
        "sessions": (n_sessions, counter.sessions),
        "ended sessions": (status.get("ended", 0), counter.sessions),
        "other rows": (total - requests[0] - responses[0] - events[0], 0),
    }
    problems = [
        f"{k}: {got:,} recorded, {want:,} expected" for k, (got, want) in checks.items() if got != want
    ]
    return {
        "rows": total,
        "expected": expected,
        "missing": expected - total,
        "sessions": n_sessions,
        "session_status": status,
        "checks": {k: {"recorded": g, "expected": w} for k, (g, w) in checks.items()},
        "problems": problems,
        "ok": not problems,
    }


def run_http(
    workdir: Path,
    *,
    calls: int,
    warmup: int,
    rounds: int,
    clients: int,
    client_calls: int,
    streams: int,
    stream_events: int,
    interval_ms: float,
    mitm: bool = True,
    nginx: bool = True,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Every mode through every setup; returns the figures (see the module docstring)."""
    mitmdump, mitm_note = (None, "not run (--no-mitm)")
    if mitm:
        mitmdump, mitm_note = ensure_mitmdump(say)
    nginx_exe, nginx_note = (None, "not run (--no-nginx)")
    if nginx:
        nginx_exe, nginx_note = find_nginx()
        if nginx_exe is None:
            say(nginx_note)
    result: dict[str, Any] = {
        "calls": calls,
        "warmup": warmup,
        "rounds": rounds,
        "clients": clients,
        "client_calls": client_calls,
        "streams": streams,
        "stream_events": stream_events,
        "interval_ms": interval_ms,
        "mitm": {"available": mitmdump is not None, "note": mitm_note},
        "nginx": {"available": nginx_exe is not None, "note": nginx_note},
        "modes": {},
    }
    for mode in MODES:
        result["modes"][mode] = _run_mode(
            mode, workdir, mitmdump, nginx_exe, calls, warmup, rounds, clients, client_calls, streams, stream_events,
            interval_ms, say,
        )  # fmt: skip
    return result


def _run_mode(
    mode: str,
    workdir: Path,
    mitmdump: Path | None,
    nginx: Path | None,
    calls: int,
    warmup: int,
    rounds: int,
    clients: int,
    client_calls: int,
    streams: int,
    stream_events: int,
    interval_ms: float,
    say: Callable[[str], None],
) -> dict[str, Any]:
    services: list[Service] = []
    db = workdir / f"proxy-{mode}.db"
    try:
        server = start_server(mode, workdir)
        services.append(server)
        proxy = start_proxy(server.url, db, workdir, mode)
        services.append(proxy)
        urls = {"direct": server.url, "proxy": proxy.url}
        mid = {"proxy": proxy.pid}
        if http_setups.COMPARE_PREFIX:
            other = start_proxy(server.url, workdir / f"proxy-b-{mode}.db", workdir, f"b-{mode}",
                                http_setups.COMPARE_PREFIX)  # fmt: skip
            services.append(other)
            urls["proxy_b"] = other.url
            mid["proxy_b"] = other.pid
        for name in http_setups.INTERCEPT_SETUPS:
            rules = workdir / f"{name}-rules.yaml"
            rules.write_text(http_setups.INTERCEPT_RULES[name])
            other = start_proxy(server.url, workdir / f"{name}-{mode}.db", workdir, f"{name}-{mode}",
                                extra=["--faults", str(rules)])  # fmt: skip
            services.append(other)
            urls[name] = other.url
            mid[name] = other.pid
        if nginx is not None:
            try:
                ng = start_nginx(nginx, server.url, workdir, mode)
            except (OSError, RuntimeError, TimeoutError) as exc:  # the column is skipped, the rest measured
                say(f"nginx did not start, its column is skipped: {exc}")
            else:
                services.append(ng)
                urls["nginx"] = ng.url
                mid["nginx"] = _worker_pid(ng.pid)
        if mitmdump is not None:
            try:
                mitm = start_mitm(mitmdump, server.url, workdir, mode)
            except (OSError, RuntimeError, TimeoutError) as exc:  # the column is skipped, the rest measured
                say(f"mitmdump did not start, its column is skipped: {exc}")
                mitmdump = None
            else:
                services.append(mitm)
                urls["mitm"] = mitm.url
                mid["mitm"] = mitm.pid
        counters = {name: Counter() for name in urls}
        say(f"http {mode}: {calls:,} sequential echo calls per setup ({', '.join(urls)}) ...")
        setups = _sequential(urls, mid, calls, warmup, rounds, counters)
        say(f"http {mode}: {clients} concurrent clients x {client_calls:,} calls per setup ...")
        names = list(urls)
        pids = {name: {"server": server.pid, **({"mid": mid[name]} if name in mid else {})} for name in names}
        for name, conc in _concurrent_rounds(urls, clients, client_calls, rounds, pids, counters).items():
            setups[name]["concurrent"] = conc
        if mode == "sse":
            stream_urls = dict(urls)
            if mitmdump is not None:
                ms = start_mitm(
                    mitmdump, server.url, workdir, "sse-stream", extra=["--set", "stream_large_bodies=1"]
                )
                services.append(ms)
                stream_urls["mitm_stream"] = ms.url
                counters["mitm_stream"] = Counter()
            say(
                f"http sse: {streams} streams of {stream_events} events {interval_ms:g} ms apart per setup ..."
            )
            events = {
                name: _sse_events(url, streams, stream_events, interval_ms, counters[name])
                for name, url in stream_urls.items()
            }
        for name, pid in mid.items():
            setups[name]["peak_rss_mb"] = _rss_mb(pid)
        setups["direct"]["server_peak_rss_mb"] = _rss_mb(server.pid)
    finally:
        exit_codes = {s.name: s.stop() for s in reversed(services)}
    out: dict[str, Any] = {"setups": setups, "ratios": ratios(setups), "exit_codes": exit_codes}
    if mode == "sse":
        out["sse_events"] = events
    out["db"] = check_proxy_db(db, counters["proxy"])
    return out
