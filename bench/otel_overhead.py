"""OpenTelemetry export's cost on the forwarding path: `wrap` vs `wrap --otlp` (collector up or down).

Sequential `ping` round trips against server-everything over stdio through
three shims alive at the same time, in interleaved rounds (as
bench/stdio_latency.py): `wrap`, `wrap --otlp URL` with a receiver on
loopback (tests/otlp_receiver.py, decoding every request), and `wrap --otlp`
towards a port that refuses connections. Export runs on the recorder's writer
thread and the exporter's own thread, never on the forwarding path, so the
three should be within noise of each other. Prints p50/p90 per setup and the
spans the receiver got.

    python -m bench.otel_overhead [--pings N] [--rounds R]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.peer import WRAP_PREFIX, Peer, everything_argv


def _ping(peer: Peer, rpc_id: int) -> int:
    t0 = time.perf_counter_ns()
    peer.send(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % rpc_id)
    peer.read_line()
    return time.perf_counter_ns() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pings", type=int, default=300, help="pings per setup per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from tests.otlp_receiver import otlp_receiver

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with otlp_receiver() as receiver, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = everything_argv()
        setups = {
            "wrap": [],
            "wrap --otlp": ["--otlp", receiver.url],
            "wrap --otlp (refused)": ["--otlp", refused],
        }
        peers = {}
        for i, (name, extra) in enumerate(setups.items()):
            argv = [*WRAP_PREFIX, "--db", str(work / f"{i}.db"), "--quiet", *extra, "--", *server]
            peers[name] = Peer(name, server, work, argv)
            peers[name].handshake()
        times: dict[str, list[int]] = {name: [] for name in peers}
        rpc_id = 100
        for _ in range(50):  # warm-up (the SDK loads on the exporter's thread meanwhile)
            for peer in peers.values():
                rpc_id += 1
                _ping(peer, rpc_id)
        time.sleep(2)
        order = list(peers)
        for r in range(args.rounds):
            for name in order[r % len(order) :] + order[: r % len(order)]:
                for _ in range(args.pings):
                    rpc_id += 1
                    times[name].append(_ping(peers[name], rpc_id))
        for peer in peers.values():
            peer.close()
        receiver.wait_for(lambda: len(receiver.spans()) >= args.rounds * args.pings, timeout=60)
        print(f"{args.rounds} rounds x {args.pings} pings per setup, server-everything over stdio")
        for name, samples in times.items():
            q = statistics.quantiles(samples, n=10)
            print(f"  {name:<24} p50 {q[4] / 1000:7.1f} us   p90 {q[8] / 1000:7.1f} us")
        print(f"  spans received: {len(receiver.spans())}, metric exports: {len(receiver.metrics)}")


if __name__ == "__main__":
    main()
