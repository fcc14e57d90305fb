"""A real `wrap --faults` session (the Python SDK client, server-everything) read back by the views
(issue 17): the timeline's `intervened` filter and a message's intervention over the real API,
lint keeping interventions off the peers, and a replay against the same server that compares the
server's own behaviour (unchanged) and names the interventions in its report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from inspector.store import open_engine
from inspector.store.queries import iter_rows
from tests.api.conftest import serve
from tests.cli_in_process import run
from tests.shim_process import only_session
from tests.warm_peers import warm_wrap_argv

RULES = """
rules:
  - name: boom
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.message == "boom"'}
    action: replace
    error: {code: -32042, message: injected by rule boom}
  - name: lose
    match: {method: tools/call, name: get-sum, kind: response}
    action: drop
    count: 1
  - name: swap
    match: {method: tools/call, name: echo, kind: response, where: 'result.content[0].text == "Echo: swap"'}
    action: replace
    result: {content: [{type: text, text: swapped by the inspector}]}
  - name: slow
    match: {method: tools/call, name: echo, kind: request, where: 'params.arguments.message == "slow"'}
    action: delay
    ms: 150
"""


def _record(tmp: Path, everything_cmd: list[str]) -> tuple[Path, int]:
    db = tmp / "rec.db"
    (tmp / "rules.yaml").write_text(RULES)
    argv = warm_wrap_argv(
        db, *everything_cmd, extra=("--quiet", "--faults", str(tmp / "rules.yaml"), "--seed", "7")
    )

    async def drive() -> None:
        params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
        with anyio.fail_after(60):
            async with mcp.Client(params, mode="legacy") as client:
                with pytest.raises(MCPError):
                    await client.call_tool("echo", {"message": "boom"})
                with pytest.raises(MCPError, match="timed out"):
                    await client.call_tool("get-sum", {"a": 1, "b": 2}, read_timeout_seconds=1)
                await client.call_tool("get-sum", {"a": 2, "b": 40})
                swapped = await client.call_tool("echo", {"message": "swap"})
                assert swapped.content[0].text == "swapped by the inspector"  # type: ignore[union-attr]
                await client.call_tool("echo", {"message": "slow"})

    anyio.run(drive)
    engine = open_engine(db)
    try:
        session = only_session(engine)
    finally:
        engine.dispose()
    assert session.id is not None
    return db, session.id


def test_views_replay_and_lint_of_a_real_faulted_session(tmp_path: Path, everything_cmd: list[str]) -> None:
    db, sid = _record(tmp_path, everything_cmd)
    engine = open_engine(db)
    try:
        rows = list(iter_rows(engine, sid))
    finally:
        engine.dispose()
    marked = [
        r
        for r in rows
        if isinstance(r["meta"], dict) and ("intercept" in r["meta"] or "injected" in r["meta"])
    ]
    # boom (original + reply), lose (original), swap (original + copy), slow (original)
    assert len(marked) == 6, [(r["seq"], r["meta"]) for r in marked]
    by_rule = {r["meta"]["intercept"].get("rule"): r for r in marked if "intercept" in r["meta"]}

    for api in serve(db):
        page: Any = api.json(f"/api/sessions/{sid}/messages", intervened="true", count="true")
        assert [r["seq"] for r in page["items"]] == [r["seq"] for r in marked] and page["total"] == 6
        swap = by_rule["swap"]
        doc: Any = api.json(f"/api/sessions/{sid}/messages/{swap['seq']}")
        assert len(doc["intervention"]) == 2
        (copy,) = [r for r in doc["intervention"] if r["seq"] != swap["seq"]]
        assert copy["meta"]["injected"]["action"] == "replace" and copy["answers_seq"] == swap["answers_seq"]
        session: Any = api.json(f"/api/sessions/{sid}")
        assert session["facts"]["intercept"]["seed"] == 7
        assert session["facts"]["intercept"]["rules"] == ["boom", "lose", "swap", "slow"]
        findings: Any = api.json(f"/api/sessions/{sid}/findings")
        assert not [
            f for f in findings["items"] if f["rule"] in ("unknown-response-id", "duplicate-request-id")
        ]

    out = run("replay", str(sid), "--db", str(db), "--json", "--", *everything_cmd)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    changed = [
        (x["summary"], x["status"], x["changes"]) for x in report["exchanges"] if x["status"] != "equal"
    ]
    assert out.returncode == 0, changed
    notes = [t for x in report["exchanges"] for t in x["interventions"]]
    assert "replaced by rule swap (not delivered)" in notes
    assert "dropped by rule lose (not delivered)" in notes
    assert "delayed 150 ms by rule slow" in notes
    # The call the inspector answered itself was never sent to the server, then or now.
    assert not any(x["status"] == "extra" for x in report["exchanges"])
