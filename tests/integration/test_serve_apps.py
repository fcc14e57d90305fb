"""`mcp-inspect serve` serving an MCP App view: a scenario declares a `ui://` resource (its HTML from
a file next to the scenario, its CSP in `_meta.ui`) and a tool naming it in `_meta.ui.resourceUri`.
The official Python SDK client (over stdio, both the handshake and the 2026-07-28 connection) lists
the tool with its `_meta`, lists and reads the view (`text/html;profile=mcp-app`, the file's HTML,
the `_meta.ui` on the read content) and sees the server declare the `io.modelcontextprotocol/ui`
extension. A scenario naming a missing HTML file is refused at start, naming the file.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp
import pytest

from tests.cli_in_process import run
from tests.integration.serve_helpers import serve_argv

HTML = "<!doctype html><title>card</title><p id=card>A card view</p><script>1</script>\n"
SCENARIO = """
serverInfo: {name: apps-mock}
tools:
  - name: show_card
    description: Show a card
    _meta: {ui: {resourceUri: "ui://cards/card.html"}}
    result: {content: [{type: text, text: "card shown"}]}
resources:
  - uri: ui://cards/card.html
    name: card view
    file: card.html
    _meta: {ui: {csp: {connectDomains: ["https://api.example.com"]}, prefersBorder: true}}
"""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_client_lists_and_reads_a_served_app_view(tmp_path: Path, mode: str) -> None:
    (tmp_path / "card.html").write_text(HTML)
    scenario = tmp_path / "apps.yaml"
    scenario.write_text(SCENARIO)
    argv = serve_argv(tmp_path / "serve.db", str(scenario), warm=True)
    seen: dict[str, object] = {}

    async def drive() -> None:
        with anyio.fail_after(60):
            params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])
            async with mcp.Client(params, mode=mode) as client:  # type: ignore[arg-type]
                seen["tools"] = (await client.list_tools()).tools
                seen["resources"] = (await client.list_resources()).resources
                seen["read"] = (await client.read_resource("ui://cards/card.html")).contents
                seen["caps"] = client.server_capabilities

    anyio.run(drive)
    tool = next(t for t in seen["tools"] if t.name == "show_card")  # type: ignore[attr-defined]
    assert tool.meta == {"ui": {"resourceUri": "ui://cards/card.html"}}
    (res,) = seen["resources"]  # type: ignore[misc]
    assert str(res.uri) == "ui://cards/card.html" and res.mime_type == "text/html;profile=mcp-app"
    assert res.meta["ui"]["csp"] == {"connectDomains": ["https://api.example.com"]}
    (content,) = seen["read"]  # type: ignore[misc]
    assert content.text == HTML and content.mime_type == "text/html;profile=mcp-app"
    assert content.meta["ui"]["prefersBorder"] is True
    caps = seen["caps"]
    assert "io.modelcontextprotocol/ui" in (caps.extensions or {}), caps  # type: ignore[attr-defined]


def test_missing_view_file_is_refused_at_start(tmp_path: Path) -> None:
    scenario = tmp_path / "apps.yaml"
    scenario.write_text(SCENARIO)
    done = run("serve", "--db", str(tmp_path / "serve.db"), str(scenario))
    assert done.returncode != 0
    assert "card.html" in done.stderr and "ui://cards/card.html" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
