"""Exit: how long after its client closes stdin a wrap has gone, beside the server's own exit.

A host restarts servers often and waits for the old process to go. Each run
spawns the setup, writes a `ping`, reads the answer (the server has spoken:
in a wrap, the recording store starts opening), closes stdin and times from
that close to the process's exit:

    direct   the server itself (bench/responder.py, which exits at EOF)
    wrap     `mcp-inspect wrap --db PATH --quiet -- SERVER` (a fresh database file each run)

The setups are started in interleaved rounds and the median of each is kept;
the figure is wrap's exit time as a ratio of the server's own, measured in the
same run. After each wrap run the bench also checks that the session was
recorded in full (its two messages and its end), waiting for it if a
finishing process is still writing: an exit that loses rows does not count.
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from bench.peer import responder_argv, spawn_answered, startup_argv

EXIT_SETUPS = ("direct", "wrap")
RECORDED_WITHIN_S = 30.0


def exit_after_eof_s(argv: list[str]) -> float:
    """Seconds from closing the process's stdin (after one answered ping) to its exit."""
    proc = spawn_answered(argv)
    assert proc.stdin and proc.stdout
    try:
        t0 = time.perf_counter()
        proc.stdin.close()
        proc.wait(timeout=60)
        return time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def recorded_in_full(db: Path, within_s: float = RECORDED_WITHIN_S) -> bool:
    """The wrap's one session is ended with both messages stored (polled: a finishing process may
    still be writing it)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
                    row = conn.execute(
                        "SELECT s.ended_ns IS NOT NULL, (SELECT count(*) FROM message m"
                        " WHERE m.session_id = s.id) FROM session s"
                    ).fetchone()
                if row and row[0] and row[1] == 2:
                    return True
            except sqlite3.Error:
                pass  # not created yet, or being migrated
        time.sleep(0.05)
    return False


def run_wrap_exit(workdir: Path, runs: int) -> dict[str, Any]:
    """Median ms from stdin's close to exit per setup, wrap's as a ratio of the server's own."""
    server = responder_argv()
    times: dict[str, list[float]] = {s: [] for s in EXIT_SETUPS}
    lost = 0
    exit_after_eof_s(startup_argv("wrap", server, workdir / "warm.db"))  # warm the page cache
    for r in range(runs):
        order = EXIT_SETUPS[r % 2 :] + EXIT_SETUPS[: r % 2]
        for setup in order:
            db = workdir / f"exit-{r}.db"
            times[setup].append(exit_after_eof_s(startup_argv(setup, server, db)))
            if setup == "wrap" and not recorded_in_full(db):
                lost += 1
    med = {s: statistics.median(v) * 1000 for s, v in times.items()}
    return {
        "runs": runs,
        "median_ms": med,
        "max_ms": {s: max(v) * 1000 for s, v in times.items()},
        "ratio": med["wrap"] / med["direct"] if med["direct"] else None,
        "sessions_not_recorded": lost,
    }


if __name__ == "__main__":  # `python -m bench.wrap_exit [RUNS]`: this figure alone
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        print(run_wrap_exit(Path(d), int(sys.argv[1]) if len(sys.argv) > 1 else 10))
