"""One 200 MB message through `wrap` and through the proxy: forwarded whole, memory flat, recorded capped.

Issue #33, finding 11: the recorder held a whole line (and several copies of it) to record it:
454 MiB of RSS for a 100 MB line through `wrap`, 1,259 MiB for 300 MB, 456 MiB through the
proxy; a multi-GB line could exhaust memory. Now a message longer than `max_record_bytes` is
still forwarded byte for byte, and recorded as its first bytes, its size and its SHA-256.

Real processes: the process boundary and its peak RSS are the point. The peers generate the
message in 1 MiB blocks and the test reads it back in chunks: neither holds it whole either.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from typer.testing import CliRunner

from inspector.cli import app
from inspector.store import open_engine
from tests.conftest import wrap_argv
from tests.http_peers import LineProcess, inspector_proxy
from tests.shim_process import messages, only_session

BLOCKS = 200  # MiB of the message's body
CAP = 4 * 1024 * 1024
PEAK_MIB = 120  # a wrap or proxy that records small messages peaks around 75 MiB here
HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"blob":"'
TAIL = b'"}}\n'
# One 1 MiB block of the message's body (the peers run the same expression).
BLOCK = "(b'%07d,' % i) * 131072"

LINE_SERVER = f"""
import sys
out = sys.stdout.buffer
sys.stdin.buffer.readline()
out.write(b'{{"jsonrpc":"2.0","id":0,"result":{{}}}}\\n')
out.flush()
sys.stdin.buffer.readline()
out.write({HEAD!r})
for i in range({BLOCKS}):
    out.write({BLOCK})
out.write({TAIL!r})
out.flush()
sys.stdin.buffer.read()
"""

HTTP_SERVER = f"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        left = int(self.headers["content-length"])
        while left:
            left -= len(self.rfile.read(min(left, 1 << 20)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str({len(HEAD) + BLOCKS * (1 << 20) + len(TAIL)}))
        self.end_headers()
        self.wfile.write({HEAD!r})
        for i in range({BLOCKS}):
            self.wfile.write({BLOCK})
        self.wfile.write({TAIL!r})

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{{server.server_address[1]}}", file=sys.stderr, flush=True)
server.serve_forever()
"""


def _message() -> Iterator[bytes]:
    yield HEAD
    for i in range(BLOCKS):
        yield (b"%07d," % i) * 131072  # BLOCK, the expression the peers run
    yield TAIL


def _expected() -> tuple[int, str, bytes]:
    """The message's size, SHA-256 and first CAP bytes, computed without holding it."""
    digest, size, prefix = hashlib.sha256(), 0, bytearray()
    for part in _message():
        digest.update(part)
        size += len(part)
        if len(prefix) < CAP:
            prefix += part[: CAP - len(prefix)]
    return size, digest.hexdigest(), bytes(prefix)


def _env() -> dict[str, str]:
    return {**os.environ, "MCP_INSPECTOR_MAX_RECORD_BYTES": str(CAP)}


def _peak_mib(pid: int) -> float:
    """The peak RSS (VmHWM) of a running process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for {pid}")


def _wait_for_rows(db: Path, count: int) -> None:
    for _ in range(600):
        if db.exists():
            with sqlite3.connect(db) as conn:
                try:
                    if conn.execute("SELECT COUNT(*) FROM message").fetchone()[0] >= count:
                        return
                except sqlite3.OperationalError:  # the tables are being created
                    pass
        threading.Event().wait(0.1)
    raise AssertionError(f"{count} rows never recorded")


def _check_row(raw: bytes, size: int, meta: dict, expected: tuple[int, str, bytes]) -> None:
    whole, digest, prefix = expected
    assert raw == prefix, (len(raw), raw[:80])
    assert size == whole
    assert meta["truncated"] == {"size": whole, "kept": CAP, "sha256": digest}


def test_a_200_mb_line_through_wrap(db_path: Path) -> None:
    expected = _expected()
    proc = subprocess.Popen(
        wrap_argv(db_path, sys.executable, "-c", LINE_SERVER),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    )
    assert proc.stdin and proc.stdout and proc.stderr
    err: list[bytes] = []
    opened = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr
        for line in proc.stderr:
            err.append(line)
            if b"recording session" in line:
                opened.set()
        opened.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        # The answer to a request, once recording runs: until the store is open, wrap holds what
        # it forwards (bounded: 1,024 reads), which is not what this test is about.
        assert opened.wait(60), err
        proc.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"ping"}\n')
        proc.stdin.flush()
        assert os.read(proc.stdout.fileno(), 100) == b'{"jsonrpc":"2.0","id":0,"result":{}}\n'
        _wait_for_rows(db_path, 2)  # the recorder has them: it is attached
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n')
        proc.stdin.flush()
        digest, size = hashlib.sha256(), 0
        while size < expected[0]:
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            assert chunk, f"wrap's stdout ended after {size} bytes: {b''.join(err)!r}"
            digest.update(chunk)
            size += len(chunk)
        assert (size, digest.hexdigest()) == expected[:2]  # forwarded whole, byte for byte
        _wait_for_rows(db_path, 4)  # the big row is committed: the recording's work for it is done
        # VmHWM, not wait4's ru_maxrss: that one also counts the test process's RSS at the fork.
        peak = _peak_mib(proc.pid)
        proc.stdin.close()
        proc.wait(60)
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    assert proc.returncode == 0, b"".join(err)
    assert peak < PEAK_MIB, f"wrap peaked at {peak:.0f} MiB"
    engine = open_engine(db_path)
    big = [m for m in messages(engine, only_session(engine).id) if m.direction == "s2c"][-1]
    assert (big.parse_status, big.kind) == ("truncated", "invalid")
    _check_row(big.raw, big.size, big.meta, expected)
    # Its recorded prefix does not parse; the message did: lint does not call it malformed.
    linted = CliRunner().invoke(app, ["lint", str(only_session(engine).id), "--db", str(db_path)])
    assert linted.exit_code == 0 and "malformed-json" not in linted.output, linted.output


@contextmanager
def _http_server() -> Iterator[str]:
    server = LineProcess([sys.executable, "-c", HTTP_SERVER])
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()


def test_a_200_mb_body_each_way_through_the_proxy(db_path: Path) -> None:
    expected = _expected()
    with _http_server() as base, inspector_proxy(f"{base}/mcp", db_path, env=_env()) as (url, proxy):
        with httpx.stream(
            "POST",
            url,
            content=_message(),  # a 200 MB request body, streamed
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "content-length": str(expected[0]),
            },
            timeout=120,
        ) as reply:
            assert reply.status_code == 200
            digest, size = hashlib.sha256(), 0
            for chunk in reply.iter_raw(1 << 20):
                digest.update(chunk)
                size += len(chunk)
        assert (size, digest.hexdigest()) == expected[:2]
        engine = open_engine(db_path)
        rows: list = []
        for _ in range(600):  # the proxy records off the forwarding path: wait (bounded) for both rows
            sessions = list(_sessions(engine))
            rows = [m for s in sessions for m in messages(engine, s.id) if m.size == expected[0]]
            if len(rows) == 2:
                break
            threading.Event().wait(0.1)
        peak = _peak_mib(proxy.proc.pid)
    assert peak < PEAK_MIB, f"the proxy peaked at {peak:.0f} MiB"
    assert sorted(m.channel for m in rows) == ["http-request", "http-response"], rows
    for m in rows:
        assert (m.parse_status, m.kind) == ("truncated", "invalid")
        _check_row(m.raw, m.size, m.meta, expected)


def _sessions(engine):  # type: ignore[no-untyped-def]
    from inspector.store import list_sessions

    return list_sessions(engine)
