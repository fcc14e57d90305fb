"""Lint and diff at scale (issue 21): a realistic 100k-message session linted, two diffed.

`python -m bench.scale_lint [--quick]`: both at 10,000 and 100,000 messages (time, and the
tracemalloc peak in a second run), beside the same rows read with plain sqlite3 and parsed
with orjson (the baseline) and the issue's targets (lint < 1 s, diff < 2 s).

`generate_session(db, n, name=, changes=)` writes a stdio session through the recorder's own
builder and writer: initialize, notifications/initialized, tools/list, then tools/call
requests with results, progress notifications linked to their call, log notifications (the
server never declared logging: a lint finding each), an error every 97 calls and a reused
request id every 211 (lint findings too). `changes` alters a few results so two sessions
diff as "equal except a few changes".
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from inspector.api.diff_pages import DiffReports
from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.lint import lint_session
from inspector.lint.stored import lint_rows
from inspector.replay.diff import diff_sessions
from inspector.store import SessionWriter, get_session, open_engine
from inspector.store.wire import StoredMessages, wire

_INIT = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n'
)
_INIT_OK = (
    b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":'
    b'{"tools":{"listChanged":true}},"serverInfo":{"name":"gen","version":"1"}}}\n'
)
_INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
_LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\n'
_LIST_OK = (
    b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object",'
    b'"properties":{"message":{"type":"string"}}}},{"name":"add","inputSchema":{"type":"object",'
    b'"properties":{"a":{"type":"number"},"b":{"type":"number"}}}}]}}\n'
)
_CALL = (
    b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s,'
    b'"_meta":{"progressToken":%d}}}\n'
)
_RESULT = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}],"isError":false}}\n'
_ERROR = b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"unknown tool: nope%d"}}\n'
_PROGRESS = (
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,'
    b'"progress":1,"total":2}}\n'
)
_LOG = (
    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"served %d calls"}}\n'
)


def generate_session(db: Path, messages: int, *, name: str, changes: frozenset[int] = frozenset()) -> int:
    """A finished stdio session of about `messages` rows; call numbers in `changes` answer differently."""
    engine = open_engine(db)
    sid = create_session(engine, kind="stdio-wrap", target=["generated-server"], name=name)
    builder = MessageBuilder(sid)
    writer = SessionWriter(engine, sid)
    rows: list[dict[str, Any]] = []
    ts = 1_700_000_000_000_000_000

    def feed(direction: str, channel: str, data: bytes) -> None:
        nonlocal ts
        ts += 100_000
        rows.extend(builder.feed(ts, direction, channel, data))

    feed("c2s", "stdin", _INIT)
    feed("s2c", "stdout", _INIT_OK)
    feed("c2s", "stdin", _INITIALIZED)
    feed("c2s", "stdin", _LIST)
    feed("s2c", "stdout", _LIST_OK)
    i = 1
    while builder.seq < messages:
        i += 1
        rpc_id = i - 1 if i % 211 == 0 else i  # a reused id: duplicate-request-id
        if i % 97 == 0:
            feed("c2s", "stdin", _CALL % (rpc_id, b"nope", b"{}", i))
            feed("s2c", "stdout", _ERROR % (rpc_id, i))
            continue
        if i % 2:
            args, text = b'{"message":"hello %d"}' % i, b"hello %d" % i
            tool = b"echo"
        else:
            args, text = b'{"a":%d,"b":2}' % i, b"%d" % (i + 2)
            tool = b"add"
        if i in changes:
            text += b" (changed)"
        feed("c2s", "stdin", _CALL % (rpc_id, tool, args, i))
        if i % 5 == 0:
            feed("s2c", "stdout", _PROGRESS % i)
        feed("s2c", "stdout", _RESULT % (rpc_id, text))
        if i % 40 == 0:
            feed("s2c", "stdout", _LOG % i)
        if i % 100 == 0:
            feed("s2c", "stderr", b"server log line %d\n" % i)
        if len(rows) >= 20_000:
            writer.on_batch(rows, None)
            rows.clear()
    writer.on_batch(rows, builder.facts.snapshot())
    writer.on_end(0, "generated", builder.facts.snapshot())
    engine.dispose()
    return sid


# --- measuring -----------------------------------------------------------------------------------

LINT_TARGET_S = 1.0
DIFF_TARGET_S = 2.0


_CPU: dict[str, float] = {}  # the process CPU time of the last `_timed` call


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Wall time and value of `fn` (its CPU time in `_CPU["last"]`: steadier on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    _CPU["last"] = time.process_time() - cpu
    return time.perf_counter() - start, value


def _peak_mb(fn: Callable[[], Any]) -> float:
    """The tracemalloc peak of `fn` in MB (Python allocations only; slower than a plain run)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def _read_parse(db: Path, sid: int) -> int:
    """The baseline: every row of a session read with plain sqlite3 and its body parsed (orjson)."""
    conn = sqlite3.connect(db)
    n = 0
    try:
        cur = conn.execute(
            "SELECT seq, direction, channel, kind, method, rpc_id, answers_seq, raw, meta "
            "FROM message WHERE session_id = ? ORDER BY seq",
            (sid,),
        )
        while rows := cur.fetchmany(2000):
            for row in rows:
                with contextlib.suppress(orjson.JSONDecodeError):
                    orjson.loads(row[7])
                n += 1
    finally:
        conn.close()
    return n


def _lint_only(engine: Any, sid: int) -> int:
    return sum(1 for _ in lint_rows(engine, sid))


def _streamed(engine: Any, a: int, b: int) -> Any:
    """The CLI's diff: both sessions streamed, equal exchanges counted, not listed."""
    return diff_sessions(StoredMessages(engine, a), StoredMessages(engine, b), keep_equal=False)


def _pages(engine: Any, a: int, b: int) -> tuple[float, float, float]:
    """`GET /api/diff`'s work for the first page of every exchange (500) and for the next one (wall),
    and the first page's CPU time."""
    reports = DiffReports()
    sa, sb = get_session(engine, a), get_session(engine, b)
    first, _ = _timed(lambda: reports.page(engine, sa, sb, [], False, equal=True, start=0, limit=500))
    first_cpu = _CPU["last"]
    second, _ = _timed(lambda: reports.page(engine, sa, sb, [], False, equal=True, start=500, limit=500))
    return first, second, first_cpu


def run(quick: bool) -> dict[str, Any]:
    """Lint of a 100k session and diff of two (time and tracemalloc peak), 10k beside for flatness."""
    del quick  # the same sizes: 100,000 messages is the figure
    return measure((10_000, 100_000))


def measure(sizes: tuple[int, int]) -> dict[str, Any]:
    """The figures at a small and a large size."""
    out: dict[str, Any] = {"sizes": list(sizes)}
    with tempfile.TemporaryDirectory(prefix="scale-lint-") as tmp:
        db = Path(tmp) / "scale.db"
        ids: dict[int, tuple[int, int]] = {}
        for n in sizes:
            a = generate_session(db, n, name=f"a{n}")
            b = generate_session(db, n, name=f"b{n}", changes=frozenset({500, n // 40, n // 10}))
            ids[n] = (a, b)
        engine = open_engine(db)
        try:
            for n in sizes:
                a, b = ids[n]
                read_s, rows = _timed(lambda a=a: _read_parse(db, a))
                read_cpu = _CPU["last"]
                lint_s, found = _timed(lambda a=a: lint_session(engine, a))
                lint_cpu = _CPU["last"]
                read_both_s, _ = _timed(lambda a=a, b=b: (_read_parse(db, a), _read_parse(db, b)))
                read_both_cpu = _CPU["last"]
                wire_s, _ = _timed(lambda a=a, b=b: (wire(engine, a), wire(engine, b)))
                listed_s, _ = _timed(lambda a=a, b=b: diff_sessions(wire(engine, a), wire(engine, b)))
                listed_cpu = _CPU["last"]
                diff_s, diff = _timed(lambda a=a, b=b: _streamed(engine, a, b))
                diff_cpu = _CPU["last"]
                page_s, next_page_s, page_cpu = _pages(engine, a, b)
                out[str(n)] = {
                    "messages": rows,
                    "read_parse_s": round(read_s, 3),
                    "read_parse_cpu_s": round(read_cpu, 3),
                    "lint_s": round(lint_s, 3),
                    "lint_cpu_s": round(lint_cpu, 3),
                    "findings": len(found),
                    "lint_peak_mb": round(_peak_mb(lambda a=a: _lint_only(engine, a)), 1),
                    "read_both_s": round(read_both_s, 3),
                    "read_both_cpu_s": round(read_both_cpu, 3),
                    "wire_both_s": round(wire_s, 3),
                    "diff_s": round(diff_s, 3),
                    "diff_cpu_s": round(diff_cpu, 3),
                    "diff_counts": diff.counts(),
                    "page_s": round(page_s, 3),
                    "page_cpu_s": round(page_cpu, 3),
                    "next_page_s": round(next_page_s, 4),
                    "listed_s": round(listed_s, 3),
                    "listed_cpu_s": round(listed_cpu, 3),
                    "listed_peak_mb": round(
                        _peak_mb(lambda a=a, b=b: diff_sessions(wire(engine, a), wire(engine, b))), 1
                    ),
                    "wire_both_peak_mb": round(
                        _peak_mb(lambda a=a, b=b: (wire(engine, a), wire(engine, b))), 1
                    ),
                    "diff_peak_mb": round(_peak_mb(lambda a=a, b=b: _streamed(engine, a, b)), 1),
                }
        finally:
            engine.dispose()
    big = out[str(sizes[-1])]
    out["lint_met"] = big["lint_s"] < LINT_TARGET_S
    out["diff_met"] = big["diff_s"] < DIFF_TARGET_S
    return out


def print_figures(figures: dict[str, Any]) -> None:
    """80 columns: each figure beside its same-run baseline and the issue's target."""
    small, large = (figures[str(n)] for n in figures["sizes"])
    n = f"{large['messages']:,}"

    def mark(met: bool) -> str:
        return "met" if met else "MISSED"

    print(f"Lint of a {n}-message session ({large['findings']:,} findings)")
    print(
        f"  lint {large['lint_s']:.2f} s   read+parse baseline {large['read_parse_s']:.2f} s"
        f"   target < {LINT_TARGET_S:.0f} s: {mark(figures['lint_met'])}"
    )
    print(f"  CPU time: lint {large['lint_cpu_s']:.2f} s, read+parse {large['read_parse_cpu_s']:.2f} s")
    print(
        f"  peak (tracemalloc) {small['lint_peak_mb']} MB at {small['messages']:,}, "
        f"{large['lint_peak_mb']} MB at {n}"
    )
    c = large["diff_counts"]
    print(f"Diff of two {n}-message sessions ({c['changed']} changed, {c['equal']:,} equal)")
    print(
        f"  diff {large['diff_s']:.2f} s   read+parse both {large['read_both_s']:.2f} s"
        f"   target < {DIFF_TARGET_S:.0f} s: {mark(figures['diff_met'])}"
    )
    print(
        f"  CPU time: diff {large['diff_cpu_s']:.2f} s, read+parse both {large['read_both_cpu_s']:.2f} s"
        f" ({large['diff_cpu_s'] / max(large['read_both_cpu_s'], 1e-9):.2f}x);"
        f" reading both (wire) {large['wire_both_s']:.2f} s wall"
    )
    print(
        f"  GET /api/diff (equal listed too): first page {large['page_s']:.2f} s"
        f" (CPU {large['page_cpu_s']:.2f} s), next page {large['next_page_s'] * 1000:.1f} ms"
    )
    print(
        f"  listed (whole sessions in lists, every exchange kept: the API's report)"
        f" {large['listed_s']:.2f} s, CPU {large['listed_cpu_s']:.2f} s"
    )
    flat = large["diff_peak_mb"] < 1.5 * small["diff_peak_mb"] + 1
    print(
        f"  peak streamed {small['diff_peak_mb']} MB at {small['messages']:,}, {large['diff_peak_mb']} MB"
        f" at {n}: {'flat' if flat else 'NOT flat'}"
    )
    print(
        f"  peak listed {small['listed_peak_mb']} MB at {small['messages']:,}, {large['listed_peak_mb']} MB"
        f" at {n} (reading both: {large['wire_both_peak_mb']} MB)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_lint", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the same sizes (10k and 100k messages)")
    args = parser.parse_args(argv)
    print_figures(run(args.quick))


if __name__ == "__main__":
    main()
