"""The network view of an HTTP session (kept importable here; the grouping is sans-IO and lives in
`inspector.protocol.http_groups`, shared with the HAR export).

`routing_bodies` reads the raw bytes the routing-header check needs (HTTP request bodies and
`tools/list` answers), which the row listing leaves out."""

from typing import Any

from sqlalchemy import Engine, or_
from sqlalchemy import select as sa_select

from inspector.protocol.http_groups import HTTP_CHANNELS, group_exchanges, header_dict
from inspector.protocol.routing_headers import recorded_tool_schemas, routing_of_row
from inspector.store import bodies, schema
from inspector.store.models import Message

__all__ = ["HTTP_CHANNELS", "group_exchanges", "header_dict", "message_routing", "routing_bodies"]


def routing_bodies(engine: Engine, session_id: int, rows: list[dict[str, Any]]) -> dict[int, bytes]:
    """seq -> raw bytes of the request rows and tools/list answers among `rows` (one query)."""
    if not rows:
        return {}
    m = schema.message.c
    stmt = sa_select(m.seq, m.raw, m.body_sha256).where(
        m.session_id == session_id,
        m.seq >= rows[0]["seq"],
        m.seq <= rows[-1]["seq"],
        or_(m.channel == "http-request", m.method == "tools/list"),
    )
    with engine.connect() as conn:
        found = [dict(r._mapping) for r in conn.execute(stmt)]
        bodies.fill(conn, found)
    return {int(r["seq"]): bytes(r["raw"]) for r in found if r["raw"] is not None}


def message_routing(engine: Engine, session_id: int, message: Message) -> dict[str, Any] | None:
    """The routing headers of one HTTP request message (None for any other message), `Mcp-Param-*`
    checked against the session's recorded `tools/list` answers."""
    if message.channel != "http-request" or message.http_headers is None:
        return None
    m = schema.message.c
    stmt = sa_select(m.seq, m.raw, m.body_sha256, m.method, m.direction, m.kind, m.channel).where(
        m.session_id == session_id, m.method == "tools/list", m.direction == "s2c", m.kind == "response"
    )
    with engine.connect() as conn:
        listed: list[Any] = [dict(r._mapping) for r in conn.execute(stmt)]
        bodies.fill(conn, listed)
    row = {
        "channel": message.channel,
        "raw": message.raw,
        "http_headers": message.http_headers,
        "http_method": message.http_method,
    }
    routing = routing_of_row(row, recorded_tool_schemas(listed))
    return routing.to_json() if routing is not None else None
