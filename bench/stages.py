"""Where the shim's recording time goes: each stage of the recorder thread timed in-process.

The same traffic as the flood (ping requests and `{"result":{}}` answers in
~64 KB chunks, as the shim's 64 KiB reads deliver them) goes through the
package's own pieces one stage at a time, on fresh objects:

    framing    LineFramer.feed                       (inspector.protocol.framing)
    classify   classify(body)                        (inspector.protocol.jsonrpc)
    correlate  Correlator.observe                    (inspector.protocol.correlate)
    facts      SessionFacts.observe                  (inspector.protocol.versions)
    builder    MessageBuilder.feed, all of the above + building the row dict
    redact     Redaction.row on every row, built-in rules only (inspector.capture.redact)
    redact+    the same with a user name and JSON path configured (a bytes test per row)
    store      SessionWriter.on_batch, 5000-row batches into a temporary SQLite file
    sqlite     the floor: the rows `store` wrote, inserted again with plain sqlite3 executemany into a
               fresh file of the same schema, FTS included (bench/sqlite_floor.py)
    recorder   Recorder: submit every chunk from this thread, then finish (builder + store + queue)

Figures are microseconds per message (one line), the best of a few runs
(another process on the machine can only add time). Nothing here is a mock:
the bench only feeds bytes to the real classes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.responder import answers
from bench.sqlite_floor import insert_floor, stored_rows
from bench.stdio_flood import build_chunks

CHUNK_REQUESTS = 1450  # ~64 KB of ping requests per chunk, like one 64 KiB read of the shim


def _traffic(requests: int) -> list[tuple[str, str, bytes]]:
    out = []
    for chunk in build_chunks(1, requests, CHUNK_REQUESTS):
        out.append(("c2s", "stdin", chunk))
        out.append(("s2c", "stdout", answers(chunk.split(b"\n")[:-1])))
    return out


def _us_per(seconds: float, messages: int) -> float:
    return seconds / messages * 1e6


def run_stages(requests: int, workdir: Path, repeat: int = 3) -> dict[str, Any]:
    """us/message of each stage: the best of `repeat` runs, each on fresh objects (other load only adds time)."""
    from inspector.capture import MessageBuilder
    from inspector.capture.sessions import create_session
    from inspector.protocol import Correlator, LineFramer, SessionFacts, classify
    from inspector.store import SessionWriter
    from inspector.store.engine import open_engine

    try:  # the recorder's redaction step (absent in older versions of the package)
        from inspector.capture.redact import Redaction

        has_redaction = hasattr(Redaction, "row")
    except ImportError:
        has_redaction = False
    traffic = _traffic(requests)
    messages = 2 * requests
    clock = time.perf_counter
    ts = time.time_ns()
    best: dict[str, float] = {}

    def record(stage: str, seconds: float) -> None:
        best[stage] = min(best.get(stage, float("inf")), _us_per(seconds, messages))

    engine = open_engine(workdir / "stages.db")
    try:
        for _ in range(repeat):
            framers = {("c2s", "stdin"): LineFramer(), ("s2c", "stdout"): LineFramer()}
            t = clock()
            lines = [(d, line) for d, ch, data in traffic for line in framers[(d, ch)].feed(data)]
            record("framing", clock() - t)

            t = clock()
            classified = [(d, classify(line.body)) for d, line in lines]
            record("classify", clock() - t)

            correlator = Correlator()
            t = clock()
            pairings = [correlator.observe(seq, ts, d, msg) for seq, (d, msg) in enumerate(classified, 1)]
            record("correlate", clock() - t)

            facts = SessionFacts()
            t = clock()
            for (d, msg), pairing in zip(classified, pairings, strict=True):
                facts.observe(d, msg, pairing)
            record("facts", clock() - t)

            sid = create_session(engine, kind="stdio-wrap", target=["bench-stages"])
            builder = MessageBuilder(sid)
            t = clock()
            rows = [row for d, ch, data in traffic for row in builder.feed(ts, d, ch, data)]
            record("builder", clock() - t)

            if has_redaction:
                plain, user = (
                    Redaction(),
                    Redaction.from_config(["note"], ["params.arguments.api_key"], environ={}),
                )
                for stage, rules in (("redact", plain), ("redact+", user)):
                    t = clock()
                    for row in rows:
                        rules.row(row)
                    record(stage, clock() - t)

            writer = SessionWriter(engine, sid)
            t = clock()
            for i in range(0, len(rows), 5000):
                writer.on_batch(rows[i : i + 5000], None)
            record("store", clock() - t)
            writer.on_end(0, "bench")
            del lines, classified, pairings, rows

            columns, stored = stored_rows(workdir / "stages.db", sid)
            record("sqlite", insert_floor(columns, stored, workdir, "stages-floor")["seconds"])
            del stored

            sid = create_session(engine, kind="stdio-wrap", target=["bench-stages-recorder"])
            record("recorder", _time_recorder(engine, sid, traffic))
    finally:
        engine.dispose()
    return {**best, "messages": messages, "repeat": repeat}


def _time_recorder(engine: Any, sid: int, traffic: list[tuple[str, str, bytes]]) -> float:
    """Seconds through a real Recorder with a real store subscriber, from the first submit to the end."""
    from inspector.capture import Recorder

    clock = time.perf_counter
    if hasattr(Recorder, "open"):  # one recorder for many sessions, fed through per-session taps
        from inspector.store import StoreWriter

        writer = StoreWriter(engine)
        recorder = Recorder([writer]).start()
        tap = recorder.open(sid)
        t = clock()
        for d, ch, data in traffic:
            tap.submit(d, ch, data)
        tap.end(0, "bench")
        recorder.stop()
        elapsed = clock() - t
        writer.close()
    else:  # the first API: one recorder per session
        from inspector.capture import MessageBuilder
        from inspector.store import SessionWriter

        recorder = Recorder(MessageBuilder(sid), [SessionWriter(engine, sid)]).start()
        t = clock()
        for d, ch, data in traffic:
            recorder.submit(d, ch, data)
        recorder.finish(0, "bench")
        elapsed = clock() - t
    return elapsed
