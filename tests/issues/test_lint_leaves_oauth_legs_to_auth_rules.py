"""Bug: the Streamable HTTP lint rules judged the OAuth legs of a recording as MCP requests: a
metadata GET without `Accept: text/event-stream`, answered with JSON, and the form POST to the token
endpoint were reported as `http-accept-header` / `http-content-type` errors once the session's
revision was known (the recording proxy classifies the refused initialize, so it is)."""

from __future__ import annotations

from inspector.lint import check_rows
from tests.lint_auth_recordings import good_flow


def test_oauth_legs_are_not_judged_as_mcp_requests() -> None:
    flow, _seqs = good_flow()
    for row in flow.rows:
        if row["channel"] == "http-request":
            row["http_headers"] = [*row["http_headers"], ["mcp-protocol-version", "2025-11-25"]]
    assert [f.rule for f in check_rows(flow.rows)] == []
