"""The "plain tee" baseline: a byte relay that appends copies of both directions to files.

    python bench/tee_relay.py --out DIR -- COMMAND ARGS...

It spawns COMMAND with pipes and runs one thread per stream (stdin->child,
child stdout->stdout, child stderr->stderr), each a blocking `os.read` /
`os.write` loop that also appends what it read to DIR/c2s.bin, DIR/s2c.bin
or DIR/err.bin with a plain unbuffered `os.write` (like `tee FILE`). So it has
the same process and thread shape as `mcp-inspect wrap` (a Python process in
the middle, same interpreter, same read size), minus framing, parsing and the
database. Files are written on the forwarding path, as `tee` does.

Standard library only; run it as a script, not as part of the bench package.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading

READ_SIZE = 1 << 16  # the same read size as inspector.transports.stdio


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def pump(src: int, dst: int, copy_fd: int, close_dst: bool = False) -> None:
    forwarding = True
    while True:
        try:
            data = os.read(src, READ_SIZE)
        except OSError:
            data = b""
        if not data:
            break
        if forwarding:
            try:
                _write_all(dst, data)
            except OSError:
                forwarding = False
        _write_all(copy_fd, data)
    if close_dst:
        with contextlib.suppress(OSError):
            os.close(dst)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[0] != "--out" or argv[2] != "--":
        print("usage: tee_relay.py --out DIR -- COMMAND ARGS...", file=sys.stderr)
        return 2
    out_dir, command = argv[1], argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    c2s = os.open(os.path.join(out_dir, "c2s.bin"), flags, 0o644)
    s2c = os.open(os.path.join(out_dir, "s2c.bin"), flags, 0o644)
    err = os.open(os.path.join(out_dir, "err.bin"), flags, 0o644)
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
    )
    assert child.stdin and child.stdout and child.stderr
    child_in = os.dup(child.stdin.fileno())
    child.stdin.close()
    threads = [
        threading.Thread(target=pump, args=(0, child_in, c2s, True), daemon=True),
        threading.Thread(target=pump, args=(child.stdout.fileno(), 1, s2c), daemon=True),
        threading.Thread(target=pump, args=(child.stderr.fileno(), 2, err), daemon=True),
    ]
    for t in threads:
        t.start()
    code = child.wait()
    for t in threads[1:]:
        t.join(timeout=2.0)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
