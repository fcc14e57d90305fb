"""A warm Python for `python -m MODULE` peers of the tests: one process that imported the modules
once and forks a fresh process for each run, so a run costs a fork rather than Python's start-up and
the imports (the demo server: ~2.4 s of CPU a start, mostly the SDK's types).

    python forkserver.py SOCKET PACKAGE[,PACKAGE...] [MODULE...]  # the server, on a Unix socket
    python -I -S forkserver.py --run SOCKET MODULE ARGS... # a run: behaves as `python -m MODULE ARGS...`

The run (the launcher, a bare Python: no site, no imports but the standard library's few) sends its
stdin, stdout and stderr (the descriptors themselves, SCM_RIGHTS), its environment, working
directory and arguments; the server forks a watcher, the watcher forks the run, whose descriptors
0, 1 and 2 are then the launcher's own: the pipes of whoever started the launcher, with the same
end-of-file. The launcher passes on the signals it is sent to the run, and leaves with the run's exit
status (or dies of the run's signal). The launcher killed (SIGKILL), the watcher kills the run. No
server listening (none started, or gone): the launcher becomes `python -m MODULE ARGS...` itself.

The server imports the libraries that PACKAGE's modules import (found by a process that imports them
all), not PACKAGE's own modules: each run imports those afresh, as a new process does; but the
MODULEs named after it, which the server imports too (own modules without state or settings).

The server leaves when its stdin closes (the test process that started it is gone).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import struct
import sys

_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _send(conn: socket.socket, payload: dict[str, object]) -> None:
    data = json.dumps(payload).encode()
    conn.sendall(struct.pack("!I", len(data)) + data)


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _recv(conn: socket.socket) -> dict[str, object]:
    (size,) = struct.unpack("!I", _recv_exact(conn, 4))
    return json.loads(_recv_exact(conn, size))  # type: ignore[no-any-return]


# --- the launcher ---------------------------------------------------------------------------------


def launch(path: str, module: str, args: list[str]) -> None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:  # no warm server: be the plain run
        os.execv(sys.executable, [sys.executable, "-m", module, *args])
    request = json.dumps(
        {"module": module, "args": args, "env": dict(os.environ), "cwd": os.getcwd()}
    ).encode()
    socket.send_fds(conn, [struct.pack("!I", len(request)) + request], [0, 1, 2])
    pid = int(_recv(conn)["pid"])  # type: ignore[call-overload]

    def forward(sig: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)

    for sig in _FORWARDED:
        signal.signal(sig, forward)
    # The run holds the pipes now: this process keeps none of their ends open.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        done = _recv(conn)
    except (EOFError, OSError):
        os._exit(70)
    if "signal" in done:
        sig = int(done["signal"])  # type: ignore[call-overload]
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(int(done["code"]))  # type: ignore[call-overload]


# --- the server -----------------------------------------------------------------------------------


def _run_child(request: dict[str, object], fds: list[int]) -> None:
    """In the forked run: become `python -m MODULE ARGS...` on the launcher's descriptors."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    for sig in (*_FORWARDED, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python starts
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[call-overload]
    import runpy

    module = str(request["module"])
    sys.argv = [module, *request["args"]]  # type: ignore[misc]
    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = -signal.SIGINT  # Python dies of the signal then
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    try:  # what Python does on its way out: non-daemon threads, atexit, the streams
        import atexit
        import threading

        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        if code < 0:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        os._exit(code)


def _watch(conn: socket.socket) -> None:
    """In the forked watcher: start the run, tell the launcher its pid, then how it ended."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    (size,) = struct.unpack("!I", message[:4])
    body = message[4:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            os._exit(1)
        body += chunk
    request = json.loads(body)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run_child(request, fds)
    for fd in fds:
        os.close(fd)
    _send(conn, {"pid": pid})
    import threading

    def launcher_gone() -> None:  # the launcher closes its end only when it leaves
        with contextlib.suppress(OSError):
            conn.recv(1)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    threading.Thread(target=launcher_gone, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    try:
        if os.WIFSIGNALED(status):
            _send(conn, {"signal": os.WTERMSIG(status)})
        else:
            _send(conn, {"code": os.WEXITSTATUS(status)})
    except OSError:
        pass
    os._exit(0)


def _reap(_sig: int, _frame: object) -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


# Imports every module of a package (in a process of its own) and prints the names of the other
# modules that came with them: the libraries our code uses, which the server imports.
_PROBE = """
import importlib, pkgutil, sys
package = sys.argv[1]
root = importlib.import_module(package)
for info in pkgutil.walk_packages(root.__path__, package + "."):
    if not info.name.endswith("__main__"):
        try:
            importlib.import_module(info.name)
        except Exception:
            pass
ours = (package, package + ".")
print("\\n".join(n for n in list(sys.modules) if not n.startswith(ours) and "__main__" not in n))
"""


def _libraries(packages: list[str]) -> list[str]:
    import subprocess

    names: dict[str, None] = {}
    for package in packages:
        found = subprocess.run(
            [sys.executable, "-c", _PROBE, package], stdin=subprocess.DEVNULL, capture_output=True, text=True
        )
        names.update(dict.fromkeys(found.stdout.split()))
    return list(names)


def serve(path: str, packages: list[str], preload: list[str]) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)  # before the imports: a launcher that comes early waits in the backlog
    listener.listen(64)
    import importlib

    # The libraries only: the packages' own modules are imported by each run afresh, as a new
    # process does (what they read from the environment at import, their module-wide state).
    for name in _libraries(packages):
        if name not in sys.modules:
            with contextlib.suppress(Exception):  # one that cannot be imported alone: a run will
                importlib.import_module(name)
    for name in preload:  # own modules named to be kept warm too (no state, nothing read at import)
        importlib.import_module(name)
    print("ready", flush=True)  # to the test process (tests/warm_peers.py waits for it)
    # The watchers are reaped as they end (with them the CPU time of their runs, which a
    # measurement of the test process's children then counts, as it counts a run's own process).
    signal.signal(signal.SIGCHLD, _reap)
    try:
        while True:
            ready, _, _ = select.select([listener, sys.stdin], [], [])
            if sys.stdin in ready:
                return  # the test process is gone (or said so)
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                try:
                    _watch(conn)
                finally:
                    os._exit(1)
            conn.close()
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(path)


if __name__ == "__main__":
    if sys.argv[1] == "--run":
        launch(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        serve(sys.argv[1], [name for name in sys.argv[2].split(",") if name], sys.argv[3:])
