"""Read a session's Apps exchanges from the store (the only part of `inspector.apps` that does IO)."""

from __future__ import annotations

from typing import Any, cast

import orjson
from sqlalchemy import Engine, select

from inspector.apps.catalog import METHODS, AppCatalog, Exchange, build_catalog
from inspector.protocol.sse import stored_body
from inspector.store import Message, bodies

__all__ = ["catalog_of"]


def _json(channel: str, raw: bytes) -> Any:
    try:
        return orjson.loads(stored_body(channel, raw))
    except orjson.JSONDecodeError:
        return None


def catalog_of(engine: Engine, session_id: int) -> AppCatalog:
    """The Apps catalog of a stored session (its tools/list, resources/list|read and tools/call)."""
    t = Message.__table__  # type: ignore[attr-defined]
    with engine.connect() as conn:
        rows = conn.execute(
            select(t.c.seq, t.c.kind, t.c.channel, t.c.raw, t.c.answers_seq, t.c.method, t.c.body_sha256)
            .where(t.c.session_id == session_id, t.c.method.in_(METHODS))
            .order_by(t.c.seq)
        ).all()
        filled = [dict(r._mapping) for r in rows]
        bodies.fill(conn, filled)
    rows = [(r["seq"], r["kind"], r["channel"], r["raw"], r["answers_seq"], r["method"]) for r in filled]  # type: ignore[misc]
    requests: dict[int, dict[str, Any]] = {}
    answers: dict[int, tuple[int, dict[str, Any]]] = {}
    for row in rows:
        seq, kind, channel, raw, answers_seq, method = cast(
            tuple[int, str, str, bytes, int | None, str], tuple(row)
        )
        body = _json(channel, raw)
        if not isinstance(body, dict):
            continue
        if kind == "request":
            params = body.get("params")
            requests[seq] = {"method": method, "params": params if isinstance(params, dict) else {}}
        elif kind in ("response", "error") and answers_seq is not None:
            answers[answers_seq] = (seq, body)
    exchanges = []
    for seq, req in requests.items():
        answer_seq, body = answers.get(seq, (None, {}))
        result, error = body.get("result"), body.get("error")
        exchanges.append(
            Exchange(
                seq=seq,
                method=req["method"],
                params=req["params"],
                answer_seq=answer_seq,
                result=result if isinstance(result, dict) else None,
                error=error if isinstance(error, dict) else None,
            )
        )
    return build_catalog(exchanges)
