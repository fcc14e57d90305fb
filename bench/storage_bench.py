"""`python -m bench --only storage`: what large-body storage (inspector/store/bodies.py) saves and costs.

Repeated real-server sessions, the way an always-on shim sees them: the demo server and
server-everything each started `starts` times, every start recorded through `mcp-inspect wrap`
driven by the official SDK client (the same tools/list, resources and answers at every start).
Done twice into fresh SQLite files: with large bodies stored as before (thresholds off:
`MCP_INSPECTOR_COMPRESS_ABOVE` / `MCP_INSPECTOR_DEDUP_ABOVE` beyond any body) and with the defaults
(out of line above 4 KiB, zstd, stored once). Printed: bytes stored per byte seen, two ways:
the database file's growth (after a WAL checkpoint and VACUUM) and the message payload alone
(rows' `raw` plus blobs) over the raw bytes of the messages (`SUM(size)`).

Recording throughput: the recorded sessions (the "on" file's, read back whole) written again 20
times over by one store writer (a batch a session) into fresh files with compression on and off,
in the same run: rows/s and MB/s of raw bytes (best of `rounds`). No target: the figures are printed, not asserted.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp

from bench.peer import PROJECT_DIR, SERVER_EVERYTHING

__all__ = ["print_storage", "run_storage"]

NEVER = str(2**62)


def _env(on: bool, db: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MCP_INSPECTOR_DB"] = str(db)
    env.setdefault("MCP_INSPECTOR_CONFIG", str(db.parent / "no-config.toml"))
    for var in ("MCP_INSPECTOR_COMPRESS_ABOVE", "MCP_INSPECTOR_DEDUP_ABOVE"):
        if on:
            env.pop(var, None)
        else:
            env[var] = NEVER
    return env


def _wrapped(db: Path, env: dict[str, str], name: str, server: list[str]) -> mcp.StdioServerParameters:
    argv = [
        sys.executable,
        "-m",
        "inspector",
        "wrap",
        "--db",
        str(db),
        "--quiet",
        "--name",
        name,
        "--",
        *server,
    ]
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(PROJECT_DIR))


async def _everything(params: mcp.StdioServerParameters) -> None:
    async with mcp.Client(params, cache=None) as client:
        await client.list_tools()
        await client.call_tool("echo", {"message": "storage bench"})
        resources = (await client.list_resources()).resources
        for r in resources[:8]:
            await client.read_resource(str(r.uri))
        await client.list_prompts()


def _record(db: Path, on: bool, starts: int) -> None:
    from inspector.demo.driver import drive_demo

    env = _env(on, db)
    for i in range(starts):
        demo = _wrapped(db, env, f"demo-{i}", [sys.executable, "-m", "inspector.demo"])
        anyio.run(lambda: drive_demo(demo, mode="legacy"))  # noqa: B023 (run at once)
        if SERVER_EVERYTHING.exists():
            every = _wrapped(db, env, f"everything-{i}", [str(SERVER_EVERYTHING), "stdio"])
            anyio.run(lambda: _everything(every))  # noqa: B023
    _wait_ended(db, starts * (2 if SERVER_EVERYTHING.exists() else 1))


def _wait_ended(db: Path, sessions: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sqlite3.connect(db) as conn:
            n = conn.execute("SELECT COUNT(*) FROM session WHERE status = 'ended'").fetchone()[0]
        if n >= sessions:
            return
        time.sleep(0.2)
    raise RuntimeError(f"only {n} of {sessions} sessions ended in {db}")


def _file_bytes(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn = sqlite3.connect(db)
    conn.execute("VACUUM")
    conn.close()
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def _measure(db: Path, empty: int) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        seen, rows, kept = conn.execute(
            "SELECT SUM(size), COUNT(*), SUM(LENGTH(raw)) FROM message"
        ).fetchone()
        blobs, blob_bytes, blob_orig = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0), COALESCE(SUM(size), 0) FROM blob"
        ).fetchone()
        large = conn.execute("SELECT COUNT(*) FROM message WHERE body_sha256 IS NOT NULL").fetchone()[0]
    size = _file_bytes(db)
    return {
        "messages": rows,
        "raw_bytes_seen": seen,
        "file_bytes": size,
        "growth_bytes": size - empty,
        "payload_bytes": kept + blob_bytes,
        "large_messages": large,
        "blobs": blobs,
        "blob_original_bytes": blob_orig,
        "growth_per_byte_seen": (size - empty) / seen,
        "payload_per_byte_seen": (kept + blob_bytes) / seen,
    }


def _throughput(source: Path, work: Path, rounds: int, copies: int = 20) -> dict[str, Any]:
    from inspector.capture.sessions import create_session
    from inspector.store import StoreWriter, open_engine
    from inspector.store.bodies import Encoder, Thresholds
    from inspector.store.models import ROW_COLUMNS
    from inspector.store.queries import iter_rows

    engine = open_engine(source, create=False)
    with engine.connect() as conn:
        ids = [int(r[0]) for r in conn.exec_driver_sql("SELECT id FROM session ORDER BY id")]
    sessions = [[{k: row[k] for k in ROW_COLUMNS} for row in iter_rows(engine, sid)] for sid in ids]  # type: ignore[literal-required]
    engine.dispose()
    sessions = sessions * copies  # the recorded starts again and again, as an always-on shim sees them
    n = sum(len(s) for s in sessions)
    raw = sum(len(r["raw"]) for s in sessions for r in s)
    out: dict[str, Any] = {"rows": n, "raw_bytes": raw}
    for label, limits in (("off", Thresholds(2**62, 2**62)), ("on", Thresholds())):
        best = float("inf")
        for k in range(rounds):
            db = work / f"tp-{label}-{k}.db"
            target = open_engine(db)
            sids = [create_session(target, kind="import", target=None) for _ in sessions]
            writer = StoreWriter(target, Encoder(limits))  # one writer thread's worth, one batch a start
            batches = [
                [{**r, "session_id": sid} for r in rows] for sid, rows in zip(sids, sessions, strict=True)
            ]
            start = time.perf_counter()
            for batch in batches:
                writer.on_batch(batch, {})  # type: ignore[arg-type]
            best = min(best, time.perf_counter() - start)
            writer.close()
            target.dispose()
        out[label] = {"seconds": best, "rows_per_s": n / best, "mb_per_s": raw / best / 1e6}
    return out


def run_storage(work: Path, starts: int = 5, rounds: int = 5) -> dict[str, Any]:
    from inspector.store import open_engine

    results: dict[str, Any] = {"starts": starts}
    for label, on in (("off", False), ("on", True)):
        db = work / f"storage-{label}.db"
        open_engine(db).dispose()
        empty = _file_bytes(db)
        _record(db, on, starts)
        results[label] = _measure(db, empty)
    results["throughput"] = _throughput(work / "storage-on.db", work, rounds)
    return results


def print_storage(results: dict[str, Any], say: Any = print) -> None:
    off, on, tp = results["off"], results["on"], results["throughput"]
    say(f"storage: {results['starts']} starts each of the demo server and server-everything, through wrap")
    say(f"  raw bytes seen            {on['raw_bytes_seen']:>12,} in {on['messages']:,} messages")
    for label, r in (("as before (off)", off), ("compressed+dedup", on)):
        say(
            f"  {label:<18} file growth {r['growth_bytes']:>10,} B = {r['growth_per_byte_seen']:.3f}/byte seen;"
            f" payload {r['payload_per_byte_seen']:.3f}/byte"
        )
    say(
        f"  {on['large_messages']} large messages -> {on['blobs']} blobs"
        f" ({on['blob_original_bytes']:,} B before zstd)"
    )
    say(
        f"  growth ratio on/off {on['growth_bytes'] / off['growth_bytes']:.3f},"
        f" payload ratio on/off {on['payload_bytes'] / off['payload_bytes']:.3f}"
    )
    say(f"  writer throughput ({tp['rows']:,} rows, {tp['raw_bytes']:,} B, best of rounds):")
    for label in ("off", "on"):
        t = tp[label]
        say(f"    compression {label:<3} {t['rows_per_s']:>10,.0f} rows/s  {t['mb_per_s']:>7.1f} MB/s")
    say(f"    on/off rows/s {tp['on']['rows_per_s'] / tp['off']['rows_per_s']:.2f}")


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mcp-bench-storage-") as d:
        print_storage(run_storage(Path(d), starts=int(sys.argv[1]) if len(sys.argv) > 1 else 5))
