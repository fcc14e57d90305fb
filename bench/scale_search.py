"""`python -m bench.scale_search [--quick]`: full-text search over a large database (issue 21).

A database of `messages` rows (1,000,000; 100,000 with --quick) in 10 sessions, written through the
recorder's own row builder and store writer (the index kept as rows arrive: store/fts.py), holding
varied words: `jsonrpc` in every row, `answer` in every response (half the rows), `zanzibar` in one
row in 10,000, and `kumquat` only past the stored head of one large (compressed, out-of-line) body
per session. Timed, each beside the raw FTS5 query in plain `sqlite3` on the same file:

- a page of 50 hits (`store.search.search_page`, what `GET /api/search` runs: hits, session names,
  snippets and a total counted up to 10,000) over all sessions and over one, for a rare, a common
  and a two-word query; the first search of a freshly opened store beside the later ones (the index
  is never built in a request);
- recording throughput: the same rows written by the store writer into a file with the index
  and into one without (`StoreWriter.full_text` off), best of 3 alternating, and their ratio.

Target (issue 21): a search answers in under 200 ms.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.store import SessionWriter, open_engine
from inspector.store.search import fts_query, search_page

__all__ = ["generate", "print_figures", "run"]

TARGET_MS = 200.0
SESSIONS = 10
REQ = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool%d","arguments":{"n":%d}}}\n'
RESP = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer %d %s"}]}}\n'
RARE_EVERY = 10_000
QUERIES = {"rare": "zanzibar", "common": "answer", "two words": "jsonrpc answer", "large body": "kumquat"}


def _large_body(i: int) -> bytes:
    filler = b"lorem ipsum dolor sit amet " * 400  # ~11 kB: out of line and compressed (store/bodies.py)
    return b'{"jsonrpc":"2.0","id":%d,"result":{"text":"%s kumquat"}}\n' % (i, filler)


def _session_rows(sid: int, count: int, first_id: int) -> list[Any]:
    """Rows of one session: request/response pairs, a rare word now and then, one large body."""
    builder = MessageBuilder(sid)
    rows: list[Any] = []
    ts = 1_700_000_000_000_000_000
    i = first_id
    while builder.seq < count:
        i += 1
        ts += 1_000_000
        rows += builder.feed(ts, "c2s", "stdin", REQ % (i, i % 7, i))
        if builder.seq >= count:
            break
        word = b"zanzibar" if i % (RARE_EVERY // 2) == 0 else b"w%d" % (i % 997)
        body = _large_body(i) if builder.seq == (count // 2) | 1 else RESP % (i, i, word)
        rows += builder.feed(ts + 250_000, "s2c", "stdout", body)
    return rows


def generate(db: Path, messages: int, *, batch: int = 20_000) -> tuple[list[int], float]:
    """`SESSIONS` finished sessions of `messages` rows in all; their ids and the seconds spent writing."""
    engine = open_engine(db)
    per = messages // SESSIONS
    sids, spent = [], 0.0
    for n in range(SESSIONS):
        sid = create_session(engine, kind="stdio-wrap", target=["search-bench"], name=f"search bench {n + 1}")
        rows = _session_rows(sid, per, n * per)
        writer = SessionWriter(engine, sid)
        t0 = time.perf_counter()
        for start in range(0, len(rows), batch):
            writer.on_batch(rows[start : start + batch], None)
        writer.on_end(0, "generated")
        spent += time.perf_counter() - t0
        sids.append(sid)
    engine.dispose()
    return sids, spent


def _write_once(workdir: Path, rows_n: int, name: str, *, indexed: bool) -> float:
    """Rows a second the store writer takes into a fresh file, with the full-text index or without."""
    engine = open_engine(workdir / f"{name}.db")
    sid = create_session(engine, kind="stdio-wrap", target=["tp"], name=name)
    rows = _session_rows(sid, rows_n, 0)
    writer = SessionWriter(engine, sid)
    writer._writer.full_text = indexed
    t0 = time.perf_counter()
    for start in range(0, len(rows), 2000):
        writer.on_batch(rows[start : start + 2000], None)
    rate = len(rows) / (time.perf_counter() - t0)
    writer.on_end(0, "done")
    engine.dispose()
    return rate


def _throughput(workdir: Path, rows_n: int, rounds: int = 3) -> tuple[float, float]:
    """(indexed, plain) rows a second: best of `rounds`, the two alternating (a busy machine slows both)."""
    on = off = 0.0
    for r in range(rounds):
        on = max(on, _write_once(workdir, rows_n, f"on-{r}", indexed=True))
        off = max(off, _write_once(workdir, rows_n, f"off-{r}", indexed=False))
    return on, off


def _ms(fn: Any, repeat: int = 5) -> tuple[float, float]:
    """(first call, median of the next `repeat`) in milliseconds."""
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1000
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return first, statistics.median(times)


def _raw(db: Path, match: str, bounds: tuple[int, int] | None, sid: int | None) -> Any:
    conn = sqlite3.connect(db)

    def go() -> None:
        if bounds is None:
            conn.execute(
                "SELECT rowid FROM message_fts WHERE message_fts MATCH ? ORDER BY rowid LIMIT 50", (match,)
            ).fetchall()
        else:
            conn.execute(
                "SELECT m.id FROM message_fts f CROSS JOIN message m ON m.id = f.rowid "
                "WHERE f.message_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND m.session_id = ? "
                "ORDER BY f.rowid LIMIT 50",
                (match, bounds[0], bounds[1], sid),
            ).fetchall()

    return go


def run(quick: bool) -> dict[str, Any]:
    messages = 100_000 if quick else 1_000_000
    figures: dict[str, Any] = {"messages": messages, "target_ms": TARGET_MS, "searches": {}}
    with tempfile.TemporaryDirectory(prefix="scale-search-") as tmp:
        workdir = Path(tmp)
        db = workdir / "search.db"
        sids, spent = generate(db, messages)
        figures["write_s"] = spent
        one = sids[len(sids) // 2]
        with sqlite3.connect(db) as conn:
            lo = conn.execute("SELECT MIN(id), MAX(id) FROM message WHERE session_id = ?", (one,)).fetchone()
        engine = open_engine(db)  # a fresh open: the first search below is this process's first
        for label, query in QUERIES.items():
            for scope, sid in (("all", None), ("one", one)):
                page = search_page(engine, query, session_id=sid)
                first, later = _ms(lambda q=query, s=sid: search_page(engine, q, session_id=s))
                _, raw = _ms(_raw(db, fts_query(query), None if sid is None else lo, sid))
                figures["searches"][f"{label}/{scope}"] = {
                    "query": query,
                    "hits": len(page.hits),
                    "total": page.total,
                    "total_exact": page.total_exact,
                    "first_ms": first,
                    "ms": later,
                    "raw_ms": raw,
                }
        engine.dispose()
        tp_rows = 50_000 if quick else 200_000
        figures["rows_per_s_indexed"], figures["rows_per_s_plain"] = _throughput(workdir, tp_rows)
    return figures


def print_figures(figures: dict[str, Any]) -> None:
    target = figures["target_ms"]
    print(f"Full-text search, {figures['messages']:,} messages in {SESSIONS} sessions")
    print(f"(written with the index kept as rows arrive in {figures['write_s']:.1f} s)")
    print(f"{'query / scope':<22}{'hits':>6}{'total':>8}{'1st ms':>8}{'ms':>8}{'raw ms':>8}  target")
    for key, f in figures["searches"].items():
        total = f"{f['total']}{'' if f['total_exact'] else '+'}"
        mark = "met" if max(f["first_ms"], f["ms"]) < target else "MISSED"
        print(
            f"{key:<22}{f['hits']:>6}{total:>8}{f['first_ms']:>8.1f}{f['ms']:>8.1f}"
            f"{f['raw_ms']:>8.2f}  <{target:.0f} {mark}"
        )
    on, off = figures["rows_per_s_indexed"], figures["rows_per_s_plain"]
    print(f"Recording (store writer): {on:,.0f} rows/s indexed, {off:,.0f} without the index")
    print(f"  ratio {on / off:.2f} (no target; indexing runs on the writer thread)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 messages instead of 1,000,000")
    args = parser.parse_args()
    print_figures(run(args.quick))


if __name__ == "__main__":
    main()
