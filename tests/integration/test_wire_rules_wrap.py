"""The 2026-07-28 rules that need no HTTP, on stdio traffic recorded by `wrap` around the SDK demo
server: hand-made 2026-07-28 lines (per-request `_meta`), one of them a removed method. The removed
`ping` gives exactly one finding, `method-removed` (not "unknown", not "not in revision"); the SDK
server's own answers (a missing resource as -32602, cache hints on lists) give none."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson

from inspector.lint import lint_session
from inspector.store import iter_messages, list_sessions, open_engine
from tests.shim_process import ended_named
from tests.warm_peers import demo_argv, inspector_argv

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "hand", "version": "1"},
}
LINES = [
    ("server/discover", {}),
    ("ping", {}),
    ("resources/read", {"uri": "demo://no-such-resource"}),
    ("tools/list", {}),
    ("prompts/list", {}),
]


def test_removed_method_over_stdio_is_one_finding(tmp_path: Path) -> None:
    db = tmp_path / "wrap.db"
    # The wrap and the demo: processes forked from the warm server (tests/warm_peers.py).
    argv = inspector_argv("wrap", "--quiet", "--db", str(db), "--name", "hand", "--", *demo_argv())
    wrap = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert wrap.stdin is not None and wrap.stdout is not None
    answers = []
    for n, (method, params) in enumerate(LINES, start=1):
        line = {"jsonrpc": "2.0", "id": n, "method": method, "params": {**params, "_meta": META}}
        wrap.stdin.write(orjson.dumps(line) + b"\n")
        wrap.stdin.flush()
        answers.append(orjson.loads(wrap.stdout.readline()))
    wrap.stdin.close()
    wrap.wait(30)  # (the server is stopped when its stdin closes; its exit status is not the point)
    assert answers[1]["error"]["code"] == -32601  # the SDK server no longer has ping
    assert answers[2]["error"]["code"] == -32602  # a missing resource, numbered as 2026-07-28 says
    engine = open_engine(db)
    session = ended_named(engine, "hand")  # a wrap that left before its store opened records later
    assert session.id is not None and len(list_sessions(engine)) == 1
    methods = {m.seq: (m.direction, m.method) for m in iter_messages(engine, session.id)}
    found = [(f.rule, methods[f.seq], f.severity) for f in lint_session(engine, session.id)]
    assert found == [("method-removed", ("c2s", "ping"), "error")]
