"""A minimal, fast JSON-RPC responder on stdio: the "server" of the throughput bench.

Every request line (a JSON object with "method" and "id") gets an immediate
`{"jsonrpc":"2.0","id":ID,"result":{}}` line; notifications and responses
get nothing. It reads big chunks, splits them into lines and writes the
answers to one chunk in one `os.write`, so that in a pipelined flood the
program in the middle (the shim), not this process, is the bottleneck.

Run as a script (`python bench/responder.py`): it imports only the standard
library and, when available, orjson.
"""

from __future__ import annotations

import os
import sys

try:
    import orjson

    _loads = orjson.loads
    _dumps = orjson.dumps
except ImportError:  # pragma: no cover - the project's venv has orjson
    import json

    _loads = json.loads

    def _dumps(value: object) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()


READ_SIZE = 1 << 20
_HEAD = b'{"jsonrpc":"2.0","id":'
_TAIL = b',"result":{}}\n'


def answers(lines: list[bytes]) -> bytes:
    """The responses to the requests among `lines` (complete lines without terminator), joined."""
    out = []
    append = out.append
    for line in lines:
        if not line or line == b"\r":
            continue
        try:
            msg = _loads(line)
        except ValueError:
            continue
        if type(msg) is dict and "method" in msg and "id" in msg:
            rpc_id = msg["id"]
            if type(rpc_id) is int:
                append(b"%s%d%s" % (_HEAD, rpc_id, _TAIL))
            else:
                append(_HEAD + _dumps(rpc_id) + _TAIL)
    return b"".join(out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def main() -> int:
    rfd, wfd = sys.stdin.fileno(), sys.stdout.fileno()
    rest = b""
    while True:
        data = os.read(rfd, READ_SIZE)
        if not data:
            break
        if rest:
            data = rest + data
        lines = data.split(b"\n")
        rest = lines.pop()
        out = answers(lines)
        if out:
            try:
                _write_all(wfd, out)
            except BrokenPipeError:
                return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
