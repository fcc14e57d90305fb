"""A scripted stdio peer for fault tests: answers JSON-RPC requests line by line.

Usage: python scripted_server.py [--crash-after N] [--garbage] [--ignore-eof]
[--ignore-term] [--big-bytes N] [--stderr] [--delay S] [--error-method M]

`--delay S` answers each request S seconds after reading it (one at a time, in order), so
requests a client sends without waiting pile up unanswered; `--error-method M` answers method M
with a JSON-RPC error.

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
    delay = float(args[args.index("--delay") + 1]) if "--delay" in args else 0.0
    failing = args[args.index("--error-method") + 1] if "--error-method" in args else None
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
        if delay:
            time.sleep(delay)
        result = {"echo": msg["method"]}
        if big:
            result["blob"] = "x" * big
        answer = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        if msg["method"] == failing:
            answer = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32000, "message": "scripted"}}
        out.write(json.dumps(answer).encode() + b"\n")
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
