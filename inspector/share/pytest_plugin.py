"""The pytest plugin (entry point `pytest11: mcp_inspector`): MCP recordings as test fixtures.

Recordings are session files (`jsonl.py`) next to the tests:
`<test dir>/recordings/<module>/<test>.mcp.jsonl` (ini `mcp_recordings_dir`
changes `recordings`; the marker's `path=` names another file). Record modes
keep pytest-recording's names (`--mcp-record-mode`, ini `mcp_record_mode`):

- `none` (default): play only; a missing recording fails the test;
- `once`: play when the recording exists, else record it;
- `new_episodes`: play what is recorded and pass what is not to the real server,
  adding it to the recording;
- `all`: always talk to the real server and record everything again;
- `rewrite`: delete the recording first, then record as `all` does.

Fixtures:
- `mcp_server` tests a client against a recorded server: `.command` (stdio, a
  mock server to spawn) or `.url` (Streamable HTTP) stands in for the real
  server the marker names (`server=[argv...]` or `url=...`), through
  `mcp-inspect mock-server` with the matching record mode. When the test
  ends, a recorded request the client did not send, or a request the
  recording lacks, fails it.
- `mcp_replay` tests a server against a recorded client: `mcp_replay(argv)`
  or `mcp_replay(url=...)` replays the recording and fails with the diff
  (changed paths, old and new values). `all` / `rewrite` keep the replay as
  the new recording (accepting the server's new behaviour).

Marker options: `path`, `server`, `url`, `ignore` (diff paths), `calibrate`,
`match` (strict or lenient), `timeout`. Secrets in recordings come from the
environment (`MCP_INSPECTOR_SECRET_<NAME>`), as for `mcp-inspect replay`.
Nothing heavy is imported until a fixture is used.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MODES = ("none", "once", "new_episodes", "all", "rewrite")
_MOCK_MODES = {"none": "none", "once": "once", "new_episodes": "new", "all": "all", "rewrite": "all"}
_START_TIMEOUT = 30.0
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]=,]+")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-inspector", "MCP recordings (mcp-inspector)")
    group.addoption(
        "--mcp-record-mode",
        choices=MODES,
        default=None,
        help="none: play recordings only (default); once: record missing ones; new_episodes: "
        "record what the recording lacks; all: record everything again; rewrite: delete, then record.",
    )
    parser.addini("mcp_record_mode", "The default --mcp-record-mode.", default="none")
    parser.addini(
        "mcp_recordings_dir",
        "Folder (next to each test file) holding <module>/<test>.mcp.jsonl recordings.",
        default="recordings",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mcp_recording(path=None, server=None, url=None, ignore=(), calibrate=False, match='strict', "
        "timeout=30): options of the MCP recording this test plays or records (mcp-inspector).",
    )


@dataclass
class McpRecording:
    """Where a test's recording lives and how it is used (the `mcp_recording` fixture)."""

    path: Path
    mode: str
    server: list[str] | None = None
    url: str | None = None
    ignore: tuple[str, ...] = ()
    calibrate: bool = False
    match: str = "strict"
    timeout: float = 30.0

    @property
    def records(self) -> bool:
        """Whether this run may talk to the real server and write the recording."""
        return self.mode in ("all", "rewrite", "new_episodes") or (
            self.mode == "once" and not self.path.exists()
        )


def _mode(config: pytest.Config) -> str:
    mode = config.getoption("--mcp-record-mode") or config.getini("mcp_record_mode") or "none"
    if mode not in MODES:
        raise pytest.UsageError(f"mcp_record_mode must be one of {', '.join(MODES)}, not {mode!r}")
    return str(mode)


@pytest.fixture
def mcp_recording(request: pytest.FixtureRequest) -> McpRecording:
    """The test's recording: its file, the record mode and the marker's options."""
    marker = request.node.get_closest_marker("mcp_recording")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    unknown = set(options) - {"path", "server", "url", "ignore", "calibrate", "match", "timeout"}
    if unknown:
        raise pytest.UsageError(f"mcp_recording: unknown option(s) {', '.join(sorted(unknown))}")
    folder = Path(str(request.node.path)).parent
    if options.get("path"):
        path = Path(options["path"])
        path = path if path.is_absolute() else folder / path
    else:
        module = Path(str(request.node.path)).stem
        name = _UNSAFE.sub("_", request.node.name)
        path = folder / request.config.getini("mcp_recordings_dir") / module / f"{name}.mcp.jsonl"
    server = options.get("server")
    if isinstance(server, str):
        server = shlex.split(server)
    return McpRecording(
        path=path,
        mode=_mode(request.config),
        server=list(server) if server else None,
        url=options.get("url"),
        ignore=tuple(options.get("ignore") or ()),
        calibrate=bool(options.get("calibrate", False)),
        match=str(options.get("match", "strict")),
        timeout=float(options.get("timeout", 30.0)),
    )


def _cli() -> list[str]:
    return [sys.executable, "-m", "inspector"]


def _import(db: Path, recording: Path) -> tuple[int, int]:
    """Import `recording` into `db`; the first and the last session's ids."""
    from inspector.share.importer import import_jsonl
    from inspector.store import open_engine

    engine = open_engine(db)
    try:
        with recording.open("rb") as f:
            done = import_jsonl(engine, f, source=str(recording))
    finally:
        engine.dispose()
    if not done.session_ids:
        pytest.fail(f"{recording}: the recording holds no session", pytrace=False)
    return done.session_ids[0], done.session_ids[-1]


def _write(db: Path, session_ids: Sequence[int], recording: Path) -> None:
    """Export sessions of `db` to `recording` (replaced only once complete)."""
    from inspector.share.commands import _write as write_file
    from inspector.share.export import jsonl_lines
    from inspector.store import get_session, open_engine

    engine = open_engine(db, create=False)
    try:
        sessions = [get_session(engine, i) for i in session_ids]
        recording.parent.mkdir(parents=True, exist_ok=True)
        write_file(jsonl_lines(engine, sessions), str(recording))
    finally:
        engine.dispose()


class McpServer:
    """A mock server playing (or recording) the test's recording: `command` for stdio clients,
    `url` for HTTP ones. `check()` fails the test for requests played and recorded apart."""

    def __init__(self, recording: McpRecording, db: Path) -> None:
        self.recording = recording
        self.db = db
        self.source: int | None = None
        self.command: list[str] | None = None
        self.url: str | None = None
        self._http: subprocess.Popen[bytes] | None = None
        self._checked = False
        self.missing: str | None = None
        self.baseline = 0  # sessions up to this id are the imported recording's

    def start(self) -> None:
        rec = self.recording
        if rec.server is None and rec.url is None and rec.records:
            raise pytest.UsageError(
                f"--mcp-record-mode {rec.mode} needs the real server: "
                "@pytest.mark.mcp_recording(server=[...]) or (url=...)"
            )
        if rec.mode == "rewrite":
            rec.path.unlink(missing_ok=True)
        if rec.path.exists():
            self.source, self.baseline = _import(self.db, rec.path)
        elif rec.mode == "none":
            # Failed in the test's call phase (see pytest_runtest_call), so it counts as a failure.
            self.missing = (
                f"no MCP recording at {rec.path} (record mode none): run with --mcp-record-mode once "
                "to record it against the real server"
            )
            return
        mode = _MOCK_MODES[rec.mode] if self.source is not None else "all"
        args = [
            "mock-server",
            str(self.source) if self.source is not None else "recording",
            "--db",
            str(self.db),
            "--record-mode",
            mode,
            "--match",
            rec.match,
        ]
        if mode != "none":
            if rec.url is not None:
                args += ["--forward", rec.url]
            elif rec.server is not None:
                args += ["--forward-cmd", shlex.join(rec.server)]
        if rec.url is None:
            self.command = [*_cli(), *args, "--stdio"]
            return
        self._http = subprocess.Popen(
            [*_cli(), *args, "--http", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.url = self._wait_for_url(self._http)

    @staticmethod
    def _wait_for_url(process: subprocess.Popen[bytes]) -> str:
        assert process.stderr is not None
        deadline = time.monotonic() + _START_TIMEOUT
        seen = b""
        while time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                break
            seen += line
            found = re.search(rb"mock server at (\S+?);", line)
            if found:
                return found.group(1).decode()
        process.kill()
        pytest.fail(f"the mock server did not start: {seen.decode(errors='replace')[-2000:]}", pytrace=False)

    def stop(self) -> None:
        if self._http is not None and self._http.poll() is None:
            self._http.send_signal(signal.SIGINT)
            try:
                self._http.wait(20)
            except subprocess.TimeoutExpired:
                self._http.kill()
                self._http.wait()

    def _mock_sessions(self) -> list[int]:
        """The mock-server sessions of this test, once each has ended (bounded wait)."""
        from inspector.store import list_sessions, open_engine, session_state

        engine = open_engine(self.db)
        try:
            deadline = time.monotonic() + 15
            while True:
                found = [
                    s
                    for s in list_sessions(engine, limit=1000)
                    if s.kind == "mock-server" and (s.id or 0) > self.baseline
                ]
                if all(session_state(s) != "recording" for s in found) or time.monotonic() > deadline:
                    return sorted(s.id for s in found if s.id is not None)
                time.sleep(0.05)
        finally:
            engine.dispose()

    def check(self) -> None:
        """After the test body: write the recording (when recording), or fail for a mismatch."""
        __tracebackhide__ = True
        if self._checked:
            return
        self._checked = True
        self.stop()
        sessions = self._mock_sessions()
        if self.recording.records and sessions and (self.source is None or self._forwarded(sessions)):
            _write(self.db, sessions, self.recording.path)
            return
        if self.source is None or not sessions:
            return
        problems = self._mismatches(sessions)
        if problems:
            raise AssertionError("\n".join(problems))

    def _forwarded(self, sessions: list[int]) -> bool:
        """Whether the mock passed anything to the real server (a session whose parent is one of
        this test's mock sessions: the forwarded connection)."""
        from inspector.store import list_sessions, open_engine

        engine = open_engine(self.db)
        try:
            return any(s.parent_id in sessions for s in list_sessions(engine, limit=1000))
        finally:
            engine.dispose()

    def _mismatches(self, sessions: list[int]) -> list[str]:
        from inspector.replay.matching import MatchPolicy
        from inspector.store import iter_messages, open_engine

        assert self.source is not None
        policy = MatchPolicy(self.recording.match)
        engine = open_engine(self.db)
        try:
            recorded = Counter(_requests(iter_messages(engine, self.source), policy))
            sent: Counter[tuple[str, str]] = Counter()
            unknown: list[str] = []
            for session_id in sessions:
                rows = list(iter_messages(engine, session_id))
                sent.update(_requests(rows, policy))
                unknown += [
                    f"  {row.method}: {row.raw.decode(errors='replace')[:300].strip()}"
                    for row in rows
                    if row.direction == "s2c" and row.error_code == -32050
                ]
        finally:
            engine.dispose()
        problems = []
        unused = recorded - sent
        if unused:
            problems.append(
                f"the client did not send {sum(unused.values())} recorded request(s) "
                f"({self.recording.path.name}):"
            )
            problems += [f"  {method} {params}" for (method, params), n in unused.items() for _ in range(n)]
        if unknown:
            problems.append("the client sent request(s) the recording has no answer for:")
            problems += unknown
        return problems


def _requests(rows: Iterator[Any] | list[Any], policy: Any) -> Iterator[tuple[str, str]]:
    """(method, normalised params) of each client request among `rows` (batches included)."""
    import orjson

    for row in rows:
        if row.direction != "c2s" or row.kind not in ("request", "batch"):
            continue
        try:
            value = orjson.loads(row.body)
        except orjson.JSONDecodeError:
            continue
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str):
                params = policy.normalize(message.get("params"))
                yield message["method"], orjson.dumps(params, option=orjson.OPT_SORT_KEYS).decode()


@pytest.fixture
def mcp_server(mcp_recording: McpRecording, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    """A stand-in for the marker's real server, played from (or recording) the test's recording."""
    server = McpServer(mcp_recording, tmp_path_factory.mktemp("mcp-server") / "mock.db")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    # Around the test body, so a missing recording or a mismatch fails the test (not its set-up
    # or teardown); the body does not run without its recording.
    __tracebackhide__ = True
    server = getattr(item, "funcargs", {}).get("mcp_server")
    if isinstance(server, McpServer) and server.missing is not None:
        server._checked = True
        pytest.fail(server.missing, pytrace=False)
    result = yield
    if isinstance(server, McpServer):
        server.check()
    return result


class McpReplay:
    """`mcp_replay(argv)` or `mcp_replay(url=...)`: replay the recording, fail with the diff."""

    def __init__(self, recording: McpRecording, db: Path) -> None:
        self.recording = recording
        self.db = db

    def __call__(self, command: Sequence[str] | None = None, *, url: str | None = None) -> None:
        __tracebackhide__ = True  # the test's line and the diff, not the plugin's code
        from inspector.replay.diff import render_text
        from inspector.replay.report import replay_verdict
        from inspector.store import get_session, open_engine

        rec = self.recording
        if (command is None) == (url is None):
            raise TypeError("mcp_replay needs the server: a command (argv list) or url=")
        if not rec.path.exists():
            pytest.fail(f"no MCP recording at {rec.path} to replay", pytrace=False)
        source, _last = _import(self.db, rec.path)
        engine = open_engine(self.db)
        try:
            verdict = replay_verdict(
                engine,
                get_session(engine, source),
                url if url is not None else list(command or ()),
                calibrate=rec.calibrate,
                ignore=rec.ignore,
                match=rec.match,
                timeout=rec.timeout,
            )
        finally:
            engine.dispose()
        if verdict.problem is not None or verdict.diff is None:
            pytest.fail(f"the replay of {rec.path.name} could not run: {verdict.problem}", pytrace=False)
        if rec.mode in ("all", "rewrite"):
            _write(self.db, [verdict.replay], rec.path)
            return
        if verdict.exit_status != 0:
            text = render_text(verdict.diff)
            if verdict.timeouts:
                text += f"\nno answer within {rec.timeout:g} s to request id(s) {', '.join(verdict.timeouts)}"
            raise AssertionError(f"the server's behaviour changed against {rec.path.name}:\n{text}")


@pytest.fixture
def mcp_replay(mcp_recording: McpRecording, tmp_path_factory: pytest.TempPathFactory) -> McpReplay:
    """Replay the test's recording against a server under test and fail with the behaviour diff."""
    return McpReplay(mcp_recording, tmp_path_factory.mktemp("mcp-replay") / "replay.db")
