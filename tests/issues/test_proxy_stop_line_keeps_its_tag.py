"""Regression: `proxy` said `proxy stopped; sessions saved` on stop without its `[mcp-inspect]`
tag (Rich read the tag as markup and dropped it), unlike every other line it prints; the
gateway (`proxy --config`) says `[mcp-inspect] gateway stopped; sessions saved`."""

from __future__ import annotations

from pathlib import Path

from tests.gateway_helpers import gateway, route_table
from tests.http_peers import free_port, inspector_proxy
from tests.listeners import wait_until


def test_the_stop_lines_keep_their_tag(tmp_path: Path) -> None:
    with inspector_proxy(f"http://127.0.0.1:{free_port()}/mcp", tmp_path / "a.db", warm=True) as (
        _url,
        proxy,
    ):
        pass
    said = "[mcp-inspect] proxy stopped; sessions saved"
    wait_until(lambda: any(line.startswith(said) for line in proxy.output), said, timeout=10)
    config = 'listen = "127.0.0.1:0"\n' + route_table("a", "/a", f"http://127.0.0.1:{free_port()}/mcp")
    with gateway(config, tmp_path / "b.db", tmp_path, warm=True) as (_base, gw):
        pass
    said = "[mcp-inspect] gateway stopped; sessions saved"
    wait_until(lambda: any(line.startswith(said) for line in gw.output), said, timeout=10)
