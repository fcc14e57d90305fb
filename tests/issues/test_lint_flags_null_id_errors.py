"""`lint` did not flag an error response with `"id": null` to a request whose id could be read.

server-everything answers a `server/discover` sent before initialization over Streamable HTTP
with HTTP 400 and `{"jsonrpc":"2.0","error":{...},"id":null}`. The recorder pairs it with the
request of its HTTP exchange (flag `paired-by-http-exchange`), and the only id check skipped every
null-id error (JSON-RPC's null is for an id that could not be read), while the 2025-11-25 model
accepts it. The spec requires the request's id; now that is rule `error-id-null` (an error), and
`lint` exits 1 on this recording.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from inspector.lint import findings_of
from inspector.store import open_engine
from tests.cli_in_process import run
from tests.http_peers import everything_http_server, inspector_proxy
from tests.shim_process import messages

DISCOVER = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "server/discover",
    "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
}


def test_null_id_error_from_server_everything_is_flagged(db_path: Path) -> None:
    with (
        everything_http_server("streamableHttp") as target,
        inspector_proxy(target, db_path, warm=True) as (url, _),
    ):
        answer = httpx.post(url, json=DISCOVER, headers={"accept": "application/json, text/event-stream"})
    assert answer.json()["id"] is None and "error" in answer.json()  # the server's answer, as recorded
    engine = open_engine(db_path, create=False)
    rows = messages(engine, 1)
    error = next(m for m in rows if m.kind == "error")
    assert error.rpc_id == "null" and "paired-by-http-exchange" in (error.meta or {}).get("flags", [])
    found = [f for f in findings_of(engine, 1) if f.rule == "error-id-null"]
    engine.dispose()
    assert [(f.seq, f.severity) for f in found] == [(error.seq, "error")]
    assert "id 1 could be read" in found[0].explanation
    out = run("lint", "1", "--db", str(db_path))  # the CLI in-process
    assert out.returncode == 1 and "error-id-null" in out.stdout
