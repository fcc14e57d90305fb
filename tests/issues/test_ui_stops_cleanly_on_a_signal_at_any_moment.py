"""`mcp-inspect ui` stopped by SIGTERM sometimes printed a traceback (a race in its shutdown).

What was wrong: the SIGINT that SIGTERM becomes (`inspector/cli/__init__.py`) went to asyncio's
runner until uvicorn's own handlers were in place, and after them again. Landing in that window it
cancelled the server's task in the middle of its start: the app's lifespan task was left waiting
(`receive`), and when it was collected after the loop had closed, uvicorn logged "Exception in
'lifespan' protocol ... RuntimeError: Event loop is closed" ("Task was destroyed but it is pending",
"There is no current event loop"); a few moments later the cancellation itself escaped as a
`CancelledError` traceback. Now `UiServer.run` holds SIGINT and SIGTERM from before its loop exists
until the loop is closed: a signal at any moment asks uvicorn to stop (start-up finishes, the
lifespan shuts down), and Ctrl-C's KeyboardInterrupt comes only once the loop is closed.

The moment is chosen, not waited for: one process runs `serve` (what `mcp-inspect ui` runs) once
per moment, and raises SIGTERM at the k-th Python function call after `UiServer.run` begins
(a profile hook), for every 3rd k from the first call to past the server's start. The signal handlers
are the CLI's own (`inspector.cli.main` installs them). The process boundary is the point: signal
handlers belong to the main thread of a process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SWEEP = textwrap.dedent(
    """
    import contextlib, gc, io, json, signal, sys
    from inspector.api import server as ui_server
    from inspector.cli import _terminated
    from inspector.store import open_engine

    signal.signal(signal.SIGTERM, _terminated)  # as `inspector.cli.main` does
    engine = open_engine(sys.argv[1], create=True)
    results = []
    for k in range(1, int(sys.argv[2]) + 1, 3):
        calls = [0, False]

        def hook(frame, event, arg, k=k, calls=calls):
            if event != "call":
                return
            if frame.f_code is ui_server.UiServer.run.__code__:
                calls[1] = True
            elif calls[1]:
                calls[0] += 1
                if calls[0] >= k:
                    sys.setprofile(None)
                    signal.raise_signal(signal.SIGTERM)

        err, out = io.StringIO(), io.StringIO()
        outcome = "returned"
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            sys.setprofile(hook)
            try:
                ui_server.serve(engine, host="127.0.0.1", port=0, allow_remote=False, open_browser=False)
            except BaseException as exc:
                outcome = repr(exc)
            finally:
                sys.setprofile(None)
            gc.collect()  # a task left pending on the closed loop is collected here
        results.append(
            {"k": k, "outcome": outcome, "stderr": err.getvalue(), "stopped": "UI stopped" in out.getvalue(),
             "handlers": [signal.getsignal(signal.SIGINT) is signal.default_int_handler,
                          signal.getsignal(signal.SIGTERM) is _terminated]}
        )
    print(json.dumps(results))
    """
)


@pytest.mark.timeout(240)
def test_sigterm_at_every_moment_of_the_start_stops_cleanly(tmp_path: Path) -> None:
    # Every 3rd call up to 90: past the server's start (about 60 calls here), the plain case after it.
    # Before the fix about half of them failed (calls 12-45, 65-77 and 87-90 in one sweep).
    moments = 90
    done = subprocess.run(
        [sys.executable, "-c", SWEEP, str(tmp_path / "r.db"), str(moments)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert not done.stderr, done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert len(results) == len(range(1, moments + 1, 3))
    bad = [r for r in results if r["outcome"] != "returned" or r["stderr"] or not r["stopped"]]
    assert not bad, json.dumps(bad[:3], indent=1)
    # Every run gave the handlers back as it found them (SIGINT: Python's; SIGTERM: the CLI's).
    assert all(r["handlers"] == [True, True] for r in results), results
