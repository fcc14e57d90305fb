"""The mock client could not call a 2026-07-28 tool that routes on an argument (`x-mcp-header`).

Found while checking issue #18's routing headers against our own client: `mcp-inspect call`
(and the UI's mock client) sent `Mcp-Method` and `Mcp-Name` but never `Mcp-Param-*`, so the SDK
server rejected every call of such a tool with HeaderMismatch (-32020): "Mcp-Param-Region
header is missing". Now the HTTP connection learns each tool's inputSchema from the tools/list
answers it carries and sends the tool's `Mcp-Param-*` headers (Value Encoding: base64 for
non-ASCII); a call the server still rejects with HeaderMismatch is retried once after listing
the tools again, as the spec's Client Behavior says (and the SDK's client does).
"""

from __future__ import annotations

import json
from pathlib import Path

from inspector.protocol.routing_headers import encode_value, routing_of_row
from inspector.store import list_sessions, open_engine
from inspector.store.queries import iter_rows
from tests.cli_in_process import run
from tests.http_peers import LineProcess
from tests.warm_peers import peer_argv

PEER = peer_argv("tests.peers.routing_demo_server")  # the demo's SDK: forked warm (tests/warm_peers.py)
REGION = "Zürich 東京"


def test_call_sends_the_tools_param_headers(tmp_path: Path) -> None:
    db = tmp_path / "call.db"
    server = LineProcess(PEER)
    try:
        url = server.wait_for(r"listening on (\S+)", timeout=60).group(1)
        params = json.dumps({"name": "forecast", "arguments": {"region": REGION, "days": 2}})
        out = run(  # the CLI in-process
            "call", "--db", str(db), "tools/call", "--params", params, "--protocol-version", "2026-07-28",
            "--url", url, timeout=120,
        )  # fmt: skip
    finally:
        server.stop()
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"2 day(s) of sun in {REGION}" in out.stdout

    engine = open_engine(db)
    try:
        (session,) = list_sessions(engine)
        rows = [dict(r) for r in iter_rows(engine, session.id)]
    finally:
        engine.dispose()
    calls = [r for r in rows if r["channel"] == "http-request" and r["method"] == "tools/call"]
    routing = routing_of_row(calls[-1], {})
    assert routing is not None
    sent = {h.name.lower(): h for h in routing.headers}
    assert sent["mcp-param-region"].raw == encode_value(REGION)
    assert sent["mcp-param-region"].raw.startswith("=?base64?")
    assert sent["mcp-param-region"].decoded == REGION
    assert sent["mcp-name"].status == "agrees" and sent["mcp-method"].status == "agrees"
