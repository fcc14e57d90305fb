"""Gateway overhead: tools/call round trips direct, through `proxy --target` and through a route
of `proxy --config` (two routes to the same server), sequential on one keep-alive session each.

    .venv/bin/python -m bench.gateway_bench [--calls 100] [--rounds 6]

bench/http_server.py (the official Python SDK, JSON responses) serves all three; both proxies
record into temporary SQLite files. Blocks of `calls` echo calls are interleaved over `rounds`
rounds in rotating order (shared machines drift); median and mean round trip per setup are
printed. The gateway adds one prefix match and a scope copy per request in front of the same
proxy, so it should sit within noise of the single proxy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.http_setups import Service, start_proxy, start_server

_INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "1"},
    },
}
_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _session(url: str) -> tuple[httpx.Client, dict[str, str]]:
    client = httpx.Client(timeout=30)
    answer = client.post(url, json=_INIT, headers=_HEADERS)
    headers = {**_HEADERS, "mcp-protocol-version": "2025-11-25"}
    if sid := answer.headers.get("mcp-session-id"):
        headers["mcp-session-id"] = sid
    client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return client, headers


def _block(client: httpx.Client, headers: dict[str, str], url: str, calls: int) -> list[float]:
    times = []
    for i in range(calls):
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}  # fmt: skip
        start = time.perf_counter()
        answer = client.post(url, json=body, headers=headers)
        times.append(time.perf_counter() - start)
        if answer.status_code != 200:
            raise RuntimeError(f"{url}: {answer.status_code} {answer.text[:200]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gateway-bench-"))
    services: list[Service] = []
    try:
        server = start_server("json", work)
        services.append(server)
        proxy = start_proxy(server.url, work / "proxy.db", work, "single")
        services.append(proxy)
        config = work / "gateway.toml"
        routes = "".join(f'[[route]]\nname = "{n}"\nprefix = "/{n}"\ntarget = "{server.url}"\n' for n in "ab")
        config.write_text('listen = "127.0.0.1:0"\n' + routes)
        gateway = Service(
            "gateway",
            [
                sys.executable,
                "-m",
                "inspector",
                "proxy",
                "--config",
                str(config),
                "--db",
                str(work / "gw.db"),
            ],
            work,
            ready=r"gateway on (http://\S+):",
        )
        services.append(gateway)
        path = server.url.split("/", 3)[3]
        urls = {"direct": server.url, "proxy": proxy.url, "gateway": f"{gateway.url}/a/{path}"}
        sessions = {name: _session(url) for name, url in urls.items()}
        for name, url in urls.items():
            _block(*sessions[name], url, 30)  # warm-up
        times: dict[str, list[float]] = {name: [] for name in urls}
        names = list(urls)
        for r in range(args.rounds):
            for name in names[r % 3 :] + names[: r % 3]:
                times[name] += _block(*sessions[name], urls[name], args.calls)
    finally:
        for service in reversed(services):
            service.stop()
    for name, got in times.items():
        median, mean = statistics.median(got) * 1e3, statistics.mean(got) * 1e3
        print(f"{name:8s} {len(got):5d} calls  median {median:6.2f} ms  mean {mean:6.2f} ms")


if __name__ == "__main__":
    main()
