"""The network view of an HTTP session: message rows grouped into HTTP exchanges.

An HTTP session's rows carry `channel` http-request, http-response or sse and
the columns http_method, http_path, http_status, http_headers, sse_event_id.
Rows that name their exchange (`meta.exchange`) are grouped by it. Otherwise
a request row opens an exchange; a response or SSE row joins the exchange of
the request it answers (`answers_seq`), else the oldest exchange on the same
path still waiting for its response, else (a standalone SSE stream) a stream
exchange of its own per path. Headers are shown as stored: secrets never
reach the store (the recorder's one redaction step, `capture/redact.py`), so
this view has no secret list of its own; a session recorded with
`--keep-secrets` shows what the user chose to keep. Each exchange carries the
2026-07-28 routing headers of its request, decoded and checked against the
body (`routing_headers.routing_of_row`; `Mcp-Param-*` against the session's
recorded `tools/list`).
"""

from __future__ import annotations

from typing import Any

from inspector.protocol.routing_headers import recorded_tool_schemas, routing_of_row

__all__ = ["HTTP_CHANNELS", "group_exchanges", "header_dict"]

HTTP_CHANNELS = ("http-request", "http-response", "sse")


def header_dict(headers: Any) -> dict[str, str]:
    """Headers (a dict, or a list of [name, value] pairs) as a dict; repeated names joined by ', '."""
    pairs: list[tuple[str, str]] = []
    if isinstance(headers, dict):
        pairs = [(str(k), str(v)) for k, v in headers.items()]
    elif isinstance(headers, list):
        pairs = [(str(p[0]), str(p[1])) for p in headers if isinstance(p, (list, tuple)) and len(p) == 2]
    out: dict[str, str] = {}
    for name, value in pairs:
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


class _HttpExchangeGroup:
    def __init__(self, key: str, row: dict[str, Any], schemas: dict[str, Any] | None = None) -> None:
        self.key = key
        self.schemas = schemas
        self.method: str | None = row.get("http_method")
        self.path: str | None = row.get("http_path")
        self.status: int | None = None
        self.request_headers: dict[str, str] = {}
        self.response_headers: dict[str, str] = {}
        self.started = self.ended = row["ts_ns"]
        self.sse = False
        self.event_ids: list[str] = []
        self.rows: list[dict[str, Any]] = []
        self.answered = False
        self.routing: dict[str, Any] | None = None

    def add(self, row: dict[str, Any], raw: bytes | None = None) -> None:
        self.rows.append(row)
        self.started = min(self.started, row["ts_ns"])
        self.ended = max(self.ended, row["ts_ns"])
        self.method = self.method or row.get("http_method")
        self.path = self.path or row.get("http_path")
        if row["channel"] == "http-request":
            self.request_headers = self.request_headers or header_dict(row.get("http_headers"))
            read = {**row, "raw": raw} if raw is not None else row
            if self.routing is None and (routing := routing_of_row(read, self.schemas)) is not None:
                self.routing = routing.to_json()
        else:
            self.answered = True
            if row.get("http_status") is not None:
                self.status = row["http_status"]
            if row.get("http_headers") and not self.response_headers:
                self.response_headers = header_dict(row["http_headers"])
        if row["channel"] == "sse":
            self.sse = True
            if row.get("sse_event_id"):
                self.event_ids.append(row["sse_event_id"])

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.key,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "request_headers": self.request_headers,
            "response_headers": self.response_headers,
            "started_ns": self.started,
            "ended_ns": self.ended,
            "duration_ns": self.ended - self.started,
            "sse": self.sse,
            "sse_event_ids": self.event_ids,
            "messages": self.rows,
            "routing": self.routing,
        }


def group_exchanges(
    rows: list[dict[str, Any]], bodies: dict[int, bytes] | None = None
) -> list[dict[str, Any]]:
    """Rows of the HTTP channels, in seq order, as `Exchange` documents in order of their first row.

    `bodies` (seq -> raw bytes) stands in for the `raw` of rows listed without it, for the routing check.
    """
    if bodies:
        with_raw = [{**r, "raw": bodies[r["seq"]]} for r in rows if r["seq"] in bodies]
        schemas = recorded_tool_schemas(with_raw)
    else:
        schemas = recorded_tool_schemas(rows)
    exchanges: dict[str, _HttpExchangeGroup] = {}
    by_request_seq: dict[int, _HttpExchangeGroup] = {}
    for row in rows:
        if row["channel"] not in HTTP_CHANNELS:
            continue
        meta = row.get("meta") or {}
        named = meta.get("exchange") if isinstance(meta, dict) else None
        if named is not None:
            key = f"x{named}"
            ex = exchanges.get(key) or exchanges.setdefault(key, _HttpExchangeGroup(key, row, schemas))
        elif row["channel"] == "http-request":
            key = f"r{row['seq']}"
            ex = exchanges[key] = _HttpExchangeGroup(key, row, schemas)
        else:
            found = by_request_seq.get(row.get("answers_seq") or -1) or _waiting(exchanges, row)
            if found is None:
                key = f"s{row.get('http_path') or ''}"
                found = exchanges.get(key) or exchanges.setdefault(key, _HttpExchangeGroup(key, row, schemas))
            ex = found
        ex.add(row, bodies.get(row["seq"]) if bodies else None)
        if row["channel"] == "http-request":
            by_request_seq[row["seq"]] = ex
    return [ex.to_json() for ex in exchanges.values()]


def _waiting(exchanges: dict[str, _HttpExchangeGroup], row: dict[str, Any]) -> _HttpExchangeGroup | None:
    for ex in exchanges.values():
        if not ex.answered and ex.key.startswith("r") and row.get("http_path") in (None, ex.path):
            return ex
    return None
