"""The waterfall: a session's requests as spans in time, from request to answer, for a time window.

One SQL statement per lane (a session; a host run has a lane per session), on SQLite and PostgreSQL,
over the calls `store.stats` pairs (`stats.calls_sql`: a request's row and its one answer, grouped by
the request's seq; no second pairing here). Inside the window `[lo, hi]` (a span is in it when it
starts by `hi` and ends at or after `lo`; one never answered ends at the session's last row):

- when at most `limit` spans are in it, each span (seq, answer seq, method, name, direction, start,
  end, failed) and the progress ticks of those spans (`notifications/progress` rows, linked to
  their request by the recorder: `meta.related_seq`, from the request's `_meta.progressToken`);
- beyond it, `buckets` equal slices of the window, each with its spans' count, failures and the
  largest latency (a span is counted in the slice where it starts, or the first one when it started
  before the window).

A server-to-client request (`NESTED`: sampling, elicitation, roots) sent while a client request was
open is drawn inside that request (`nest`): on HTTP the one of the same exchange (`meta.exchange`:
the server's request came on the client request's response stream), else the innermost client
request open at its start (on stdio: time containment in the same session).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.store.db import Conn, reading
from inspector.store.stats import calls_sql, out_of_line

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from inspector.store.db import Db

__all__ = ["MAX_BUCKETS", "MAX_LIMIT", "NESTED", "Window", "lane", "nest", "session_waterfall", "waterfall"]

# The server's requests drawn inside the client request they were sent for.
NESTED = ("sampling/createMessage", "elicitation/create", "roots/list")
MAX_LIMIT = 5000  # spans returned one by one at most, per lane
MAX_BUCKETS = 4000  # slices of the window at most (a pixel each on a wide screen)


@dataclass(frozen=True)
class Window:
    """The time window asked for (None: the lanes' first / last row), and the budget per lane."""

    lo: int | None = None
    hi: int | None = None
    limit: int = 1000
    buckets: int = 400


def _exchange(backend: str) -> str:
    if backend == "sqlite":
        return "json_extract(m.meta, '$.exchange')"
    return "(m.meta ->> 'exchange')"


def _related(backend: str) -> str:
    if backend == "sqlite":
        return "json_extract(meta, '$.related_seq')"
    return "CAST(meta ->> 'related_seq' AS BIGINT)"


def _waterfall_sql(backend: str) -> str:
    """One lane's statement: spans and ticks ('s', 'p') or buckets ('b'), per the module's docstring."""
    big = "GREATEST" if backend == "postgresql" else "MAX"
    return (
        calls_sql(backend)
        + f""",
spans AS (
  SELECT c.seq, c.answer_seq, c.ts_ns AS start_ns,
         CASE WHEN c.latency_ns IS NOT NULL THEN c.ts_ns + c.latency_ns END AS end_ns,
         c.latency_ns, c.method, c.name, c.failed, m.direction, {_exchange(backend)} AS exchange
  FROM calls c JOIN message m ON m.session_id = :sid AND m.seq = c.seq
  WHERE m.kind = 'request' AND c.ts_ns <= :hi AND COALESCE(c.ts_ns + c.latency_ns, :last) >= :lo
),
total AS (SELECT COUNT(*) AS n FROM spans)
SELECT 's' AS what, seq, answer_seq, start_ns, end_ns, method, name, failed, direction, exchange
FROM spans, total WHERE total.n <= :limit
UNION ALL
SELECT 'p', {_related(backend)}, seq, ts_ns, NULL, NULL, NULL, NULL, NULL, NULL
FROM message, total
WHERE total.n <= :limit AND session_id = :sid AND method = 'notifications/progress'
  AND kind = 'notification' AND ts_ns >= :lo AND ts_ns <= :hi
UNION ALL
SELECT 'b', b, COUNT(*), SUM(failed), MAX(latency_ns), NULL, NULL, MIN(total.n), NULL, NULL
FROM (SELECT ({big}(start_ns, :lo) - :lo) / :slice AS b, failed, latency_ns FROM spans) AS sliced,
     total
WHERE total.n > :limit
GROUP BY b
ORDER BY 1, 4, 2
"""
    )


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def nest(spans: list[dict[str, Any]]) -> None:
    """Set each span's `parent_seq`: for a server's request of `NESTED`, the client request it was
    sent for (the same HTTP exchange, else the innermost client request open at its start); else None.
    `spans` are in start order."""
    by_exchange = {s["exchange"]: s for s in spans if s["direction"] == "c2s" and s["exchange"] is not None}
    open_: list[dict[str, Any]] = []  # client requests started so far, by start
    for s in spans:
        s["parent_seq"] = None
        if s["direction"] == "c2s":
            open_.append(s)
            continue
        if s["method"] not in NESTED:
            continue
        parent = by_exchange.get(s["exchange"]) if s["exchange"] is not None else None
        if parent is None:
            for p in reversed(open_):
                if p["end_ns"] is None or p["end_ns"] >= s["start_ns"]:
                    parent = p
                    break
        if parent is not None:
            s["parent_seq"] = parent["seq"]


def _extent(conn: Conn, session_ids: list[int]) -> tuple[int, int] | None:
    """The first and last row's time of these sessions (None: no rows)."""
    lo: int | None = None
    hi: int | None = None
    for sid in session_ids:
        row = conn.all("SELECT MIN(ts_ns), MAX(ts_ns) FROM message WHERE session_id = :sid", {"sid": sid})[0]
        if row[0] is None:
            continue
        lo = int(row[0]) if lo is None else min(lo, int(row[0]))
        hi = int(row[1]) if hi is None else max(hi, int(row[1]))
    return None if lo is None or hi is None else (lo, hi)


def lane(conn: Conn, session_id: int, lo: int, hi: int, last: int, window: Window) -> dict[str, Any]:
    """One session's spans (with `parent_seq` and `progress` ticks) or buckets in `[lo, hi]`."""
    limit = max(0, min(window.limit, MAX_LIMIT))
    buckets = max(1, min(window.buckets, MAX_BUCKETS))
    width = hi - lo + 1
    params = {
        "sid": session_id,
        # The names of calls whose bodies are stored out of line are read in Python, as in stats.
        "fixes": json.dumps(out_of_line(conn, session_id)),
        "lo": lo,
        "hi": hi,
        "last": last,
        "limit": limit,
        "slice": -(-width // buckets),  # a division, not a product: no overflow on a long session
    }
    spans: list[dict[str, Any]] = []
    ticks: dict[int, list[int]] = {}
    counts = [0] * buckets
    errors = [0] * buckets
    max_ns = [0] * buckets
    total = 0
    aggregated = False
    for what, a, b, c, d, method, name, failed, direction, exchange in conn.all(
        _waterfall_sql(conn.backend), params
    ):
        if what == "s":
            spans.append(
                {
                    "seq": int(a),
                    "answer_seq": _int(b),
                    "start_ns": int(c),
                    "end_ns": _int(d),
                    "method": method,
                    "name": name,
                    "failed": bool(failed),
                    "direction": direction,
                    "exchange": _int(exchange),
                    "progress": [],
                }
            )
        elif what == "p":
            if a is not None:
                ticks.setdefault(int(a), []).append(int(c))
        else:
            aggregated = True
            i = min(int(a), buckets - 1)
            counts[i] += int(b)
            errors[i] += int(c or 0)
            max_ns[i] = max(max_ns[i], int(d or 0))
            total = int(failed)
    if not aggregated:
        total = len(spans)
        for s in spans:
            s["progress"] = ticks.get(s["seq"], [])
        nest(spans)
    return {
        "session_id": session_id,
        "total": total,
        "spans": None if aggregated else spans,
        "buckets": (
            {
                "slice_ns": params["slice"],
                "count": counts,
                "errors": errors,
                "max_ms": [round(n / 1e6, 3) for n in max_ns],
            }
            if aggregated
            else None
        ),
    }


def waterfall(store: Db | Engine, session_ids: list[int], window: Window = Window()) -> dict[str, Any]:
    """The lanes of these sessions (one each, in this order) over `window`, and the window's and the
    sessions' extents: `{"start_ns", "end_ns", "lo", "hi", "lanes": [...]}`."""
    with reading(store) as conn:
        extent = _extent(conn, session_ids)
        if extent is None:
            return {"start_ns": None, "end_ns": None, "lo": None, "hi": None, "lanes": []}
        first, last = extent
        # Clamped to the rows' extent: a window beyond it holds nothing more, and stays small enough
        # for 64-bit arithmetic in the statement.
        lo = first if window.lo is None else min(max(window.lo, first), last)
        hi = last if window.hi is None else min(max(window.hi, lo), last)
        lanes = [lane(conn, sid, lo, hi, last, window) for sid in session_ids]
    return {"start_ns": first, "end_ns": last, "lo": lo, "hi": hi, "lanes": lanes}


def session_waterfall(store: Db | Engine, session_id: int, window: Window = Window()) -> dict[str, Any]:
    """One session's waterfall (one lane)."""
    return waterfall(store, [session_id], window)
