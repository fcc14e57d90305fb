"""The network view of an HTTP session (kept importable here; the grouping is sans-IO and lives in
`inspector.protocol.http_groups`, shared with the HAR export).

`routing_bodies` reads the raw bytes the routing-header check needs (HTTP request bodies and
`tools/list` answers), which the row listing leaves out."""

from typing import Any

from sqlalchemy import Engine, or_
from sqlalchemy import select as sa_select

from inspector.protocol.http_groups import HTTP_CHANNELS, group_exchanges, header_dict
from inspector.store.models import Message

__all__ = ["HTTP_CHANNELS", "group_exchanges", "header_dict", "routing_bodies"]


def routing_bodies(engine: Engine, session_id: int, rows: list[dict[str, Any]]) -> dict[int, bytes]:
    """seq -> raw bytes of the request rows and tools/list answers among `rows` (one query)."""
    if not rows:
        return {}
    m = Message.__table__.c  # type: ignore[attr-defined]
    stmt = sa_select(m.seq, m.raw).where(
        m.session_id == session_id,
        m.seq >= rows[0]["seq"],
        m.seq <= rows[-1]["seq"],
        or_(m.channel == "http-request", m.method == "tools/list"),
    )
    with engine.connect() as conn:
        found: list[Any] = list(conn.execute(stmt))
    return {int(seq): bytes(raw) for seq, raw in found if raw is not None}
