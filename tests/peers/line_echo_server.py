"""A raw NDJSON peer for the intercept tests: answers each request with its method and params.

A request for `burst` first sends three notifications (`notifications/burst`, n = 1, 2, 3).
Lines that are not JSON (a corrupted or truncated one) get no answer.
"""

import json
import sys

for line in sys.stdin.buffer:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
        continue
    out = []
    if msg["method"] == "burst":
        out += [{"jsonrpc": "2.0", "method": "notifications/burst", "params": {"n": n}} for n in (1, 2, 3)]
    out.append(
        {"jsonrpc": "2.0", "id": msg["id"], "result": {"method": msg["method"], "params": msg.get("params")}}
    )
    sys.stdout.buffer.write(b"".join(json.dumps(o, separators=(",", ":")).encode() + b"\n" for o in out))
    sys.stdout.buffer.flush()
