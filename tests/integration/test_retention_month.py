"""Retention (issue 20): a simulated month of wrapped sessions of the demo server and server-everything
with large results, pruned by `mcp-inspect prune` with an age and a size policy; pruning while a real
wrap records; a wrap applying the policy by itself; the HTTP proxy applying it.

The month is built once per module in this process, through the wrap's framing and store writer
(test data: a real wrap records in the tests after it); its `prune` runs in this process
(tests/cli_in_process.py). Pruning while a wrap records stays a process beside the wrap's (two
processes on one store is the point). The wraps, the proxy, that `prune` and the demo are processes
forked from a warm server (tests/warm_peers.py)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from inspector.store import iter_messages, open_engine
from inspector.store.queries import update_session
from inspector.store.usage import session_bytes, store_usage
from tests.cli_in_process import run
from tests.shim_process import ShimProcess, ended_named
from tests.warm_peers import demo_argv, inspector_argv, warm_wrap_argv

DAY = 86_400 * 10**9
DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
# The wraps whose exit status a test checks give their server 30 s to leave once its stdin closes (2 s
# by default, then SIGTERM: the wrap then exits 143). A Python server's exit took longer than 2 s
# once in CI, with the machine's load at 7 and the retention thread writing beside it.
PATIENT = ("--grace", "30")


def _noise(size: int) -> str:
    return base64.b64encode(os.urandom(size))[:size].decode()


def _month_session(db: Path, name: str, server: str, tool: str, arg: str, size: int, calls: int) -> None:
    """An ended session of a wrapped server as the wrap records it (the handshake, then `calls` calls of
    `tool` with `size` bytes of fresh noise, each echoed back), written in this process through the
    wrap's own framing and store writer (capture.MessageBuilder, store.SessionWriter): the month is
    test data here; recording through a real wrap is what the tests of pruning beside a wrap do."""
    from inspector.capture import MessageBuilder
    from inspector.capture.sessions import create_session
    from inspector.store import SessionWriter

    def line(doc: dict[str, Any]) -> bytes:
        return json.dumps({"jsonrpc": "2.0", **doc}).encode() + b"\n"

    engine = open_engine(db)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=[server, "stdio"], name=name)
        builder, writer, ts = MessageBuilder(sid), SessionWriter(engine, sid), time.time_ns()
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        traffic = [
            ("c2s", "stdin", line({"id": 0, "method": "initialize", "params": hello})),
            (
                "s2c",
                "stdout",
                line({"id": 0, "result": {**hello, "serverInfo": {"name": server, "version": "1"}}}),
            ),
            ("c2s", "stdin", line({"method": "notifications/initialized"})),
        ]
        for i in range(1, calls + 1):
            sent = _noise(size)
            call = {"name": tool, "arguments": {arg: sent}}
            traffic.append(("c2s", "stdin", line({"id": i, "method": "tools/call", "params": call})))
            answer = {"content": [{"type": "text", "text": f"Echo: {sent}"}]}
            traffic.append(("s2c", "stdout", line({"id": i, "result": answer})))
        for n, (direction, channel, data) in enumerate(traffic):
            writer.on_batch(builder.feed(ts + n, direction, channel, data))  # type: ignore[arg-type]
        writer.on_end(0, "client-eof")
    finally:
        engine.dispose()


def _backdate(engine: Engine, name: str, days_ago: float) -> int:
    start = time.time_ns() - int(days_ago * DAY)
    with engine.begin() as conn:
        sid, old = conn.execute(text("SELECT id, started_ns FROM session WHERE name = :n"), {"n": name}).one()
        conn.execute(
            text("UPDATE session SET started_ns = started_ns - :d, ended_ns = ended_ns - :d WHERE id = :s"),
            {"d": old - start, "s": sid},
        )
        conn.execute(
            text("UPDATE message SET ts_ns = ts_ns - :d WHERE session_id = :s"), {"d": old - start, "s": sid}
        )
    return int(sid)


def _names(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return {r[0] for r in conn.execute(text("SELECT name FROM session"))}


def _snapshot(db: Path) -> tuple[Any, ...]:
    """What a dry run must not change: the sessions, their rows, the pages in use."""
    engine = open_engine(db)
    try:
        with engine.connect() as conn:
            sessions = conn.exec_driver_sql(
                "SELECT id, name, started_ns, pinned FROM session ORDER BY id"
            ).all()
            rows = conn.exec_driver_sql("SELECT COUNT(*), SUM(LENGTH(raw)) FROM message").one()
        return tuple(sessions), tuple(rows), store_usage(engine).used_bytes
    finally:
        engine.dispose()


def _stored(db: Path, name: str, days_ago: float, size: int) -> None:
    """An ended session written straight to the store (the tests below need old sessions to remove,
    not more real recordings: the month above is made of those)."""
    from inspector.capture import MessageBuilder
    from inspector.capture.sessions import create_session
    from inspector.store import SessionWriter

    engine = open_engine(db)
    try:
        sid = create_session(engine, kind="stdio-wrap", target=DEMO, name=name)
        writer = SessionWriter(engine, sid)
        writer.on_batch(
            MessageBuilder(sid).feed(
                1, "s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":"%s"}\n' % _noise(size).encode()
            )
        )
        writer.on_end(0, "test")
        _backdate(engine, name, days_ago)
    finally:
        engine.dispose()


def _env(**more: str) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "80", **more}


def _cli_env(**more: str) -> dict[str, str]:
    """For a command run in this process (tests/cli_in_process.py): what it adds to the environment."""
    return {"COLUMNS": "80", **more}


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """Six wrapped sessions spread over 30 days, built in this process once for the module: four of
    server-everything with ~1.2 MB of calls and results each, two of the demo server with ~0.4 MB;
    the oldest pinned, the second oldest labelled."""
    db = tmp_path_factory.mktemp("month") / "month.db"
    days = {}
    for days_ago in (30, 26, 21, 16, 11, 4):
        name = f"day-{days_ago}"
        if days_ago in (26, 11):
            _month_session(db, name, "inspector-demo", "echo", "text", 100_000, calls=2)
        else:
            _month_session(db, name, "server-everything", "echo", "message", 300_000, calls=2)
        days[name] = days_ago
    engine = open_engine(db)
    ids = {name: _backdate(engine, name, d) for name, d in days.items()}
    update_session(engine, ids["day-30"], pinned=True)
    update_session(engine, ids["day-26"], labels=["the bug"])
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return db, ids


@pytest.fixture(scope="module")
def everything_cmd_module() -> list[str]:
    from tests.conftest import EVERYTHING_BIN

    if not EVERYTHING_BIN.exists():
        pytest.fail("server-everything is not installed: run `make peers` (make test does it)")
    return [str(EVERYTHING_BIN), "stdio"]


def _total_limit(db: Path, ids: dict[str, int]) -> int:
    """A total size that day-21 (by age) and then day-16 (the oldest left) bring the store under: its
    use now, less day-21's share and half of day-16's (the sizes depend on how well the recorded
    bodies compress, so they are measured rather than assumed)."""
    engine = open_engine(db)
    try:
        used = store_usage(engine).used_bytes
        sizes = session_bytes(engine)
    finally:
        engine.dispose()
    scale = max(used / sum(sizes.values()), 1.0)  # as `retention.choose` shares the store out
    return int(used - scale * (sizes[ids["day-21"]] + sizes[ids["day-16"]] / 2))


def test_a_dry_run_says_what_would_go_and_changes_nothing(month: tuple[Path, dict[str, int]]) -> None:
    db, ids = month
    before = _snapshot(db)
    limit = str(_total_limit(db, ids))
    out = run(
        "prune", "--db", str(db), "--dry-run", "--max-age", "20d", "--max-total-size", limit, env=_cli_env()
    )
    assert out.returncode == 0, out.stderr
    assert all(len(line) <= 80 for line in out.stdout.splitlines()), out.stdout
    assert "(flag --max-age)" in out.stdout and "Dry run: nothing was removed." in out.stdout
    listed = {int(line.split()[0]): line.split()[5] for line in out.stdout.splitlines() if " 20" in line[:8]}
    assert listed == {ids["day-21"]: "age", ids["day-16"]: "total"}, out.stdout
    assert _snapshot(db) == before


def test_no_policy_anywhere_removes_nothing(month: tuple[Path, dict[str, int]]) -> None:
    db, _ids = month
    before = _snapshot(db)
    out = run("prune", "--db", str(db), env=_cli_env())
    assert out.returncode == 0 and "No retention policy is set: nothing removed." in out.stdout
    assert _snapshot(db) == before


def test_a_month_pruned_by_age_and_size_keeps_pins_and_labels_and_shrinks(
    month: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    db, ids = month
    size_before = db.stat().st_size
    limit = _total_limit(db, ids)
    config = tmp_path / "config.toml"
    config.write_text(f'[retention]\nmax_age = "20d"\nmax_total_size = {limit}\n')
    out = run("prune", "--db", str(db), env=_cli_env(MCP_INSPECTOR_CONFIG=str(config)))
    assert out.returncode == 0, out.stderr
    said = " ".join(out.stdout.split())  # a long path wraps at 80 columns
    assert f"(config file {config})" in said and "Removed 2 sessions" in said
    engine = open_engine(db)
    try:
        # Pinned, labelled: older than the policy, kept; day-21 went by age, then the oldest (day-16)
        # until the store was within its size.
        assert _names(engine) == {"day-30", "day-26", "day-11", "day-4"}
        usage = store_usage(engine)
        assert usage.used_bytes <= limit
        assert db.stat().st_size <= limit + 200_000 < size_before, (size_before, db.stat().st_size)
        with engine.connect() as conn:
            orphans = conn.execute(
                text("SELECT COUNT(*) FROM message WHERE session_id NOT IN (SELECT id FROM session)")
            )
            assert orphans.scalar_one() == 0
    finally:
        engine.dispose()


def _handshake(shim: ShimProcess) -> None:
    shim.request(
        0,
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    _answer(shim, 0)
    shim.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def _answer(shim: ShimProcess, rpc_id: int) -> None:
    """Read lines (the server's notifications among them) until the answer to `rpc_id`."""
    while True:
        line = shim.read_line()
        assert line, f"the server left before answering {rpc_id}"
        doc = json.loads(line)
        if doc.get("id") == rpc_id:
            assert "result" in doc, doc
            return


def test_pruning_while_a_wrap_records_loses_none_of_the_live_sessions_rows(
    tmp_path: Path, everything_cmd_module: list[str]
) -> None:
    db = tmp_path / "live.db"
    for i in range(2):  # ended sessions for the pruner to remove meanwhile
        _stored(db, f"old-{i}", 1, 50_000)
    shim = ShimProcess(
        warm_wrap_argv(db, *everything_cmd_module, extra=("--quiet", "--name", "live", *PATIENT))
    )
    _handshake(shim)
    results: list[subprocess.CompletedProcess[str]] = []

    def prune_repeatedly() -> None:
        for _ in range(2):
            results.append(
                subprocess.run(
                    inspector_argv(
                        "prune", "--db", str(db), "--max-total-size", "1kB", "--max-session-size", "1kB"
                    ),
                    capture_output=True,
                    text=True,
                    timeout=120,
                    env=_env(),
                )
            )

    pruner = threading.Thread(target=prune_repeatedly)
    pruner.start()
    for i in range(1, 41):
        shim.request(i, "tools/call", {"name": "echo", "arguments": {"message": _noise(20_000)}})
        _answer(shim, i)
    pruner.join(120)
    shim.close_stdin()
    assert shim.wait() == 0
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert any("Removed 2 sessions" in r.stdout for r in results), [r.stdout for r in results]
    session = ended_named(db, "live")
    engine = open_engine(db)
    try:
        assert _names(engine) == {"live"}
        # Through the store's reader: large bodies are kept in `blob` (store/bodies.py), not in `raw`.
        rows: list[Any] = [(m.seq, m.direction, m.channel, m.raw) for m in iter_messages(engine, session.id)]
    finally:
        engine.dispose()
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) == session.message_count
    sent = b"".join(r[3] for r in rows if r[1] == "c2s" and r[2] == "stdin")
    received = b"".join(r[3] for r in rows if r[1] == "s2c" and r[2] == "stdout")
    assert sent.count(b'"tools/call"') == 40
    assert received == bytes(shim.stdout_bytes)


def test_a_wrap_applies_the_policy_once_per_interval(tmp_path: Path) -> None:
    db = tmp_path / "auto.db"
    _stored(db, "ancient", 40, 1000)
    engine = open_engine(db)
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_age = "30d"\n')
    env = _env(MCP_INSPECTOR_CONFIG=str(config), MCP_INSPECTOR_RUNTIME=str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)

    def wrap_once(name: str, *, prunes: bool) -> str:
        shim = ShimProcess(warm_wrap_argv(db, *DEMO, extra=("--name", name, *PATIENT)), env=env)
        _handshake(shim)  # forwarding works while the pruning thread runs beside it
        deadline = time.monotonic() + (60 if prunes else 1.5)
        while time.monotonic() < deadline and b"retention removed" not in shim.stderr_bytes:
            time.sleep(0.1)
        shim.close_stdin()
        assert shim.wait() == 0
        ended_named(db, name)
        return shim.stderr_bytes.decode()

    try:
        stderr = wrap_once("first", prunes=True)
        assert "retention removed 1 session(s)" in stderr
        assert _names(engine) == {"first"}
        _stored(db, "ancient-2", 40, 1000)
        stderr = wrap_once("second", prunes=False)  # within the interval: another wrap does not prune again
        assert "retention" not in stderr
        assert _names(engine) == {"first", "ancient-2", "second"}
        stamps = list((tmp_path / "run").glob("retention-*.stamp"))
        assert len(stamps) == 1 and stamps[0].stat().st_mode & 0o077 == 0
    finally:
        engine.dispose()


def test_the_http_proxy_applies_the_policy_in_a_thread(tmp_path: Path) -> None:
    db = tmp_path / "proxy.db"
    _stored(db, "ancient", 40, 1000)
    _stored(db, "recent", 1, 1000)
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_age = "30d"\n')
    (tmp_path / "run").mkdir(mode=0o700)
    env = _env(MCP_INSPECTOR_CONFIG=str(config), MCP_INSPECTOR_RUNTIME=str(tmp_path / "run"))
    argv = inspector_argv(
        "proxy", "--target", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0", "--db", str(db)
    )
    proxy = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # The proxy says what it removed after the deletion is committed: wait for its line, not for the
    # rows to go (stopping it between the two lost the line).
    lines: list[str] = []
    said = threading.Event()

    def read() -> None:
        assert proxy.stderr is not None
        for line in proxy.stderr:
            lines.append(line)
            if "retention removed" in line:
                said.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    engine = open_engine(db)
    try:
        said.wait(60)
        assert _names(engine) == {"recent"}
    finally:
        engine.dispose()
        proxy.terminate()
        proxy.wait(30)
        reader.join(30)
    err = "".join(lines)
    assert "retention removed 1 session(s)" in err, err
