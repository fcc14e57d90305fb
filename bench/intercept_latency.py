"""Intercept off the forwarding path: ping latency through wrap with and without `--faults`, side by side.

Four setups around the same server-everything, alive at the same time and
measured in interleaved rounds (as bench/stdio_latency.py does): socat (the
floor of one extra process hop), plain `mcp-inspect wrap`, `wrap --faults`
with a rules file whose only rule never matches (the intercepting pumps
frame and classify every line and ask the interceptor, which says "pass"),
and, for the note, `wrap --faults` with a `delay ms: 0` rule matching every
message (every line is an intervention, recorded with its meta). Ratios are
against socat. A plain wrap never imports the interceptor, so its figure is
the one that must not move (compare with the latency section).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.peer import WRAP_PREFIX, Peer, everything_argv, setup_argv
from bench.stdio_latency import _pings, percentile

SETUPS = ("socat", "wrap", "wrap-faults-idle", "wrap-faults-delay0")
LABELS = {
    "socat": "socat relay",
    "wrap": "mcp-inspect wrap",
    "wrap-faults-idle": "wrap --faults (rule never matches)",
    "wrap-faults-delay0": "wrap --faults (delay 0 ms, every message)",
}
IDLE_RULES = "rules:\n  - name: never\n    match: {method: never/called}\n    action: drop\n"
DELAY0_RULES = "rules:\n  - name: all\n    action: delay\n    ms: 0\n"


def _argv(setup: str, server: list[str], workdir: Path) -> list[str]:
    if setup in ("socat", "wrap"):
        return setup_argv(setup, server, workdir)
    rules = workdir / f"{setup}.yaml"
    rules.write_text(IDLE_RULES if setup == "wrap-faults-idle" else DELAY0_RULES)
    db = workdir / f"{setup}.db"
    return [*WRAP_PREFIX, "--db", str(db), "--quiet", "--faults", str(rules), "--", *server]


def run_intercept_latency(workdir: Path, pings: int, warmup: int, rounds: int) -> dict[str, Any]:
    server = everything_argv()
    peers: dict[str, Peer] = {}
    try:
        for setup in SETUPS:
            peers[setup] = Peer(setup, server, workdir, argv=_argv(setup, server, workdir))
        for peer in peers.values():
            peer.handshake()
        next_id = dict.fromkeys(SETUPS, 1)
        for setup, peer in peers.items():
            _pings(peer, next_id[setup], warmup)
            next_id[setup] += warmup
        samples: dict[str, list[int]] = {s: [] for s in SETUPS}
        per_round = [pings // rounds + (1 if r < pings % rounds else 0) for r in range(rounds)]
        for r, count in enumerate(per_round):
            for setup in SETUPS[r % len(SETUPS) :] + SETUPS[: r % len(SETUPS)]:
                samples[setup] += _pings(peers[setup], next_id[setup], count)
                next_id[setup] += count
        for peer in peers.values():
            peer.close(timeout=30)
    except BaseException:
        for peer in peers.values():
            peer.kill()
        raise
    out: dict[str, Any] = {"pings": pings, "warmup": warmup, "rounds": rounds, "setups": {}}
    base = percentile(samples["socat"], 50)
    base90 = percentile(samples["socat"], 90)
    for setup in SETUPS:
        ns = samples[setup]
        p50, p90 = percentile(ns, 50), percentile(ns, 90)
        out["setups"][setup] = {
            "p50_us": p50 / 1000,
            "p90_us": p90 / 1000,
            "p99_us": percentile(ns, 99) / 1000,
            "p50_vs_socat": p50 / base,
            "p90_vs_socat": p90 / base90,
            "exit_code": peers[setup].proc.returncode,
        }
    return out


def print_intercept(console: Any, result: dict[str, Any]) -> None:
    from rich.table import Table

    t = Table(
        title=f"Intercept off and on: {result['pings']} pings to server-everything, ratios against socat",
        title_justify="left",
    )
    for col in ("setup", "p50 us", "p90 us", "p99 us", "p50/socat", "p90/socat"):
        t.add_column(col, justify="left" if col == "setup" else "right")
    for setup, r in result["setups"].items():
        t.add_row(
            LABELS.get(setup, setup),
            f"{r['p50_us']:.1f}",
            f"{r['p90_us']:.1f}",
            f"{r['p99_us']:.1f}",
            f"{r['p50_vs_socat']:.2f}x",
            f"{r['p90_vs_socat']:.2f}x",
        )
    console.print(t)
