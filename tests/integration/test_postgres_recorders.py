"""Many recorders on one PostgreSQL store, and recorders that lose it (issue 19).

Real processes on a real PostgreSQL cluster (`tests/postgres.py`): `mcp-inspect wrap` around the
scripted stdio peer, driven by this test as the client; each wrap a process of its own (its own
connections, as recorders on other machines have), forked from the warm server (tests/warm_peers.py:
the pid and the start-up are not what these tests check). The cluster is stopped and started under
a running wrap (`PgCluster.stop()` / `.start()`: same port, same data). Each test's database has its
schema made (`pg_store_url`: a copy of the cluster's migrated template), as a team's store has; many
recorders opening a fresh database at once is tests/issues/test_recorders_starting_at_once_on_a_fresh_postgresql.py.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from sqlalchemy import create_engine, text

from tests.conftest import SCRIPTED
from tests.postgres import PgCluster
from tests.shim_process import ShimProcess
from tests.warm_peers import inspector_argv

# `mcp-inspect wrap`, forked from the warm server (tests/warm_peers.py).
WRAP = inspector_argv("wrap")


def _wrap(db: str, name: str, env: dict[str, str] | None = None) -> ShimProcess:
    return ShimProcess([*WRAP, "--db", db, "--name", name, "--", *SCRIPTED], env=env)


def _talk(shim: ShimProcess, first: int, count: int, pause: float = 0.0) -> int:
    """Send `count` requests one after the other; every answer must come back (the client's view)."""
    for rpc_id in range(first, first + count):
        shim.request(rpc_id, "tools/call", {"name": "echo", "arguments": {"n": rpc_id}})
        answer = json.loads(shim.read_line(60))  # a generous deadline: twenty start at once
        assert answer["id"] == rpc_id and answer["result"] == {"echo": "tools/call"}, answer
        if pause:
            time.sleep(pause)
    return count


def _wait_recording(shim: ShimProcess, timeout: float = 60) -> None:
    """Until the wrap's store is open (its session exists): an outage before that is another case."""
    deadline = time.monotonic() + timeout
    while b"recording session" not in shim.stderr_bytes:
        assert time.monotonic() < deadline and shim.proc.poll() is None, shim.stderr_bytes
        time.sleep(0.02)


def _sessions(url: str) -> list[dict[str, Any]]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text(
                    "SELECT s.id, s.name, s.status, s.message_count, s.facts, "
                    "(SELECT count(*) FROM message m WHERE m.session_id = s.id) AS stored, "
                    "(SELECT count(DISTINCT seq) FROM message m WHERE m.session_id = s.id) AS seqs "
                    "FROM session s ORDER BY s.id"
                )
            )
            return [dict(row._mapping) for row in found]
    finally:
        engine.dispose()


def test_twenty_concurrent_recorders_into_one_postgresql_lose_no_row(pg_store_url: str) -> None:
    recorders, requests = 20, 25
    shims = [_wrap(pg_store_url, f"fleet-{i}") for i in range(recorders)]
    failures: list[BaseException] = []

    def drive(shim: ShimProcess) -> None:
        try:
            _talk(shim, 1, requests)
            shim.close_stdin()
            assert shim.wait(120) == 0, shim.stderr_bytes
        except BaseException as exc:  # reported by the test thread
            failures.append(exc)

    started = time.perf_counter()
    threads = [threading.Thread(target=drive, args=(shim,)) for shim in shims]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    elapsed = time.perf_counter() - started
    for shim in shims:
        if shim.proc.poll() is None:
            shim.proc.kill()
    assert not failures, failures
    sessions = _sessions(pg_store_url)
    assert sorted(s["name"] for s in sessions) == sorted(f"fleet-{i}" for i in range(recorders))
    for s in sessions:  # every request and its answer, each once
        assert s["status"] == "ended", s
        assert s["stored"] == s["seqs"] == s["message_count"] == 2 * requests, s
        assert "dropped_messages" not in (s["facts"] or {}), s
    print(f"\n{recorders} recorders x {2 * requests} messages into PostgreSQL: {elapsed:.1f} s, no row lost")


def test_a_wrap_keeps_forwarding_while_postgresql_restarts_and_records_every_message(
    pg_cluster: PgCluster, pg_store_url: str
) -> None:
    shim = _wrap(pg_store_url, "restart")
    try:
        sent = _talk(shim, 1, 20)
        _wait_recording(shim)
        pg_cluster.stop()
        try:
            sent += _talk(shim, 100, 30, pause=0.01)  # the client notices nothing
        finally:
            pg_cluster.start()
        sent += _talk(shim, 200, 20, pause=0.01)
        shim.close_stdin()
        assert shim.wait(60) == 0, shim.stderr_bytes
    finally:
        if shim.proc.poll() is None:
            shim.proc.kill()
    err = shim.stderr_bytes.decode()
    assert "recording failed, retrying" in err and "recording resumed after" in err, err
    assert all(len(line) < 300 for line in err.splitlines()), err  # one line each, no SQL dump
    [session] = _sessions(pg_store_url)
    assert session["status"] == "ended"
    assert session["stored"] == session["seqs"] == session["message_count"] == 2 * sent, session
    assert "dropped_messages" not in (session["facts"] or {}), session
    assert f"{2 * sent} messages recorded" in err, err


def test_a_small_budget_during_an_outage_gives_the_exact_dropped_count(
    pg_cluster: PgCluster, pg_store_url: str
) -> None:
    # Room for a few dozen rows while the database is away: the rest is dropped and counted.
    env = {**os.environ, "MCP_INSPECTOR_MAX_PENDING_BYTES": "20000"}
    shim = _wrap(pg_store_url, "budget", env=env)
    try:
        sent = _talk(shim, 1, 10)
        _wait_recording(shim)
        pg_cluster.stop()
        try:
            sent += _talk(shim, 100, 120)
        finally:
            pg_cluster.start()
        sent += _talk(shim, 300, 10, pause=0.01)
        shim.close_stdin()
        assert shim.wait(60) == 0, shim.stderr_bytes
    finally:
        if shim.proc.poll() is None:
            shim.proc.kill()
    err = shim.stderr_bytes.decode()
    [session] = _sessions(pg_store_url)
    dropped = session["facts"]["dropped_messages"]
    assert dropped > 0 and "dropping new messages" in err, (session, err)
    assert session["stored"] == session["seqs"] == session["message_count"], session
    assert session["stored"] + dropped == 2 * sent, session  # exact: sent = stored + dropped
    assert f"{dropped} of {2 * sent} messages NOT recorded" in err, err


def test_a_database_that_never_comes_back_ends_the_wrap_cleanly_with_the_count(
    pg_cluster: PgCluster, pg_store_url: str
) -> None:
    shim = _wrap(pg_store_url, "gone")
    try:
        sent = _talk(shim, 1, 10)
        _wait_recording(shim)
        time.sleep(0.2)  # those rows are committed
        pg_cluster.stop()
        try:
            sent += _talk(shim, 100, 15, pause=0.01)
            shim.close_stdin()
            started = time.monotonic()
            assert shim.wait(60) == 0, shim.stderr_bytes  # the server's exit status: a clean exit
            gave_up = time.monotonic() - started
        finally:
            pg_cluster.start()
    finally:
        if shim.proc.poll() is None:
            shim.proc.kill()
    err = shim.stderr_bytes.decode()
    [session] = _sessions(pg_store_url)
    missing = 2 * sent - session["stored"]
    assert missing > 0, session
    assert f"{missing} of {2 * sent} messages NOT recorded (database failed)" in err, err
    assert session["status"] == "recording"  # its end could not be written either
    print(
        f"\ndatabase gone for good: the wrap gave up after {gave_up:.1f} s; {missing} messages counted as lost"
    )


def test_a_recorder_of_many_sessions_counts_what_it_could_not_write(
    pg_cluster: PgCluster, pg_store_url: str
) -> None:
    """The proxy's case (one recorder, several sessions created on its thread): the database goes
    away for good; `losses()` names each session with exactly the rows the store lacks."""
    from inspector.capture import Recorder
    from inspector.capture.sessions import create_session
    from inspector.store import StoreWriter, open_engine

    engine = open_engine(pg_store_url)
    recorder = Recorder([StoreWriter(engine)]).start()
    taps = [
        recorder.open_new(lambda: create_session(engine, kind="http-proxy", target="x")) for _ in range(3)
    ]
    sent = {tap.session_id: 0 for tap in taps}

    def send(count: int) -> None:
        for tap in taps:
            for n in range(count):
                body = json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}).encode()
                tap.submit_message("c2s", "http", body, http_method="POST", http_path="/mcp")
                sent[tap.session_id] += 1

    try:
        send(5)
        deadline = time.monotonic() + 30
        while any(recorder.session_id(t.session_id) is None for t in taps):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        ids = {t.session_id: recorder.session_id(t.session_id) for t in taps}
        time.sleep(0.3)  # committed
        pg_cluster.stop()
        try:
            send(7)
            recorder.stop("proxy stopped")
        finally:
            pg_cluster.start()
    finally:
        engine.dispose()
    lost = recorder.losses()
    stored = {s["id"]: s["stored"] for s in _sessions(pg_store_url)}
    assert set(lost) == set(stored) == set(ids.values()), (lost, stored)
    for handle, sid in ids.items():
        assert lost[sid] > 0 and stored[sid] + lost[sid] == sent[handle], (sid, lost, stored, sent)
