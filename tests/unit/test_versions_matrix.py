"""The version matrix without IO: hand-made probe sessions (framed by the real MessageBuilder) read
back into columns, pagination and replay split as the probe sends them, field paths, revisions."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from inspector.capture import MessageBuilder
from inspector.store.models import Message
from inspector.versions.fields import field_paths, flatten_capabilities
from inspector.versions.matrix import build_matrix, column_of, parse_revisions


def session(*pairs: tuple[dict[str, Any], dict[str, Any] | None]) -> list[Message]:
    """Rows of a session where each request is followed by its answer (None: never answered)."""
    builder = MessageBuilder(1)
    rows: list[dict[str, Any]] = []
    for i, (request, answer) in enumerate(pairs, start=1):
        rows += builder.feed(
            i * 10, "c2s", "stdin", orjson.dumps({"jsonrpc": "2.0", "id": i, **request}) + b"\n"
        )
        if answer is not None:
            rows += builder.feed(
                i * 10 + 1, "s2c", "stdout", orjson.dumps({"jsonrpc": "2.0", "id": i, **answer}) + b"\n"
            )
    return [Message(**r) for r in rows]


def init(version: str, caps: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    result = {"protocolVersion": version, "capabilities": caps, "serverInfo": {"name": "s", "version": "1"}}
    return {"method": "initialize", "params": {"protocolVersion": "x"}}, {"result": result}


def test_pages_are_followed_and_what_follows_is_the_replay() -> None:
    rows = session(
        init("2025-06-18", {"tools": {}}),
        (
            {"method": "tools/list", "params": {}},
            {"result": {"tools": [{"name": "a", "title": "A"}], "nextCursor": "c"}},
        ),
        ({"method": "tools/list", "params": {"cursor": "c"}}, {"result": {"tools": [{"name": "b"}]}}),
        ({"method": "tools/list", "params": {}}, {"result": {"tools": []}}),  # the replay's own tools/list
        ({"method": "tools/call", "params": {"name": "a"}}, {"result": {"content": [], "isError": True}}),
        ({"method": "ping"}, {"error": {"code": -32601, "message": "nope"}}),
    )
    col = column_of("2025-06-18", 1, rows)
    assert (col.outcome, col.negotiated) == ("accepted", "2025-06-18")
    assert col.lists == {
        "tools/list": 2,
        "resources/list": "not declared",
        "resources/templates/list": "not declared",
        "prompts/list": "not declared",
    }
    assert col.fields["tools/list tools[].title"] == 1 and col.fields["tools/list tools[].name"] == 2
    assert col.replayed == [
        ("tools/list", "ok"),
        ("tools/call", "ok (isError)"),
        ("ping", "error -32601 nope"),
    ]
    assert col.errors == {"ping": "-32601 nope"}


def test_outcomes_counter_offer_refused_failed() -> None:
    assert column_of("2099-01-01", 1, session(init("2025-11-25", {}))).outcome == "counter-offer"
    refused = column_of(
        "2026-07-28",
        2,
        session(
            (
                {"method": "server/discover", "params": {}},
                {"error": {"code": -32601, "message": "Method not found"}},
            )
        ),
    )
    assert (refused.handshake, refused.outcome, refused.error) == (
        "server/discover",
        "refused",
        "-32601 Method not found",
    )
    failed = column_of("2025-06-18", 3, session(({"method": "initialize", "params": {}}, None)), "closed")
    assert (failed.outcome, failed.error) == ("failed", "closed")
    discover = {
        "supportedVersions": ["2026-07-28"],
        "capabilities": {},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "d"}},
    }
    ok = column_of(
        "2026-07-28", 4, session(({"method": "server/discover", "params": {}}, {"result": discover}))
    )
    assert (ok.outcome, ok.negotiated, ok.server_info) == ("accepted", "2026-07-28", {"name": "d"})


def test_differs_only_among_revisions_that_answered() -> None:
    a = column_of("2025-06-18", 1, session(init("2025-06-18", {"tools": {"listChanged": False}})))
    b = column_of("2025-11-25", 2, session(init("2025-11-25", {"tools": {"listChanged": True}})))
    c = column_of("2026-07-28", 3, [], "spawn failed")
    m = build_matrix([a, b, c], run="r")
    rows = {(r["section"], r["key"]): r for r in m["rows"]}
    assert rows[("capabilities", "tools.listChanged")]["differs"]
    assert rows[("capabilities", "tools.listChanged")]["values"]["2026-07-28"] is None
    assert not rows[("server", "serverInfo.name")]["differs"]  # the failed column does not count
    assert rows[("negotiation", "outcome")]["differs"]  # ... except in the negotiation rows


def test_field_paths_are_generic_and_skip_free_form_values() -> None:
    found = field_paths(
        {
            "content": [
                {"type": "text", "text": "x"},
                {"type": "resource_link", "uri": "u", "icons": [{"src": "i"}]},
            ],
            "structuredContent": {"anything": {"deep": 1}},
            "tools": [{"inputSchema": {"properties": {"a": {}}}}],
            "_meta": {"k": {"deep": 1}},
        }
    )
    assert found["content[type=resource_link].icons[]"] == 1
    assert found["content[type=text].text"] == 1
    assert found["structuredContent"] == 1 and not any(p.startswith("structuredContent.") for p in found)
    assert found["tools[].inputSchema"] == 1 and not any("properties" in p for p in found)
    assert found["_meta.k"] == 1 and "_meta.k.deep" not in found
    assert flatten_capabilities({"tools": {"listChanged": True}, "logging": {}}) == {
        "tools.listChanged": "true",
        "logging": "{}",
    }


def test_revision_lists() -> None:
    assert parse_revisions(None) == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
    assert parse_revisions(" 2025-06-18, 2099-01-01,2025-06-18 ") == ["2025-06-18", "2099-01-01"]
    for bad in ("latest", "2025-6-18", "2025-02-30", " , "):
        with pytest.raises(ValueError):
            parse_revisions(bad)


def test_conformance_rows_count_findings_per_revision() -> None:
    a = column_of("2025-06-18", 1, session(init("2025-06-18", {})))
    b = column_of("2025-11-25", 2, session(init("2025-11-25", {})))
    a.findings.update({"error: response-unknown-id": 2, "warning: undeclared-server-feature": 1})
    m = build_matrix([a, b], run="r")
    rows = {(r["section"], r["key"]): r for r in m["rows"]}
    assert rows[("conformance", "errors")]["values"] == {"2025-06-18": 2, "2025-11-25": 0}
    assert rows[("conformance", "warnings")]["values"] == {"2025-06-18": 1, "2025-11-25": 0}
    assert rows[("conformance", "error: response-unknown-id")]["differs"]
