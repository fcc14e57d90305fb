"""Runs compared (issue #39 item 5): the summary a diff of two sessions opens with, in the text
report, `--json` and the API. The exchanges per bucket (`SessionDiff.buckets`: regressed, fixed,
new, removed, changed, volatile, unchanged) and, per method and per tool / prompt / resource name,
the p50 and p95 latency of each session and their deltas. The latencies are the stats of each
session (`store.stats.session_stats`, the one computation of them), matched by method and name."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from inspector.replay.diff.model import BUCKETS
from inspector.store.stats import session_stats
from inspector.terminal_text import visible

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from inspector.replay.diff import SessionDiff

__all__ = ["latency_deltas", "ms_text", "render_compared", "runs_compared"]

WIDTH = 80
_NAME = 28  # the latency table's first column; six columns of 8 follow
_ROWS = 30  # latency rows the text report prints (`--json` and the API list every one)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 3)


def latency_deltas(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of two sessions' stats (`session_stats(...)["methods"]`) side by side, by method
    and name, in a's order then b's own: each row's p50 / p95 in a and in b (None where a side
    answered no call) and b minus a. Rows answered in neither session (notifications) are left out."""
    by_key = {(r["method"], r["name"]): r for r in b}
    keys = [(r["method"], r["name"]) for r in a]
    seen = set(keys)
    keys += [k for k in by_key if k not in seen]
    in_a = {(r["method"], r["name"]): r for r in a}
    out = []
    for method, name in keys:
        ra, rb = in_a.get((method, name), {}), by_key.get((method, name), {})
        a50, a95, b50, b95 = ra.get("p50_ms"), ra.get("p95_ms"), rb.get("p50_ms"), rb.get("p95_ms")
        if a50 is None and b50 is None:
            continue
        out.append(
            {
                "method": method,
                "name": name,
                "a_count": int(ra.get("count", 0)),
                "b_count": int(rb.get("count", 0)),
                "a_p50_ms": a50,
                "b_p50_ms": b50,
                "p50_delta_ms": _delta(a50, b50),
                "a_p95_ms": a95,
                "b_p95_ms": b95,
                "p95_delta_ms": _delta(a95, b95),
            }
        )
    return out


def runs_compared(engine: Engine, diff: SessionDiff, a: int, b: int) -> dict[str, Any]:
    """The summary of the diff of sessions `a` and `b`: `buckets` (exchanges per bucket) and
    `latency` (`latency_deltas` of their stats)."""
    latency = latency_deltas(session_stats(engine, a)["methods"], session_stats(engine, b)["methods"])
    return {"buckets": diff.buckets(), "latency": latency}


def ms_text(value: float | None, sign: bool = False) -> str:
    """A latency (or, with `sign`, a delta) in milliseconds as the reports print it; `-` for None."""
    if value is None:
        return "-"
    text = f"{value:+.1f}" if sign else f"{value:.1f}"
    return text if len(text) <= 7 else (f"{value:+.0f}" if sign else f"{value:.0f}")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def render_compared(summary: dict[str, Any], a: int, b: int) -> str:
    """The summary as text, at most `WIDTH` columns: the buckets, then the latency table (p50 and
    p95 of a and b in milliseconds, and b minus a), every recorded name through `visible`."""
    buckets = summary["buckets"]
    counts = ", ".join(f"{buckets[k]} {k}" for k in BUCKETS)
    lines = [f"runs compared: a = session {a}, b = session {b}"]
    lines += textwrap.wrap(counts, WIDTH, initial_indent="  ", subsequent_indent="  ")
    rows = summary["latency"]
    if rows:
        head = "latency (ms)".ljust(_NAME)
        lines.append(
            head + "".join(f"{h:>8}" for h in ("p50 a", "p50 b", "delta", "p95 a", "p95 b", "delta"))
        )
        for r in rows[:_ROWS]:
            label = r["method"] if r["name"] is None else "  " + r["name"]
            cells = (
                ms_text(r["a_p50_ms"]),
                ms_text(r["b_p50_ms"]),
                ms_text(r["p50_delta_ms"], True),
                ms_text(r["a_p95_ms"]),
                ms_text(r["b_p95_ms"]),
                ms_text(r["p95_delta_ms"], True),
            )
            lines.append(_cut(visible(label), _NAME - 1).ljust(_NAME) + "".join(f"{c:>8}" for c in cells))
        if len(rows) > _ROWS:
            lines.append(f"  ... {len(rows) - _ROWS} more rows (--json lists every one)")
    return "\n".join(visible(line) for line in lines)
