"""`python -m bench.scale_pages [--quick]`: API message pages at scale (issue 21).

On an n-message session (quick: 100,000; full: 1,000,000; a lint finding on every 97th message
for the `findings` filter), each figure beside its baseline measured in the same run:

1. A page of 500 at random depths (`after_seq`): over HTTP to a UI server (one keep-alive
   connection, `KeepAliveClient`; the httpx figure beside it) and in-process (the store call +
   orjson), against the same SELECT in plain sqlite3. Target: HTTP within 3x.
2. Filtered pages at deep offsets (50-90% into the filter's rows), one per filter kind (method,
   direction, kind, findings, a combination, the text filter `q` alone and with a kind), over
   HTTP against the same filtered SQL in plain sqlite3. Target: within 5x.
3. The filter's total (`count=true`, the figure the UI waits for on a filter change), over HTTP
   against `SELECT count(*)` with the same WHERE in plain sqlite3.
4. The UI server's RSS (a process of its own, read from /proc) before, while and after paging
   through the whole session, every page by its next_cursor. Flat: under 32 MB of growth after
   the first pages.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import orjson
from sqlalchemy.dialects import sqlite as sqlite_dialect

from bench.ui_data import generate
from inspector.store import open_engine
from inspector.store.pages import MessageFilter, count_statement, message_page, page_params, page_statement

PAGE = 500
PLAIN_TARGET = 3.0
FILTERED_TARGET = 5.0
RSS_FLAT_MB = 32.0
FINDING_EVERY = 97
FILTERS: dict[str, tuple[dict[str, Any], MessageFilter]] = {
    "method": ({"method": "tools/call"}, MessageFilter(methods=("tools/call",))),
    "direction": ({"direction": "s2c"}, MessageFilter(direction="s2c")),
    "kind": ({"kind": "response"}, MessageFilter(kinds=("response",))),
    "findings": ({"findings": "any"}, MessageFilter(findings="any")),
    "combined": (
        {"direction": "c2s", "kind": "request", "method": "tools/*"},
        MessageFilter(direction="c2s", kinds=("request",), methods=("tools/*",)),
    ),
    # The timeline's text filter (FTS5); the baseline is the plain `id IN (MATCH)` SQL.
    "text": ({"q": "tool3"}, MessageFilter(text="tool3")),
    "text+kind": ({"q": "tool3", "kind": "request"}, MessageFilter(text="tool3", kinds=("request",))),
}


def _stats(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s)
    return {
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2),
    }


def add_findings(db: Path, sid: int) -> int:
    """A lint finding on every FINDING_EVERY-th message (warnings and errors), as `lint` stores them."""
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO lint_finding (session_id, seq, message_id, severity, rule, explanation, "
            "spec_section) SELECT session_id, seq, id, CASE WHEN seq % 2 THEN 'warning' ELSE 'error' "
            "END, 'bench-rule', 'generated for the benchmark', 'none' FROM message "
            f"WHERE session_id = ? AND seq % {FINDING_EVERY} = 0",
            (sid,),
        )
        return int(conn.execute("SELECT count(*) FROM lint_finding").fetchone()[0])


class _Answer:
    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code, self.content = status_code, content

    def json(self) -> Any:
        return orjson.loads(self.content)


class KeepAliveClient:
    """GET over one persistent HTTP/1.1 connection (stdlib `http.client`), as a browser keeps one.

    The timed client: httpx's own work per request (its request/response models, h11 in Python)
    was ~1.5 ms of a page's HTTP figure on the benchmark machine (a 240 kB answer from a bare
    uvicorn app: 1.47 ms with httpx, 0.36 ms with http.client), a cost of the benchmark's client
    rather than of the server. The httpx figure is still printed beside it."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(base_url)
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
        self.headers = headers

    def get(self, url: str, params: dict[str, Any] | None = None) -> _Answer:
        self.conn.request("GET", f"{url}?{urlencode(params or {}, doseq=True)}", headers=self.headers)
        response = self.conn.getresponse()
        return _Answer(response.status, response.read())

    def close(self) -> None:
        self.conn.close()


class _Server:
    """The UI server in a process of its own (so that its RSS is its own)."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.scale_pages", "--serve", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert self.proc.stdout is not None
        info = orjson.loads(self.proc.stdout.readline())
        self.base_url, self.token = info["base_url"], info["token"]

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def cpu_s(self) -> float:
        """The server process's CPU time so far (user + system, /proc ticks)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _serve(db: str) -> None:
    from inspector.api import UiServer

    server = UiServer(open_engine(Path(db)), port=0).start()
    print(orjson.dumps({"base_url": server.base_url, "token": server.token}).decode(), flush=True)
    sys.stdin.read()  # until the benchmark closes our stdin
    server.stop()


def plain_sql(stmt: Any, params: dict[str, Any]) -> tuple[str, list[Any]]:
    """A statement of `store.pages` as SQLite text with its positional parameters."""
    state = stmt.compile(dialect=sqlite_dialect.dialect()).construct_expanded_state(params)
    return state.statement, list(state.positional_parameters)


def plain_pages(
    db: Path, sid: int, total: int, reps: int, server: _Server, client: KeepAliveClient, other: httpx.Client
) -> dict[str, Any]:
    engine = open_engine(db)
    raw = sqlite3.connect(db)
    sql, params = plain_sql(
        page_statement("sqlite", MessageFilter(), after=True), page_params(sid, after_seq=0)
    )
    params = params[:-3]  # the session, then after_seq, limit, offset: given per page below
    rng = random.Random(21)
    depths = [rng.randrange(0, total - PAGE) for _ in range(reps)]
    baseline, inproc, http, with_httpx, server_cpu = [], [], [], [], []
    url = f"/api/sessions/{sid}/messages"
    client.get(url, params={"limit": PAGE})  # warm-up
    other.get(url, params={"limit": PAGE})
    for d in depths:
        t = time.perf_counter()
        raw.execute(sql, (*params, d, PAGE, 0)).fetchall()
        baseline.append(time.perf_counter() - t)
        t = time.perf_counter()
        orjson.dumps({"items": message_page(engine, sid, MessageFilter(), after_seq=d, limit=PAGE)[0]})
        inproc.append(time.perf_counter() - t)
        t = time.perf_counter()
        cpu = server.cpu_s()
        r = client.get(url, params={"after_seq": d, "limit": PAGE})
        http.append(time.perf_counter() - t)
        server_cpu.append(server.cpu_s() - cpu)
        assert r.status_code == 200 and len(r.json()["items"]) == PAGE
        t = time.perf_counter()
        r2 = other.get(url, params={"after_seq": d, "limit": PAGE})
        with_httpx.append(time.perf_counter() - t)
        assert r2.status_code == 200
    raw.close()
    engine.dispose()
    out: dict[str, Any] = {
        "sqlite3": _stats(baseline),
        "in_process": _stats(inproc),
        "http": _stats(http),
        "http_httpx": _stats(with_httpx),
        "server_cpu_ms": round(sum(server_cpu) / len(server_cpu) * 1000, 2),
    }
    out["ratio"] = round(out["http"]["median_ms"] / out["sqlite3"]["median_ms"], 2)
    return out


def filtered_pages(db: Path, sid: int, reps: int, client: KeepAliveClient) -> dict[str, Any]:
    raw = sqlite3.connect(db)
    rng = random.Random(7)
    url = f"/api/sessions/{sid}/messages"
    out: dict[str, Any] = {}
    for name, (query, flt) in FILTERS.items():
        # The same SQL the API runs, compiled from its statement, in plain sqlite3.
        page_sql, values = plain_sql(page_statement("sqlite", flt), page_params(sid))
        params = values[:-2]  # the filter's, then limit and offset: given per page below
        count_sql, count_params = plain_sql(count_statement("sqlite", flt), {"sid": sid})
        assert count_params == params
        matching = int(raw.execute(count_sql, params).fetchone()[0])
        offsets = [int(matching * rng.uniform(0.5, 0.9)) for _ in range(reps)]
        baseline, http, raw_count, http_count = [], [], [], []
        for off in offsets:
            t = time.perf_counter()
            raw.execute(page_sql, (*params, PAGE, off)).fetchall()
            baseline.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = client.get(url, params={**query, "offset": off, "limit": PAGE})
            http.append(time.perf_counter() - t)
            assert r.status_code == 200 and len(r.json()["items"]) == min(PAGE, matching - off)
            t = time.perf_counter()
            raw.execute(count_sql, params).fetchone()
            raw_count.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = client.get(url, params={**query, "limit": 1, "count": "true"})
            http_count.append(time.perf_counter() - t)
            assert r.json()["total"] == matching
        fig: dict[str, Any] = {
            "matching": matching,
            "sqlite3": _stats(baseline),
            "http": _stats(http),
            "count_sqlite3": _stats(raw_count),
            "count_http": _stats(http_count),
        }
        fig["ratio"] = round(fig["http"]["median_ms"] / fig["sqlite3"]["median_ms"], 2)
        fig["count_ratio"] = round(fig["count_http"]["median_ms"] / fig["count_sqlite3"]["median_ms"], 2)
        out[name] = fig
    raw.close()
    return out


def rss_while_paging(server: _Server, sid: int, client: KeepAliveClient) -> dict[str, Any]:
    url = f"/api/sessions/{sid}/messages"
    before = server.rss_mb()
    samples: list[float] = []
    pages = 0
    params: dict[str, Any] = {"limit": PAGE}
    t = time.perf_counter()
    while True:
        doc = client.get(url, params=params).json()
        pages += 1
        if pages % 10 == 0 or pages == 5:
            samples.append(server.rss_mb())
        if doc["next_cursor"] is None:
            break
        params = {"limit": PAGE, "cursor": doc["next_cursor"]}
    elapsed = time.perf_counter() - t
    after = server.rss_mb()
    settled = samples[0] if samples else before
    growth = max([*samples, after]) - settled
    return {
        "pages": pages,
        "seconds": round(elapsed, 1),
        "before_mb": round(before, 1),
        "after_5_pages_mb": round(settled, 1),
        "max_mb": round(max([*samples, after]), 1),
        "after_mb": round(after, 1),
        "growth_mb": round(growth, 1),
        "flat": growth < RSS_FLAT_MB,
    }


def run(quick: bool) -> dict[str, Any]:
    """Generate the session, measure every part; return the figures."""
    with tempfile.TemporaryDirectory(prefix="scale-pages-") as tmp:
        db = Path(tmp) / "pages.db"
        n = 100_000 if quick else 1_000_000
        t = time.perf_counter()
        sid = generate(db, n, name=f"{n} messages")
        findings = add_findings(db, sid)
        generated_s = time.perf_counter() - t
        server = _Server(db)
        try:
            headers = {"authorization": f"Bearer {server.token}"}
            client = KeepAliveClient(server.base_url, headers)
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=120) as other:
                plain = plain_pages(db, sid, n, 30 if quick else 100, server, client, other)
                filtered = filtered_pages(db, sid, 5 if quick else 15, client)
                rss = rss_while_paging(server, sid, client)
            client.close()
        finally:
            server.stop()
    return {
        "session_messages": n,
        "findings": findings,
        "generate_s": round(generated_s, 1),
        "plain": plain,
        "filtered": filtered,
        "rss": rss,
    }


def _verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def print_figures(figures: dict[str, Any]) -> None:
    p = figures["plain"]
    print(f"API pages of {PAGE}, a {figures['session_messages']:,}-message session")
    print(
        f"  plain HTTP   median {p['http']['median_ms']} ms, p95 {p['http']['p95_ms']} ms; "
        f"in-process {p['in_process']['median_ms']} ms"
    )
    print(
        f"               with an httpx client {p['http_httpx']['median_ms']} ms; "
        f"server CPU {p['server_cpu_ms']} ms a page"
    )
    print(
        f"  sqlite3      median {p['sqlite3']['median_ms']} ms: HTTP {p['ratio']}x "
        f"(target {PLAIN_TARGET:.0f}x: {_verdict(p['ratio'] <= PLAIN_TARGET)})"
    )
    print(f"  filtered, deep offsets (target {FILTERED_TARGET:.0f}x), HTTP / sqlite3 medians:")
    for name, f in figures["filtered"].items():
        print(
            f"  {name:<10} {f['matching']:>8,} rows  page {f['http']['median_ms']:>7} / "
            f"{f['sqlite3']['median_ms']:>7} ms {f['ratio']:>5}x {_verdict(f['ratio'] <= FILTERED_TARGET)}"
        )
    print("  filter totals (count=true), HTTP / sqlite3 count(*) medians:")
    for name, f in figures["filtered"].items():
        print(
            f"  {name:<10} {f['count_http']['median_ms']:>7} / {f['count_sqlite3']['median_ms']:>7} ms "
            f"{f['count_ratio']:>5}x"
        )
    r = figures["rss"]
    print(f"  UI server RSS while paging all {r['pages']:,} pages ({r['seconds']} s):")
    print(
        f"    before {r['before_mb']} MB, after 5 pages {r['after_5_pages_mb']}, "
        f"max {r['max_mb']}, after {r['after_mb']} MB"
    )
    print(f"    growth +{r['growth_mb']} MB: {'flat' if r['flat'] else 'GROWS'} (bound {RSS_FLAT_MB:.0f} MB)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_pages", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 100,000-message session, fewer runs")
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)  # the UI server's own process
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.serve)
        return
    print_figures(run(args.quick))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
