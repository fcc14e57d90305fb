"""A scripted stdio peer for fault tests: answers JSON-RPC requests line by line.

Usage: python scripted_server.py [--crash-after N] [--garbage] [--ignore-eof]
[--ignore-term] [--big-bytes N] [--stderr]

Not an MCP implementation: it exists to misbehave on purpose (crash, print
non-JSON, never exit) in ways real SDK servers will not do on request.
"""

import json
import signal
import sys
import time


def main() -> None:
    args = sys.argv[1:]
    crash_after = int(args[args.index("--crash-after") + 1]) if "--crash-after" in args else None
    big = int(args[args.index("--big-bytes") + 1]) if "--big-bytes" in args else None
    if "--ignore-term" in args:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out = sys.stdout.buffer
    answered = 0
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            continue
        if "--stderr" in args:
            sys.stderr.write(f"handling {msg['method']}\n")
            sys.stderr.flush()
        if "--garbage" in args:
            out.write(b"this is not json\n")
        result = {"echo": msg["method"]}
        if big:
            result["blob"] = "x" * big
        out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")
        out.flush()
        answered += 1
        if crash_after is not None and answered >= crash_after:
            sys.stderr.write("scripted server: crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
    if "--ignore-eof" in args:
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
