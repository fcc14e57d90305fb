"""Throughput and memory: a pipelined flood of ping requests against bench/responder.py.

A writer thread sends every request as fast as the pipe takes them while
the main thread reads the responses (blocking `os.read`, counting lines).
Messages are counted in both directions: N requests + N responses = 2N
messages. The flood is timed from the first request written to the last
response read ("forwarding"); for the shim a second figure includes the
time it needs after the client's EOF until it exits, i.e. until every row is
committed ("recorded").
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from bench.peer import SAMPLED, Peer, ProcSampler, check_db, responder_argv, write_all
from bench.sqlite_floor import insert_floor, stored_rows

BATCH = 512  # requests per write() of the client


def build_chunks(first_id: int, requests: int, batch: int = BATCH) -> list[bytes]:
    """The flood's requests, pre-serialised and joined `batch` at a time."""
    chunks = []
    for start in range(first_id, first_id + requests, batch):
        stop = min(start + batch, first_id + requests)
        chunks.append(
            b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(start, stop))
        )
    return chunks


def run_flood(setup: str, requests: int, workdir: Path, sample_interval: float = 0.02) -> dict[str, Any]:
    """One flood through one setup; returns its figures (and the DB check for `wrap`)."""
    chunks = build_chunks(1, requests)
    peer = Peer(setup, responder_argv(), workdir)
    sampler = ProcSampler(peer.pid, interval=sample_interval).start() if setup in SAMPLED else None
    try:
        peer.handshake()
        assert not peer._buf, "unexpected bytes after the handshake"
        if setup == "wrap":
            # The shim forwards before its store is open (start-up is the startup section's figure):
            # time the recording's steady state, from a session that exists.
            _wait_for_session(workdir / "wrap.db")
        wfd, rfd = peer.wfd, peer.rfd
        errors: list[BaseException] = []

        def writer() -> None:
            try:
                for chunk in chunks:
                    write_all(wfd, chunk)
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        sent_bytes = sum(len(c) for c in chunks)
        digest = hashlib.blake2b()
        got = 0
        got_bytes = 0
        thread = threading.Thread(target=writer, daemon=True)
        t0 = time.perf_counter()
        thread.start()
        read = os.read
        while got < requests:
            data = read(rfd, 1 << 20)
            if not data:
                raise EOFError(f"{setup}: EOF after {got}/{requests} responses; stderr: {peer.stderr_tail()}")
            got += data.count(b"\n")
            got_bytes += len(data)
            digest.update(data)
        t1 = time.perf_counter()
        thread.join()
        if errors:
            raise errors[0]
        peer.sent += requests
        peer.sent_bytes += sent_bytes
        peer.received += got
        peer.received_bytes += got_bytes
        close_s = peer.close()
        t2 = time.perf_counter()
    except BaseException:
        peer.kill()
        raise
    finally:
        if sampler is not None:
            sampler.stop()
    messages = 2 * requests
    result: dict[str, Any] = {
        "setup": setup,
        "requests": requests,
        "messages": messages,
        "seconds": t1 - t0,
        "msgs_per_s": messages / (t1 - t0),
        "seconds_to_exit": t2 - t0,
        "msgs_per_s_to_exit": messages / (t2 - t0),
        "close_to_exit_s": close_s,
        "response_bytes": got_bytes,
        "response_digest": digest.hexdigest(),
        "exit_code": peer.proc.returncode,
    }
    if sampler is not None:
        cpu = sampler.cpu_between(t0, t2)
        result["peak_rss_mb"] = sampler.peak_mb
        result["cpu_s"] = cpu
        result["cpu_us_per_msg"] = cpu / messages * 1e6 if cpu is not None else None
        result["rss_mb_timeline"] = _timeline(sampler, t0, t2)
    if setup in ("tee", "tee1"):
        tee = workdir / setup
        result["tee_files_ok"] = (tee / "c2s.bin").stat().st_size == peer.sent_bytes and (
            tee / "s2c.bin"
        ).stat().st_size == peer.received_bytes
    if setup == "wrap":
        result["db"] = check_db(workdir / "wrap.db", peer.sent, peer.received).as_dict()
        result["db"]["bytes_ok"] = (
            result["db"]["bytes_c2s"] == peer.sent_bytes and result["db"]["bytes_s2c"] == peer.received_bytes
        )
        # The floor, in the same run: the same rows inserted with plain sqlite3 (bench/sqlite_floor.py).
        columns, rows = stored_rows(workdir / "wrap.db")
        floor = insert_floor(columns, rows, workdir)
        result["sqlite_floor"] = {**floor, "rows": len(rows), "msgs_per_s": len(rows) / floor["seconds"]}
    return result


def _wait_for_session(db: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            # OperationalError: the schema is not there yet
            with (
                contextlib.closing(sqlite3.connect(db, timeout=timeout)) as conn,
                contextlib.suppress(sqlite3.OperationalError),
            ):
                if conn.execute("SELECT COUNT(*) FROM session").fetchone()[0]:
                    return
        time.sleep(0.01)
    raise TimeoutError(f"the shim opened no session in {db} within {timeout:.0f} s")


def _timeline(sampler: ProcSampler, t0: float, t2: float) -> list[dict[str, float]]:
    """RSS at 0%, 25%, 50%, 75% and 100% of the run (time-wise)."""
    out = []
    for frac in (0.0, 0.25, 0.5, 0.75, 1.0):
        t = t0 + (t2 - t0) * frac
        rss = sampler.rss_mb_at(t)
        if rss is not None:
            out.append({"at": frac, "rss_mb": round(rss, 1)})
    return out
