"""Read a session's Apps exchanges from the store (the only part of `inspector.apps` that does IO)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import orjson
from sqlalchemy import Engine, select

from inspector.apps.catalog import METHODS, AppCatalog, AppRequest, build_catalog
from inspector.protocol.sse import stored_body
from inspector.store import bodies, schema
from inspector.store.pages import count_messages

__all__ = ["catalog_of"]


def _json(channel: str, raw: bytes) -> Any:
    try:
        return orjson.loads(stored_body(channel, raw))
    except orjson.JSONDecodeError:
        return None


def catalog_of(engine: Engine, session_id: int, *, view_calls_only: bool = False) -> AppCatalog:
    """The Apps catalog of a stored session (its tools/list, resources/list|read and tools/call).

    `view_calls_only`: the catalog is read for its `view_calls()` (the Apps tab), so when no listed
    tool declares a view the session's tools/call rows are not read at all (they are most of a
    large session). Cached per session and message count, like the conversations: the session page
    asks on every open, and reading a 100,000-message session's exchanges took seconds of the
    server's time each time. Callers do not change the catalog they get.
    """
    upto = count_messages(engine, session_id)  # seq is gap-free: the highest seq, an index lookup
    return _catalog(engine, session_id, upto, view_calls_only)


@lru_cache(maxsize=32)  # thread-safe; keyed by the engine itself and the session's size
def _catalog(engine: Engine, session_id: int, upto: int, view_calls_only: bool) -> AppCatalog:
    if view_calls_only:
        cat = build_catalog(_exchanges(engine, session_id, tuple(m for m in METHODS if m != "tools/call")))
        if not any(cat.view_uri(name) for name in cat.tools):
            return cat
    return build_catalog(_exchanges(engine, session_id, METHODS))


def _exchanges(engine: Engine, session_id: int, methods: tuple[str, ...]) -> list[AppRequest]:
    t = schema.message
    with engine.connect() as conn:
        rows = conn.execute(
            select(t.c.seq, t.c.kind, t.c.channel, t.c.raw, t.c.answers_seq, t.c.method, t.c.body_sha256)
            .where(t.c.session_id == session_id, t.c.method.in_(methods))
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
            AppRequest(
                seq=seq,
                method=req["method"],
                params=req["params"],
                answer_seq=answer_seq,
                result=result if isinstance(result, dict) else None,
                error=error if isinstance(error, dict) else None,
            )
        )
    return exchanges
