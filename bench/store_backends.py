"""`python -m bench.store_backends` (and `python -m bench --only stores`): SQLite against PostgreSQL.

Three figures per backend, PostgreSQL from a throwaway cluster of the installed server
(tests/postgres.py's `PgCluster`: Debian's binaries, fsync off like any test cluster):

- recording throughput: rows a second through `StoreWriter.on_batch` (the recorder's writer
  thread's code: 500-row batches of request/response pairs, the full-text index included on
  PostgreSQL, where it is kept as rows arrive);
- `wrap` latency: ping round trips through `mcp-inspect wrap --db SQLITE` and `--db
  postgresql://...` beside the direct server and the tee relay baseline (interleaved rounds, as
  bench/stdio_latency.py does), p50/p90 and the ratio against the tee relay;
- `proxy` latency: tools/call round trips through `mcp-inspect proxy` with each store beside the
  direct server (bench/http_bench.py's client), p50/p90 and the ratio against direct.

Recording stays off the forwarding path on both backends, so the two wraps (and the two proxies)
should be within noise of each other; each store's rows are counted after the run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.http_bench import Counter, _sequential
from bench.http_setups import start_proxy, start_server
from bench.peer import Peer, everything_argv, setup_argv
from bench.stdio_latency import _pings, percentile

__all__ = ["run_stores"]


def _cluster() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.postgres import PgCluster, pg_bin_dir

    bin_dir = pg_bin_dir()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (make postgresql)")
    return PgCluster(bin_dir)


def _throughput(db: str, messages: int) -> float:
    from bench.ui_data import METHODS, REQ, RESP
    from inspector.capture import MessageBuilder
    from inspector.capture.sessions import create_session
    from inspector.store import open_engine
    from inspector.store.writer import StoreWriter

    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["bench"])
    builder = MessageBuilder(sid)
    rows: list[Any] = []
    for i in range(1, messages // 2 + 1):
        rows += builder.feed(i * 1000, "c2s", "stdin", REQ % (i, METHODS[i % 4], i % 7, i))
        rows += builder.feed(i * 1000 + 500, "s2c", "stdout", RESP % (i, i))
    writer = StoreWriter(engine)
    t0 = time.perf_counter()
    for k in range(0, len(rows), 500):
        writer.on_batch(rows[k : k + 500], {})
    elapsed = time.perf_counter() - t0
    writer.close()
    engine.dispose()
    return len(rows) / elapsed


def _count(db: str) -> int:
    from sqlalchemy import text

    from inspector.store import open_engine

    engine = open_engine(db)
    with engine.connect() as conn:
        n = int(conn.execute(text("SELECT count(*) FROM message")).scalar_one())
    engine.dispose()
    return n


def _stats(ns: list[int]) -> dict[str, float]:
    return {"p50_us": percentile(ns, 50) / 1000, "p90_us": percentile(ns, 90) / 1000}


def _wrap_latency(work: Path, stores: dict[str, str], pings: int, warmup: int, rounds: int) -> dict[str, Any]:
    server = everything_argv()
    argvs = {"direct": setup_argv("direct", server, work), "tee": setup_argv("tee", server, work)}
    for name, db in stores.items():
        argvs[f"wrap-{name}"] = [
            sys.executable,
            "-m",
            "inspector",
            "wrap",
            "--db",
            db,
            "--quiet",
            "--",
            *server,
        ]
    peers = {name: Peer(name, server, work, argv=argv) for name, argv in argvs.items()}
    try:
        for peer in peers.values():
            peer.handshake()
        next_id = dict.fromkeys(peers, 1)
        for name, peer in peers.items():
            _pings(peer, 1, warmup)
            next_id[name] += warmup
        samples: dict[str, list[int]] = {n: [] for n in peers}
        names = list(peers)
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                samples[name] += _pings(peers[name], next_id[name], pings // rounds)
                next_id[name] += pings // rounds
        for peer in peers.values():
            peer.close(timeout=60)
    except BaseException:
        for peer in peers.values():
            peer.kill()
        raise
    out = {name: _stats(ns) for name, ns in samples.items()}
    for name in out:
        out[name]["vs_tee_p50"] = out[name]["p50_us"] / out["tee"]["p50_us"]
    return out


def _proxy_latency(
    work: Path, stores: dict[str, str], calls: int, warmup: int, rounds: int
) -> dict[str, Any]:
    services = []
    try:
        server = start_server("json", work)
        services.append(server)
        urls = {"direct": server.url}
        mid = {}
        for name, db in stores.items():
            proxy = start_proxy(server.url, db, work, f"store-{name}")  # type: ignore[arg-type]
            services.append(proxy)
            urls[f"proxy-{name}"] = proxy.url
            mid[f"proxy-{name}"] = proxy.pid
        counters = {name: Counter() for name in urls}
        figures = _sequential(urls, mid, calls, warmup, rounds, counters)
    finally:
        for service in reversed(services):
            service.stop()
    out = {name: {"p50_us": f["p50_us"], "p90_us": f["p90_us"]} for name, f in figures.items()}
    for name in out:
        out[name]["vs_direct_p50"] = out[name]["p50_us"] / out["direct"]["p50_us"]
    return out


def run_stores(
    *, messages: int = 40_000, pings: int = 1000, warmup: int = 200, rounds: int = 10, calls: int = 1000
) -> dict[str, Any]:
    """Every figure of the module docstring; returns them as a dict."""
    cluster = _cluster()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-stores-") as tmp:
            work = Path(tmp)

            def stores(tag: str) -> dict[str, str]:
                return {"sqlite": str(work / f"{tag}.db"), "postgresql": cluster.new_database(tag)}

            result: dict[str, Any] = {"messages": messages}
            result["throughput_rows_per_s"] = {n: _throughput(db, messages) for n, db in stores("tp").items()}
            wrap_stores = stores("wrap")
            result["wrap"] = _wrap_latency(work, wrap_stores, pings, warmup, rounds)
            result["wrap_rows"] = {n: _count(db) for n, db in wrap_stores.items()}
            proxy_stores = stores("proxy")
            result["proxy"] = _proxy_latency(work, proxy_stores, calls, warmup, rounds)
            result["proxy_rows"] = {n: _count(db) for n, db in proxy_stores.items()}
            return result
    finally:
        cluster.destroy()


def print_stores(result: dict[str, Any], say: Any = print) -> None:
    tp = result["throughput_rows_per_s"]
    say(f"recording throughput ({result['messages']:,} messages, 500-row batches)")
    for name, rate in tp.items():
        say(f"  {name:<12} {rate:>10,.0f} rows/s")
    say("wrap ping round trip (everything server, stdio)")
    for name, f in result["wrap"].items():
        say(f"  {name:<16} p50 {f['p50_us']:8.1f} us  p90 {f['p90_us']:8.1f} us  x{f['vs_tee_p50']:.2f} tee")
    say(f"  rows recorded: {result['wrap_rows']}")
    say("proxy tools/call round trip (Streamable HTTP, JSON responses)")
    for name, f in result["proxy"].items():
        say(
            f"  {name:<16} p50 {f['p50_us']:8.1f} us  p90 {f['p90_us']:8.1f} us  x{f['vs_direct_p50']:.2f} direct"
        )
    say(f"  rows recorded: {result['proxy_rows']}")


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.store_backends", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=40_000)
    p.add_argument("--pings", type=int, default=1000)
    p.add_argument("--calls", type=int, default=1000)
    args = p.parse_args()
    print_stores(run_stores(messages=args.messages, pings=args.pings, calls=args.calls))


if __name__ == "__main__":
    main()
