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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.peer import WRAP_PREFIX, Peer, everything_argv

_RECEIVER = """
import sys
from tests.otlp_receiver import otlp_receiver
with otlp_receiver() as receiver:
    print(receiver.url, flush=True)
    sys.stdin.read()
    print(len(receiver.spans()), flush=True)
"""


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
    # The receiver runs in its own process: decoding protobuf in this one would take the GIL from
    # the timing loop.
    receiver = subprocess.Popen(
        [sys.executable, "-c", _RECEIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).parents[1],
    )  # fmt: skip
    assert receiver.stdout is not None and receiver.stdin is not None
    url = receiver.stdout.readline().strip()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = everything_argv()
        setups = {
            "wrap": [],
            "wrap --otlp": ["--otlp", url],
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
        receiver.stdin.close()
        spans = receiver.stdout.read().strip()
        print(f"{args.rounds} rounds x {args.pings} pings per setup, server-everything over stdio")
        for name, samples in times.items():
            q = statistics.quantiles(samples, n=10)
            print(f"  {name:<24} p50 {q[4] / 1000:7.1f} us   p90 {q[8] / 1000:7.1f} us")
        print(f"  spans received: {spans}")


if __name__ == "__main__":
    main()
