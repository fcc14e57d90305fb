"""`mcp-inspect wrap`: the server starts and bytes flow first, the recording store opens beside them.

Start-up is on the path of every MCP client that launches a wrapped server,
so this module imports only what forwarding needs (os, threading,
subprocess, the stdio pumps of `transports/stdio.py`). The recorder, the
store and SQLAlchemy (about half a second of imports, plus opening the
database) load on a second thread, once the server has sent its first bytes
(or after `OPEN_AFTER_S`), so that they do not take CPU from its start.
Until they are ready, `EarlyTap` holds the copies in order with the time
they were read, and hands them to the recorder's tap when it exists: nothing
is lost. The hold is bounded (`EARLY_CHUNKS` chunks of at most 64 KiB): past
that, forwarding waits, as it does when the recorder falls behind.
`--durable` opens the store first (every chunk waits for its commit anyway).

`parse_wrap_args` reads wrap's options (`WRAP_OPTIONS`) without Typer
(whose import costs as much as the rest): `inspector/entry.py` uses it, and
anything it does not recognise (`--help`, a typo, a missing value) goes to
the full CLI instead, whose `wrap` command answers in Typer's words and
otherwise hands the same arguments back to `parse_wrap_args`.

If the store cannot be opened (a bad --db, a bad --redact-path) once the
server runs, the server is stopped and the error is raised in the main thread:
one error line and exit status 2, as before the server was started first.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

from inspector.errors import HandedOff, InspectorError, SpawnError
from inspector.transports.stdio import StdioShim

TYPE_CHECKING = False  # `typing` is not imported on the start-up path either
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from inspector.capture import Tap

__all__ = ["EARLY_CHUNKS", "WRAP_OPTIONS", "EarlyTap", "WrapOptions", "parse_wrap_args", "run_wrap"]

EARLY_CHUNKS = 1024
# The store opens once the server has sent its first bytes, or after this long: its imports would
# otherwise take CPU from the starting server (on a small machine, tens of ms of its first answer).
OPEN_AFTER_S = 0.5


class WrapOptions:
    """`mcp-inspect wrap`'s options (`WRAP_OPTIONS`; its --help in cli/record.py). A plain class: `dataclasses` costs
    10 ms of imports on the start-up path."""

    def __init__(
        self,
        command: list[str],
        *,
        db: str | None = None,
        name: str | None = None,
        durable: bool = False,
        grace: float = 2.0,
        quiet: bool = False,
        redact: list[str] | None = None,
        redact_path: list[str] | None = None,
        keep_secrets: bool = False,
        faults: str | None = None,
        intercept: bool = False,
        seed: int | None = None,
        pause_timeout: float | None = None,
        pause_default: str | None = None,
        otlp: str | None = None,
        otlp_content: bool = False,
        metadata_only: bool = False,
        max_record_bytes: str | None = None,
        host: str | None = None,
        host_file: str | None = None,
    ) -> None:
        self.command = command
        self.db = db
        self.name = name
        self.durable = durable
        self.grace = grace
        self.quiet = quiet
        self.redact = redact or []
        self.redact_path = redact_path or []
        self.keep_secrets = keep_secrets
        # Intercept and fault injection: `intercept/wrap.py` is imported only when one is given.
        self.faults = faults
        self.intercept = intercept
        self.seed = seed
        self.pause_timeout = pause_timeout
        self.pause_default = pause_default
        # OpenTelemetry export (`inspector/otel/`): loaded on the store's thread, only when asked for.
        self.otlp = otlp
        self.otlp_content = otlp_content
        self.metadata_only = metadata_only  # or a per-server rule's `record` (read on the store's thread)
        self.max_record_bytes = max_record_bytes  # read on the store's thread (`capture.record_cap`)
        # `mcp-inspect install`'s entries: the host and its config file, the session's `host_config` fact.
        self.host = host
        self.host_file = host_file
        # Set by `run_wrap` when a finishing process records the session: nothing is left to do here,
        # and the process may leave at once (`entry.py`: the interpreter's teardown waited for the
        # store thread's imports, ~100 ms).
        self.handed_off = False
        # Whether the OpenTelemetry export runs (`run_wrap` decides, before the server starts).
        self.otel = False
        # The host process (`host_process.parent_process`), recorded as `facts["parent"]`: None means
        # this process's parent, read on the store's thread; a finishing process is given the wrap's.
        self.parent: dict[str, Any] | None = None


# wrap's options, the one list both readers take them from: `parse_wrap_args` reads them, and the
# Typer command (`inspector/cli/record.py`) declares the same names only to render --help and
# refuse bad input in Click's words, then hands the arguments to `parse_wrap_args`.
# An option's name -> (WrapOptions attribute, what it takes): a flag's value (True/False), or the
# type of its value (`list`: repeatable).
WRAP_OPTIONS: dict[str, tuple[str, object]] = {
    "--db": ("db", str),
    "--name": ("name", str),
    "--durable": ("durable", True),
    "--no-durable": ("durable", False),
    "--grace": ("grace", float),
    "--quiet": ("quiet", True),
    "-q": ("quiet", True),
    "--redact": ("redact", list),
    "--redact-path": ("redact_path", list),
    "--keep-secrets": ("keep_secrets", True),
    "--faults": ("faults", str),
    "--intercept": ("intercept", True),
    "--seed": ("seed", int),
    "--pause-timeout": ("pause_timeout", float),
    "--pause-default": ("pause_default", str),
    "--otlp": ("otlp", str),
    "--otlp-content": ("otlp_content", True),
    "--metadata-only": ("metadata_only", True),
    "--max-record-bytes": ("max_record_bytes", str),
    "--host": ("host", str),
    "--host-file": ("host_file", str),
}


def parse_wrap_args(args: list[str]) -> WrapOptions | None:
    """wrap's arguments (after the word `wrap`) as options, or None for anything the full CLI must
    read (`--help`, a typo, a missing or bad value: Typer's words for it)."""
    opts = WrapOptions(command=[])
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, inline = arg.partition("=")
        if name not in WRAP_OPTIONS:
            return None  # --help, a typo, a short option cluster: the full CLI's answer
        attr, takes = WRAP_OPTIONS[name]
        if isinstance(takes, bool):
            if eq:
                return None  # a flag takes no value
            setattr(opts, attr, takes)
            i += 1
            continue
        if eq:
            value_text = inline
            i += 1
        elif i + 1 < len(args):
            value_text = args[i + 1]
            i += 2
        else:
            return None
        if takes is list:
            getattr(opts, attr).append(value_text)
            continue
        try:
            setattr(opts, attr, takes(value_text))  # type: ignore[operator]
        except ValueError:
            return None
    command = args[i:]
    if command and command[0] == "--":  # as Click leaves a second `--`
        command = command[1:]
    if not command:
        return None
    opts.command = command
    return opts


_DATA, _EOS = 0, 1


class QuietStderr:
    """A wrap's stderr is its host's: often a pipe the host has closed (an SDK client reads a
    server's stderr only while it runs, and a finishing process writes after that). A line that
    cannot be written is dropped, never the recording: a BrokenPipeError from "recording session N"
    left that session `recording` with none of its messages."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))  # type: ignore[attr-defined]
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


class EarlyTap:
    """The pumps' tap until the recorder exists: holds copies in order, then passes them on."""

    def __init__(self, limit: int = EARLY_CHUNKS) -> None:
        self.limit = limit
        self._tap: Tap | None = None
        self._held: list[tuple[int, int, str, str, bytes]] = []
        self._cond = threading.Condition()
        self._dropped = False
        self._claimed = False  # a store is being opened for these copies (`claim`)
        self.server_spoke = threading.Event()  # the first server bytes were read

    def submit(self, direction: str, channel: str, data: bytes) -> None:
        tap = self._tap
        if tap is not None:  # attached while this thread was in here
            tap.submit(direction, channel, data)
        else:
            self._hold(_DATA, direction, channel, data)

    def submit_durable(self, direction: str, channel: str, data: bytes) -> None:
        raise RuntimeError("--durable opens the store before forwarding: it never uses an EarlyTap")

    def submit_message(
        self, direction: str, channel: str, raw: bytes, ts_ns: int | None = None, **http: Any
    ) -> None:
        raise RuntimeError("interception opens the store before forwarding: it never uses an EarlyTap")

    def end_stream(self, direction: str, channel: str) -> None:
        tap = self._tap
        if tap is not None:
            tap.end_stream(direction, channel)
        else:
            self._hold(_EOS, direction, channel, b"")

    def _hold(self, kind: int, direction: str, channel: str, data: bytes) -> None:
        ts_ns = time.time_ns()
        if direction == "s2c":
            self.server_spoke.set()
        with self._cond:
            while self._tap is None and not self._dropped and len(self._held) >= self.limit:
                self._cond.wait()
            if self._dropped:
                return
            if self._tap is None:
                self._held.append((kind, ts_ns, direction, channel, data))
            elif kind == _DATA:  # attached while this thread waited for the lock
                self._tap.submit(direction, channel, data, ts_ns)
            else:
                self._tap.end_stream(direction, channel, ts_ns)

    def attach(self, tap: Tap) -> None:
        """From now on copies go to `tap` (a recorder's `Tap`), the held ones first."""
        with self._cond:
            for kind, ts_ns, direction, channel, data in self._held:
                if kind == _DATA:
                    tap.submit(direction, channel, data, ts_ns)
                else:
                    tap.end_stream(direction, channel, ts_ns)
            self._held = []
            self._tap = tap
            # From now on the pumps call the recorder's tap directly: these instance attributes
            # shadow the methods, so the forwarding path pays no extra call for the early start.
            self.submit = tap.submit  # type: ignore[method-assign]
            self.end_stream = tap.end_stream  # type: ignore[method-assign]
            self._cond.notify_all()

    def claim(self) -> bool:
        """The store opener is about to create the session: False if the copies were handed off."""
        with self._cond:
            if self._dropped:
                return False
            self._claimed = True
            return True

    def hand_off(self) -> list[tuple[int, int, str, str, bytes]] | None:
        """Take every held copy for another process to record (the pumps have stopped); None when
        a store already claimed them (it records them itself)."""
        with self._cond:
            if self._claimed or self._tap is not None:
                return None
            held, self._held = self._held, []
            self._dropped = True
            self._cond.notify_all()
            return held

    def drop(self) -> None:
        """Recording failed: forget what is held and hold nothing more (forwarding never waits)."""
        with self._cond:
            self._dropped = True
            self._held = []
            self._cond.notify_all()


class _Store:
    """The recording side of a wrap: engine, session, recorder, tap (opened on any thread)."""

    def __init__(
        self,
        opts: WrapOptions,
        *,
        announce: bool = True,
        claim: Callable[[], bool] | None = None,
        attach: Callable[[Tap], None] | None = None,
    ) -> None:
        import gc

        from inspector.capture import Recorder
        from inspector.capture.recorder import record_cap
        from inspector.capture.redact import rules_from
        from inspector.capture.sessions import create_session
        from inspector.config import default_db
        from inspector.recording_control import announce as announce_pausable
        from inspector.store.autoprune import start as start_retention
        from inspector.store.db import db_key
        from inspector.store.opening import open_db
        from inspector.store.writer import StoreWriter

        try:
            rules = rules_from(opts.redact, opts.redact_path, keep=opts.keep_secrets)
        except ValueError as exc:
            raise InspectorError(str(exc)) from None
        otel = _otel(opts)  # a bad --otlp is refused before the session is created
        cap = record_cap(opts.max_record_bytes)  # and a bad --max-record-bytes
        self.engine = open_db(opts.db or default_db(), create=True)
        rules = rules.for_server(opts.name, opts.command)  # the session's own (capture/sessions.py)
        # What exists now (the modules, the store's connection) lives as long as the process:
        # out of the collector's sight, it is no longer walked by every full collection, which took
        # about 2 of the ~12 us of CPU the shim spent per message in a flood.
        gc.freeze()
        self.subscribers: list[Any] = [StoreWriter(self.engine), *otel]
        self.recorder = Recorder(self.subscribers, max_record_bytes=cap, redaction=rules).start()
        # Everything slow is done: only now are the held copies claimed. Between the claim and
        # `attach` the copies can no longer go to a finishing process, and a host's SIGKILL (an SDK
        # client sends it 2 s after its SIGTERM) would lose them with the session left `recording`:
        # that window is one INSERT long, not the store's whole opening (issue #34 follow-up).
        if claim is not None and not claim():
            self.recorder.stop()
            self.engine.dispose()
            raise HandedOff
        self.session_id = create_session(
            self.engine, kind="stdio-wrap", target=opts.command, name=opts.name, redaction=rules
        )
        self.tap = self.recorder.open(self.session_id, record=_record_mode(opts))
        if opts.parent is None:
            from inspector.host_process import parent_process

            opts.parent = parent_process()
        if opts.parent:  # the host run this session belongs to (store/host_runs.py)
            self.tap.add_facts({"parent": opts.parent})
        if opts.host is not None or opts.host_file is not None:
            self.tap.add_facts(
                {"host_config": {"host": opts.host, "file": opts.host_file, "entry": opts.name}}
            )
        if attach is not None:
            attach(self.tap)
        self.pausable = announce_pausable([self.session_id], db_key(self.engine), "wrap")
        # The retention policy, in a thread of its own: never on the forwarding path (store/autoprune.py).
        start_retention(self.engine, quiet=opts.quiet)
        if announce:
            self.announce(opts)

    def announce(self, opts: WrapOptions) -> None:
        if not opts.quiet:
            from inspector.store.db import store_name

            print(
                f"[mcp-inspect] recording session {self.session_id} ({store_name(self.engine)})",
                file=sys.stderr,
                flush=True,
            )

    def end(self, exit_status: int | None, reason: str, quiet: bool) -> None:
        from inspector.recording_control import withdraw

        withdraw(self.pausable)
        self.tap.end(exit_status, reason)
        self.recorder.stop()
        if len(self.subscribers) > 1:
            from inspector.otel.endpoint import close_otel

            close_otel(self.subscribers)
        total = self.recorder.messages_recorded(self.session_id)
        missing = self.recorder.not_recorded(self.session_id)
        if missing:  # said even with --quiet: these messages are not in the store
            print(
                f"[mcp-inspect] session {self.session_id} ended: {reason}; {missing} of {total}"
                " messages NOT recorded (database failed)",
                file=sys.stderr,
                flush=True,
            )
        elif not quiet:
            paused = self.recorder.paused_skipped.get(self.session_id)
            skipped = f", {paused} not recorded (paused)" if paused else ""
            print(
                f"[mcp-inspect] session {self.session_id} ended: {reason}, {total} messages recorded{skipped}",
                file=sys.stderr,
                flush=True,
            )


def _record_mode(opts: WrapOptions) -> str:
    """full, metadata (--metadata-only, or a per-server rule) or paused (a rule)."""
    from inspector.recording_control import record_mode

    return record_mode(metadata_only=opts.metadata_only, name=opts.name, command=opts.command)


class _PauseSwitch:
    """SIGUSR1 pauses the recording, SIGUSR2 resumes it (`inspector/recording_control.py`). The
    handlers are set on the main thread before the server starts (SIGUSR1's default would kill the
    shim); a signal that comes before the store opened is applied once it has."""

    def __init__(self) -> None:
        self._tap: Tap | None = None
        self._wanted: bool | None = None
        # Reentrant: the handler runs on the main thread, which may be inside `attach` (durable).
        self._lock = threading.RLock()

    def install(self) -> None:
        import signal  # already imported by subprocess: no cost on the start-up path

        if threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGUSR1"):
            signal.signal(signal.SIGUSR1, lambda *_: self.set(True))
            signal.signal(signal.SIGUSR2, lambda *_: self.set(False))

    def set(self, paused: bool) -> None:
        with self._lock:
            if self._tap is None:
                self._wanted = paused
            else:
                self._tap.pause(paused)

    def attach(self, tap: Tap) -> None:
        with self._lock:
            self._tap = tap
            if self._wanted is not None:
                tap.pause(self._wanted)


def _otel(opts: WrapOptions) -> list[Any]:
    """The OpenTelemetry subscriber when --otlp or the OTEL_EXPORTER_OTLP_* variables ask for one
    (the SDK is imported here, on the store's thread, never before forwarding starts)."""
    if not opts.otel:  # decided by `run_wrap` before the server started
        return []
    from inspector.otel.endpoint import otel_for

    return otel_for(opts.otlp, transport="pipe", content=opts.otlp_content, quiet=opts.quiet)


def run_wrap(opts: WrapOptions) -> int:
    """Run the wrapped server until it exits; return the exit status the shim should exit with."""
    if not opts.command:
        raise InspectorError("wrap needs a server command, e.g. mcp-inspect wrap -- python server.py")
    if opts.otlp is not None or any(k.startswith("OTEL_EXPORTER_OTLP_") for k in os.environ):
        # A bad --otlp, or the otel extra missing, is said before the server starts: a short session
        # may be recorded by a finishing process, whose errors would not reach the exit status.
        from inspector.otel.endpoint import otel_allowed

        opts.otel = otel_allowed(opts.otlp, quiet=opts.quiet)
    sys.stderr = QuietStderr(sys.stderr)
    # The forwarding threads wait for the GIL while the recorder works: let them have it sooner.
    sys.setswitchinterval(0.0005)
    switch = _PauseSwitch()
    switch.install()
    if opts.faults is not None or opts.intercept:
        from inspector.intercept.wrap import run_intercepted

        def opened_for_intercept() -> _Store:
            store = _Store(opts, announce=False)
            switch.attach(store.tap)
            return store

        return run_intercepted(opts, opened_for_intercept, _spawn_failed)
    if opts.durable:
        store = _Store(opts, announce=False)
        switch.attach(store.tap)
        shim = StdioShim(opts.command, store.tap, durable=True, grace=opts.grace)
        try:
            shim.spawn()
        except SpawnError as exc:
            return _spawn_failed(store, exc)
        store.announce(opts)
        result = shim.run()
        store.end(result.returncode, result.reason, opts.quiet)
        return result.exit_code

    early = EarlyTap()
    shim = StdioShim(opts.command, early, grace=opts.grace)
    try:
        shim.spawn()
    except SpawnError as exc:
        # Recorded as a session that could not start: open the store after all.
        return _spawn_failed(_Store(opts, announce=False), exc)
    opened: list[_Store] = []
    failed: list[BaseException] = []

    def open_store() -> None:
        early.server_spoke.wait(OPEN_AFTER_S)
        try:
            store = _Store(opts, claim=early.claim, attach=early.attach)
        except HandedOff:
            return
        except BaseException as exc:  # reported by the main thread, once the server has stopped
            failed.append(exc)
            early.drop()
            shim.terminate("recording could not start")
            return
        opened.append(store)
        switch.attach(store.tap)

    opener = threading.Thread(target=open_store, name="mcp-inspect-store-open", daemon=True)
    opener.start()
    # One handler for the whole run (not the shim's, then ours): while the server runs, a signal
    # goes to it; once it has exited, a signal says "leave now". Between the shim putting back the
    # default action and `_Leaving` setting its own, a host's SIGTERM killed the wrap with all it held.
    with _Leaving(shim) as leaving:
        result = shim.run(install_signal_handlers=False)
        early.server_spoke.set()  # the server is gone: open the store now to record what it sent
        if opener.is_alive() and (held := early.hand_off()) is not None:
            # A short session: the server is gone before the store has opened (its imports take
            # 0.5-1.5 s, several times the server's own exit). Hosts restart servers often and wait
            # for the old process to go: what was held is recorded by a detached process, and the
            # wrap leaves with its server (issue #34).
            _finish_elsewhere(opts, held, result.returncode, result.reason, None)
            opts.handed_off = True
            return result.exit_code
        while opener.is_alive():
            opener.join(0.05)
            if leaving.asked and opener.is_alive() and (held := early.hand_off()) is not None:
                # The host wants us gone (an SDK client sends SIGTERM 2 s after closing stdin, then
                # SIGKILL) before the store has even opened (its imports take seconds on a loaded
                # machine): what was held is recorded by a detached process instead of being lost.
                _finish_elsewhere(opts, held, result.returncode, result.reason, leaving.asked)
                opts.handed_off = True
                return result.exit_code
        if failed:
            raise failed[0]
        opened[0].end(result.returncode, result.reason, opts.quiet)
    return result.exit_code


class _Leaving:
    """SIGTERM/SIGINT/SIGHUP while a wrap runs: passed to the server while it runs (the shim's
    handler); once it has exited, while the recording is finished, they say "leave now" (`asked`
    names the signal) instead of killing the process with what it holds; a second one exits at once."""

    def __init__(self, shim: StdioShim) -> None:
        self.shim = shim
        self.asked: str | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> _Leaving:
        import signal

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def _on_signal(self, signum: int, _frame: object) -> None:
        import os
        import signal

        if self.shim.server_running:
            self.shim.on_signal(signum, _frame)
            return
        if self.asked is not None:
            os._exit(128 + signum)
        self.asked = signal.Signals(signum).name

    def __exit__(self, *_exc: object) -> None:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]


def _finish_elsewhere(
    opts: WrapOptions,
    held: list[tuple[int, int, str, str, bytes]],
    returncode: int,
    reason: str,
    signal: str | None,
) -> None:
    """Hand the held copies to `python -m inspector.wrap_finish` in its own session: it
    records them (the same store, redaction and session end) after this process has exited. `signal`:
    the host's signal that made the wrap leave (named in the end reason), None when the server had
    simply exited first. Its stderr is the wrap's: a host reading that to its end reads it after the
    session is recorded; one waiting for the process only does not wait for the recording."""
    import marshal
    import os
    import subprocess

    from inspector.host_process import parent_process

    state = {
        "command": opts.command, "db": opts.db, "name": opts.name, "redact": opts.redact,
        "redact_path": opts.redact_path, "keep_secrets": opts.keep_secrets, "held": held,
        "returncode": returncode,
        "reason": reason if signal is None else f"{reason}; recorded after {signal} by a finishing process",
        "otlp": opts.otlp, "otlp_content": opts.otlp_content, "metadata_only": opts.metadata_only,
        "max_record_bytes": opts.max_record_bytes, "otel": opts.otel,
        "parent": opts.parent if opts.parent is not None else parent_process(),  # the wrap's host, not ours
        "host": opts.host, "host_file": opts.host_file,
        # Said on the wrap's stderr as the wrap would have ("recording session N", "ended: ..."),
        # unless a signal made it leave (the host is not listening any more) or --quiet.
        "quiet": opts.quiet or signal is not None,
    }  # fmt: skip
    # As tempfile.mkstemp (0600, a new name), without its imports (random, shutil: ~10 ms on this path).
    folder = os.environ.get("TMPDIR") or "/tmp"
    path = os.path.join(folder, f"mcp-inspect-wrap-{os.getpid()}-{time.time_ns()}.held")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        marshal.dump(state, out)
    subprocess.Popen(
        [sys.executable, "-m", "inspector.wrap_finish", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # out of the host's process group: its SIGKILL does not reach it
    )


def _spawn_failed(store: _Store, exc: SpawnError) -> int:
    """The server could not start: recorded as the session's end (its exit status and the reason),
    said on stderr with the session id, and the exit status a shell gives (127 or 126): a host sees
    the same failure as without the shim."""
    from rich.console import Console
    from rich.markup import escape

    store.end(exc.exit_code, f"spawn failed: {exc}", quiet=True)
    Console(stderr=True, soft_wrap=True).print(
        f"[red]error:[/red] {escape(str(exc))} (session {store.session_id})"
    )
    return exc.exit_code
