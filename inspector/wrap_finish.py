"""Records what a `wrap` held when its host made it leave before the store had opened.

`python -m inspector.wrap_finish FILE`: FILE (0600, written by
`wrap.py` `_finish_elsewhere`, removed here once read) holds the
wrap's options, the copies it held in order with the times they were read,
and how the server ended. They are recorded exactly as the wrap itself would
have: the same store, the same redaction step, one session, its end. Errors
go to stderr (inherited from the wrap: the host's log, if it still reads it).
"""

from __future__ import annotations

import marshal
import os
import sys

from inspector.wrap import QuietStderr, WrapOptions, _Store

_DATA = 0


def finish(path: str) -> int:
    with open(path, "rb") as src:
        state = marshal.load(src)
    os.unlink(path)
    opts = WrapOptions(
        state["command"],
        db=state["db"],
        name=state["name"],
        quiet=state.get("quiet", True),
        redact=state["redact"],
        redact_path=state["redact_path"],
        keep_secrets=state["keep_secrets"],
        otlp=state.get("otlp"),  # the spans of what it held are exported as the wrap would have
        otlp_content=state.get("otlp_content", False),
        metadata_only=state.get("metadata_only", False),
        max_record_bytes=state.get("max_record_bytes"),
        host=state.get("host"),
        host_file=state.get("host_file"),
    )
    opts.parent = state.get("parent") or {}  # the wrap's host (this process's parent is the wrap)
    if "otel" in state:  # the wrap decided before its server started
        opts.otel = state["otel"]
    else:  # a state written without that decision
        from inspector.otel.endpoint import otel_allowed

        opts.otel = otel_allowed(opts.otlp, quiet=True)
    store = _Store(opts, announce=not opts.quiet)
    for kind, ts_ns, direction, channel, data in state["held"]:
        if kind == _DATA:
            store.tap.submit(direction, channel, data, ts_ns)
        else:
            store.tap.end_stream(direction, channel, ts_ns)
    store.end(state["returncode"], state["reason"], quiet=opts.quiet)
    return 0


def main(argv: list[str]) -> int:
    sys.stderr = QuietStderr(sys.stderr)
    if len(argv) != 1:
        print("usage: python -m inspector.wrap_finish FILE", file=sys.stderr)
        return 2
    try:
        return finish(argv[0])
    except Exception as exc:  # nobody waits for this process: say it where the wrap's host logs
        print(f"[mcp-inspect] could not record the held traffic of a wrap: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
