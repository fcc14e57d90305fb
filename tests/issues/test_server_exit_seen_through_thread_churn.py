"""A test that waits for a shim's server to exit is not fooled by the shim's threads ending.

Found as a flake of `test_wrap_sigterm_before_the_store_opens.py` in a loaded full run: "the
server did not exit when its stdin closed". Its helper listed the wrap's children from
`/proc/PID/task/*/children` and returned "no child" as soon as one thread vanished while being
read (the wrap's pumps end when the server does): the wait loop stopped, and the assertion, reading
again, found the server still there (alive, or a zombie the main thread had not reaped yet). It
also answered "no child" before the wrap had spawned its server at all (a slow start-up).

`tests/shim_process.py` now waits for the server's own pid (`first_child`) to be gone (`reaped`).
Here a process whose threads start and end all the time keeps one child: the child is seen on
every read, and is not "reaped" while it lives, nor while it is an unreaped zombie.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.shim_process import child_pids, first_child, reaped

# A child that lives until killed, then threads that start and end until this process is killed
# (it never waits for the child: killed, the child stays a zombie).
CHURN = """
import subprocess, threading
child = subprocess.Popen(["sleep", "60"])
print(child.pid, flush=True)
while True:
    threads = [threading.Thread(target=int) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
"""


def test_a_child_is_seen_while_the_parents_threads_come_and_go() -> None:
    parent = subprocess.Popen([sys.executable, "-c", CHURN], stdout=subprocess.PIPE)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert first_child(parent.pid) == child
        reads = 0
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline or reads < 2000:
            assert child in child_pids(parent.pid), f"the child was missed after {reads} reads"
            assert not reaped(child, parent.pid)
            reads += 1
        os.kill(child, signal.SIGKILL)  # a zombie now: its parent never waits for it
        deadline = time.monotonic() + 30
        while _state(child) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _state(child) == "Z"
        for _ in range(200):
            assert not reaped(child, parent.pid), "a zombie is not reaped"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while not reaped(child, parent.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert reaped(child, parent.pid)  # its parent gone, init reaped it


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rpartition(")")[2].split()[0]
