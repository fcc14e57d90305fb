"""Deliberate faults of a scenario and how a real client (Python SDK) reacts; bad scenario files."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp
import pytest

from tests.cli_in_process import run
from tests.integration.serve_helpers import mock_rows, serve_argv

FAULTS = """
answerTimeout: 3
tools:
  - name: never
    fault: {never: true}
  - name: malformed
    fault: {malformed: "{oops"}
  - name: error
    fault: {error: {code: -32000, message: broken on purpose, data: {why: test}}}
  - name: tool_error
    result: {isError: true, content: [{type: text, text: failed on purpose}]}
  - name: unanswered_sampling
    steps: [{do: sample, params: {messages: [], maxTokens: 5}}]
    result: {content: [{type: text, text: "answer: {{ answers.0 }}"}]}
  - name: bad_template
    result: {content: [{type: text, text: "{{ arguments.missing }}"}]}
"""


@pytest.mark.anyio
async def test_faults_reach_the_client_and_the_session_records_its_reaction(
    db_path: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "faults.yaml"
    scenario.write_text(FAULTS)
    argv = serve_argv(db_path, str(scenario), warm=True)
    outcomes: dict[str, str] = {}
    with anyio.fail_after(90):
        # No sampling callback: the SDK client refuses sampling with an error.
        async with mcp.Client(mcp.StdioServerParameters(command=argv[0], args=argv[1:]), mode="legacy") as c:
            for name in ("never", "malformed"):
                with pytest.raises(mcp.MCPError) as caught:
                    await c.call_tool(name, {}, read_timeout_seconds=1)
                outcomes[name] = caught.value.error.message
            with pytest.raises(mcp.MCPError) as failed:
                await c.call_tool("error", {})
            tool_error = await c.call_tool("tool_error", {})
            unanswered = await c.call_tool("unanswered_sampling", {})
            with pytest.raises(mcp.MCPError) as templated:
                await c.call_tool("bad_template", {})
            # The connection still works after all of it.
            assert (await c.list_tools()).tools[0].name == "never"
    assert all("timed out" in text.lower() for text in outcomes.values()), outcomes
    assert failed.value.error.code == -32000 and failed.value.error.data == {"why": "test"}
    assert tool_error.is_error and tool_error.content[0].text == "failed on purpose"  # type: ignore[union-attr]
    assert '"error"' in unanswered.content[0].text  # type: ignore[union-attr]  # the client's refusal
    assert templated.value.error.code == -32603 and "arguments.missing" in templated.value.error.message
    rows = mock_rows(db_path)
    invalid = [r for r in rows if r.direction == "s2c" and r.kind == "invalid"]
    assert [r.raw for r in invalid] == [b"{oops\n"]
    never_call = next(r for r in rows if r.direction == "c2s" and b'"name":"never"' in r.raw)
    assert not any(r.answers_seq == never_call.seq for r in rows)  # never answered
    cancels = [r for r in rows if r.direction == "c2s" and r.method == "notifications/cancelled"]
    assert len(cancels) == 2  # the client cancelled both requests that timed out


def test_bad_scenario_files_are_clear_errors(db_path: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("tools:\n  - name: t\n    steps: [{do: sample}]\n")
    # In this process (tests/cli_in_process.py): refused before anything is served.
    out = run("serve", "--db", str(db_path), str(bad))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert str(bad) in out.stderr and "tools[0].steps[0].sample.params" in out.stderr
    out = run("serve", "--db", str(db_path), "--protocol-version", "1999-01-01")
    assert out.returncode == 2 and "unknown revision" in out.stderr
    out = run("serve", "--db", str(db_path), str(tmp_path / "nope.yaml"))
    assert out.returncode == 2 and "cannot read the scenario" in out.stderr
