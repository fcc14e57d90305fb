"""Latency: sequential `ping` round trips against server-everything over stdio, in every setup.

All setups (direct, tee(1) pipeline, tee relay, `mcp-inspect wrap`; see
bench/peer.py) run the same server command and are alive at the same time; after the handshake and a warm-up,
the measured pings are taken in interleaved blocks (`rounds`, rotating the
order), so that a slow phase of the machine hits every setup alike. Each
round trip is timed from just before `os.write` of the request to the return
of the blocking `os.read` that completed the response line.

`pin`: run the bench and every spawned process on one CPU (affinity is
inherited by children). On a small VM, a round trip through a relay wakes
three or four threads, and when they sit on different, idle vCPUs every
wake-up pays an inter-processor interrupt: the unpinned figures then jump
between two modes (for the tee relay ~30 us or ~100 us p50) depending on
where the scheduler put the threads (a shell `tee | server | tee` pipeline
shows the same jump, so it is the machine, not Python). Pinned figures are stable from run to
run and show what the programs themselves cost; unpinned ones show what this
machine gives.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import orjson

from bench.peer import SAMPLED, SETUPS, Peer, ProcSampler, check_db, everything_argv


def _ping_bytes(rpc_id: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % rpc_id


def _pings(peer: Peer, first_id: int, count: int) -> list[int]:
    """`count` sequential pings; returns round-trip times in ns (tight loop, no parsing inside the timing)."""
    out = []
    wfd, rfd = peer.wfd, peer.rfd
    write, read, clock = os.write, os.read, time.perf_counter_ns
    requests = [_ping_bytes(first_id + i) for i in range(count)]
    for i, request in enumerate(requests):
        rpc_id = first_id + i
        buf = peer._buf
        t0 = clock()
        write(wfd, request)  # ~45 bytes: one write() on a pipe is atomic and complete
        while True:
            nl = buf.find(b"\n")
            if nl >= 0:
                line = buf[: nl + 1]
                buf = buf[nl + 1 :]
                # server-everything may send a log notification now and then: skip it, keep the clock running
                if b'"method"' not in line:
                    break
                peer.received += 1
                continue
            data = read(rfd, 65536)
            if not data:
                raise EOFError(f"{peer.setup}: EOF during pings; stderr: {peer.stderr_tail()}")
            peer.received_bytes += len(data)
            buf += data
        t1 = clock()
        peer._buf = buf
        peer.sent += 1
        peer.sent_bytes += len(request)
        peer.received += 1
        value = orjson.loads(line)
        if value.get("id") != rpc_id or "result" not in value:
            raise AssertionError(f"{peer.setup}: unexpected answer to ping {rpc_id}: {line[:200]!r}")
        out.append(t1 - t0)
    return out


def percentile(values: list[int], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return float(ordered[k])


def run_latency(
    workdir: Path, pings: int, warmup: int, rounds: int, pin: int | None = None
) -> dict[str, Any]:
    """Measure every setup; returns per-setup stats in microseconds plus the wrap DB check."""
    if pin is None:
        return _run_latency(workdir, pings, warmup, rounds)
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {pin})
    try:
        result = _run_latency(workdir, pings, warmup, rounds)
    finally:
        os.sched_setaffinity(0, before)
    result["pinned_cpu"] = pin
    return result


def _run_latency(workdir: Path, pings: int, warmup: int, rounds: int) -> dict[str, Any]:
    server = everything_argv()
    peers = {}
    samplers = {}
    try:
        for setup in SETUPS:
            peers[setup] = Peer(setup, server, workdir)
        for setup, peer in peers.items():
            peer.handshake()
            if setup in SAMPLED:
                samplers[setup] = ProcSampler(peer.pid, interval=0.1).start()
        next_id = {setup: 1 for setup in SETUPS}
        for setup, peer in peers.items():
            _pings(peer, next_id[setup], warmup)
            next_id[setup] += warmup
        samples: dict[str, list[int]] = {setup: [] for setup in SETUPS}
        per_round = [pings // rounds + (1 if r < pings % rounds else 0) for r in range(rounds)]
        for r, count in enumerate(per_round):
            order = SETUPS[r % len(SETUPS) :] + SETUPS[: r % len(SETUPS)]
            for setup in order:
                samples[setup] += _pings(peers[setup], next_id[setup], count)
                next_id[setup] += count
        for peer in peers.values():
            peer.close(timeout=30)
    except BaseException:
        for peer in peers.values():
            peer.kill()
        raise
    finally:
        for sampler in samplers.values():
            sampler.stop()
    result: dict[str, Any] = {
        "pings": pings,
        "warmup": warmup,
        "rounds": rounds,
        "pinned_cpu": None,
        "setups": {},
    }
    for setup in SETUPS:
        ns = samples[setup]
        result["setups"][setup] = {
            "p50_us": percentile(ns, 50) / 1000,
            "p90_us": percentile(ns, 90) / 1000,
            "p99_us": percentile(ns, 99) / 1000,
            "mean_us": sum(ns) / len(ns) / 1000,
            "min_us": min(ns) / 1000,
            "exit_code": peers[setup].proc.returncode,
        }
        if setup in samplers:
            result["setups"][setup]["peak_rss_mb"] = samplers[setup].peak_mb
    wrap = peers["wrap"]
    result["db"] = check_db(workdir / "wrap.db", wrap.sent, wrap.received).as_dict()
    return result
