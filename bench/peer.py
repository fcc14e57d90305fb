"""Shared plumbing of the stdio benches: the setups, a raw-bytes peer, RSS sampling, DB checks.

No asyncio anywhere: the bench process talks to the program under test with
blocking `os.read`/`os.write` on pipes.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_DIR = BENCH_DIR.parent
SERVER_EVERYTHING = PROJECT_DIR / "tests" / "peers" / "node_modules" / ".bin" / "mcp-server-everything"
SETUPS = ("direct", "socat", "tee1", "tee", "wrap")
LABELS = {
    "direct": "direct",
    "socat": "socat relay",
    "tee1": "tee(1) pipeline",
    "tee": "tee relay (py)",
    "wrap": "mcp-inspect wrap",
}
SAMPLED = ("socat", "tee", "wrap")  # setups whose spawned process is the relay itself (RSS / CPU are sampled)
READ_SIZE = 1 << 16
# How the shim is started; `python -m bench --wrap-prefix` replaces it (e.g. to compare a patched copy).
WRAP_PREFIX = [sys.executable, "-m", "inspector", "wrap"]


def everything_argv() -> list[str]:
    return [str(SERVER_EVERYTHING), "stdio"]


def responder_argv() -> list[str]:
    return [sys.executable, str(BENCH_DIR / "responder.py")]


def setup_argv(setup: str, server: list[str], workdir: Path) -> list[str]:
    """The command the bench spawns for one setup, around the same server command."""
    if setup == "direct":
        return list(server)
    if setup == "socat":
        # A C relay: the floor of one extra process hop. Same 64 KiB reads as the shim; after the
        # client's EOF it waits up to 30 s (-t) for the server's last bytes, where the default is 0.5 s.
        return ["socat", "-b", "65536", "-t", "30", "-", "EXEC:" + " ".join(server)]
    if setup == "tee1":
        # The shell's own plumbing, for reference: two coreutils tee processes around the server.
        d = workdir / "tee1"
        d.mkdir(exist_ok=True)
        cmd = " ".join(shlex.quote(a) for a in server)
        return [
            "sh",
            "-c",
            f"tee {shlex.quote(str(d / 'c2s.bin'))} | {cmd} | tee {shlex.quote(str(d / 's2c.bin'))}",
        ]
    if setup == "tee":
        return [sys.executable, str(BENCH_DIR / "tee_relay.py"), "--out", str(workdir / "tee"), "--", *server]
    if setup == "wrap":
        return [*WRAP_PREFIX, "--db", str(workdir / "wrap.db"), "--quiet", "--", *server]
    raise ValueError(setup)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Peer:
    """One spawned setup, driven with raw bytes: requests out, lines back."""

    def __init__(self, setup: str, server: list[str], workdir: Path, argv: list[str] | None = None) -> None:
        self.setup = setup
        self.workdir = workdir
        self.argv = argv if argv is not None else setup_argv(setup, server, workdir)
        self.stderr_path = workdir / f"{setup}.stderr"
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            bufsize=0,
            cwd=PROJECT_DIR,
        )
        assert self.proc.stdin and self.proc.stdout
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self._buf = b""
        self.sent = 0  # messages (lines) written
        self.received = 0  # lines read
        self.sent_bytes = 0
        self.received_bytes = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, data: bytes, messages: int = 1) -> None:
        write_all(self.wfd, data)
        self.sent += messages
        self.sent_bytes += len(data)

    def read_line(self) -> bytes:
        """The next line (with its newline); blocks. Raises EOFError at EOF."""
        buf = self._buf
        nl = buf.find(b"\n")
        while nl < 0:
            data = os.read(self.rfd, READ_SIZE)
            if not data:
                raise EOFError(f"{self.setup}: EOF from the program under test; stderr: {self.stderr_tail()}")
            self.received_bytes += len(data)
            buf += data
            nl = buf.find(b"\n")
        self._buf = buf[nl + 1 :]
        self.received += 1
        return buf[: nl + 1]

    def call(self, rpc_id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
        """Send a request and return its response line, skipping notifications in between."""
        import orjson

        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(orjson.dumps(msg) + b"\n")
        while True:
            line = self.read_line()
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict) and value.get("id") == rpc_id and "method" not in value:
                return line

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        import orjson

        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(orjson.dumps(msg) + b"\n")

    def handshake(self) -> None:
        """initialize + notifications/initialized, as an MCP client does."""
        self.call(
            0,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mcp-inspector-bench", "version": "0"},
            },
        )
        self.notify("notifications/initialized")

    def close(self, timeout: float = 120.0) -> float:
        """Close stdin, drain stdout until EOF, wait for exit; return seconds from close to exit."""
        t0 = time.perf_counter()
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # type: ignore[union-attr]
        deadline = time.monotonic() + timeout
        while True:  # keep draining so the program never blocks on a full stdout pipe
            try:
                data = os.read(self.rfd, READ_SIZE)
            except OSError:
                break
            if not data:
                break
            self.received_bytes += len(data)
            self.received += data.count(b"\n")
            if time.monotonic() > deadline:
                break
        try:
            self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        elapsed = time.perf_counter() - t0
        self.proc.stdout.close()  # type: ignore[union-attr]
        self._stderr.close()
        return elapsed

    def kill(self) -> None:
        """After a failure: close our ends (a server behind a relay sees EOF) and kill the spawned process."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()

    def stderr_tail(self, n: int = 800) -> str:
        try:
            self._stderr.flush()
            return self.stderr_path.read_bytes()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""


# --- memory and CPU of the process in the middle -------------------------------------------------


@dataclass
class ProcSample:
    t: float
    rss_kb: int
    hwm_kb: int
    cpu_s: float


@dataclass
class ProcSampler:
    """Polls /proc/PID/status (VmRSS, VmHWM) and /proc/PID/stat (CPU time) until stopped or the PID is gone."""

    pid: int
    interval: float = 0.02
    samples: list[ProcSample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._tick = os.sysconf("SC_CLK_TCK")
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> ProcSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> ProcSample | None:
        try:
            with open(f"/proc/{self.pid}/status", "rb") as f:
                status = f.read()
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return None
        rss = hwm = 0
        for line in status.splitlines():
            if line.startswith(b"VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith(b"VmHWM:"):
                hwm = int(line.split()[1])
        if not hwm:  # a zombie has no memory lines any more
            return None
        fields = stat[stat.rindex(b")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / self._tick  # utime + stime of the process (all threads)
        s = ProcSample(time.perf_counter(), rss, hwm, cpu)
        self.samples.append(s)
        return s

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.sample() is None and self.samples:
                return
            self._stop.wait(self.interval)

    @property
    def peak_mb(self) -> float:
        return max((s.hwm_kb for s in self.samples), default=0) / 1024

    def rss_mb_at(self, t: float) -> float | None:
        """RSS of the last sample taken at or before perf_counter time `t`."""
        best = None
        for s in self.samples:
            if s.t <= t:
                best = s
        return best.rss_kb / 1024 if best else None

    def cpu_between(self, t0: float, t1: float) -> float | None:
        """CPU seconds the process used between two perf_counter times (nearest samples)."""
        before = [s for s in self.samples if s.t <= t0]
        after = [s for s in self.samples if s.t >= t1]
        a = before[-1] if before else (self.samples[0] if self.samples else None)
        b = after[0] if after else (self.samples[-1] if self.samples else None)
        if a is None or b is None:
            return None
        return b.cpu_s - a.cpu_s


# --- completeness of a wrapped run ---------------------------------------------------------------


@dataclass
class DbCheck:
    rows: int  # stdin/stdout message rows
    rows_c2s: int
    rows_s2c: int
    bytes_c2s: int
    bytes_s2c: int
    stderr_rows: int
    sessions: int
    status: str | None
    message_count: int | None
    expected: int
    missing: int

    @property
    def ok(self) -> bool:
        return self.missing == 0

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "ok": self.ok}


def check_db(db: Path, expected_sent: int, expected_received: int) -> DbCheck:
    """Count the recorded stdin/stdout rows of the (single) session in `db` against what the bench saw."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        sessions = conn.execute("SELECT count(*) FROM session").fetchone()[0]
        sid, status, message_count = conn.execute(
            "SELECT id, status, message_count FROM session ORDER BY id DESC LIMIT 1"
        ).fetchone() or (None, None, None)
        per = dict.fromkeys(("c2s", "s2c"), (0, 0))
        for direction, n, size in conn.execute(
            "SELECT direction, count(*), coalesce(sum(size), 0) FROM message "
            "WHERE session_id = ? AND channel IN ('stdin', 'stdout') GROUP BY direction",
            (sid,),
        ):
            per[direction] = (n, size)
        stderr_rows = conn.execute(
            "SELECT count(*) FROM message WHERE session_id = ? AND channel = 'stderr'", (sid,)
        ).fetchone()[0]
    rows = per["c2s"][0] + per["s2c"][0]
    expected = expected_sent + expected_received
    return DbCheck(
        rows=rows,
        rows_c2s=per["c2s"][0],
        rows_s2c=per["s2c"][0],
        bytes_c2s=per["c2s"][1],
        bytes_s2c=per["s2c"][1],
        stderr_rows=stderr_rows,
        sessions=sessions,
        status=status,
        message_count=message_count,
        expected=expected,
        missing=expected - rows,
    )


def workdir(prefix: str) -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix=f"mcp-bench-{prefix}-")


PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'


def startup_argv(setup: str, server: list[str], db: Path) -> list[str]:
    """The start-up and exit benches' setups: direct, socat, or wrap into `db` (one per run)."""
    if setup == "direct":
        return list(server)
    if setup == "socat":
        return ["socat", "-", "EXEC:" + shlex.join(server)]
    return [*WRAP_PREFIX, "--db", str(db), "--quiet", "--", *server]


def spawn_answered(argv: list[str]) -> subprocess.Popen[bytes]:
    """The process of `argv`, spawned with pipes, once it has answered one ping (its first answer
    line read); killed if it ends first."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
        cwd=PROJECT_DIR,
    )
    assert proc.stdin and proc.stdout
    try:
        os.write(proc.stdin.fileno(), PING)
        buf = b""
        while b"\n" not in buf:
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                raise EOFError(f"{argv[:3]}: EOF before the first answer")
            buf += data
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc
