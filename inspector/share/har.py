"""HAR 1.2 (HTTP Archive) out of recorded HTTP sessions: sans-IO, rows in, JSON bytes out.

One HAR file holds the exported sessions as pages (`pageref` `session-<n>`)
and each HTTP exchange of a session as an entry, in the order its first row
was recorded. The exchanges are the network view's (`protocol/http_groups.py`
`group_exchanges`: rows tied by `meta.exchange`). An entry carries:

- the request: method, URL (the session's target origin and the recorded
  path), headers as stored (secrets are placeholders already), the body as
  `postData.text`;
- the response: status, headers, and `content.text`: a JSON body as it was,
  an event stream as the text of its events (their exact bytes, in order);
  bytes that are not UTF-8 go as base64 (`content.encoding`);
- timings: `wait` until the response head, `receive` until its last part;
- `_mcp`: the MCP facts of the exchange (HAR's custom fields start with `_`):
  the Mcp-Session-Id, each message (seq, direction, kind, method, id, the seq
  it answers, latency, lint findings), and for an event stream its events
  (id, event name, data, the seq of their message).

The page of a session has `_mcp` with the session's facts. Readers that do
not know `_mcp` (Chrome DevTools, mitmproxy, har-validator) ignore it.
"""

from __future__ import annotations

import base64
import http
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from inspector import __version__
from inspector.lint.findings import Finding
from inspector.protocol.http_groups import HTTP_CHANNELS, group_exchanges
from inspector.protocol.sse import stored_body

__all__ = ["HarSession", "har_chunks", "has_http", "iso_time", "session_entries", "session_page"]

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2


class HarSession:
    """One session to write: its columns (`Session.to_json`), its rows, its lint findings."""

    def __init__(
        self,
        session: Mapping[str, Any],
        rows: list[dict[str, Any]],
        findings: Iterable[Finding] = (),
    ) -> None:
        self.session = session
        self.rows = rows
        self.findings: dict[int, list[dict[str, str]]] = {}
        for f in findings:
            self.findings.setdefault(f.seq, []).append(
                {"rule": f.rule, "severity": f.severity, "explanation": f.explanation}
            )


def has_http(rows: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any row is part of an HTTP exchange (what a HAR can hold)."""
    return any(r["channel"] in HTTP_CHANNELS for r in rows)


def iso_time(ns: int) -> str:
    """An ISO 8601 date-time with milliseconds in UTC, as HAR wants `startedDateTime`."""
    stamp = datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def _ms(ns: int) -> float:
    return round(ns / 1e6, 3)


def _headers(pairs: Mapping[str, str] | Any) -> list[dict[str, str]]:
    if isinstance(pairs, list):
        return [
            {"name": str(p[0]), "value": str(p[1])}
            for p in pairs
            if isinstance(p, list | tuple) and len(p) == 2
        ]
    if isinstance(pairs, Mapping):
        return [{"name": str(k), "value": str(v)} for k, v in pairs.items()]
    return []


def _header(pairs: list[dict[str, str]], name: str) -> str | None:
    for p in pairs:
        if p["name"].lower() == name:
            return p["value"]
    return None


def _text(raw: bytes) -> tuple[str, str | None]:
    """Body bytes as HAR text: UTF-8 as it is, else base64 (and the encoding to say so)."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii"), "base64"


def _origin(target: Any) -> str:
    if isinstance(target, str) and "://" in target:
        parts = urlsplit(target)
        return f"{parts.scheme}://{parts.netloc}"
    return "http://localhost"


def _url(origin: str, path: str | None, headers: list[dict[str, str]]) -> str:
    path = path or "/"
    if "://" in path:
        return path
    if origin == "http://localhost" and (host := _header(headers, "host")):
        origin = f"http://{host}"
    return origin + (path if path.startswith("/") else "/" + path)


def _message(row: Mapping[str, Any], findings: Mapping[int, list[dict[str, str]]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seq": row["seq"],
        "direction": row["direction"],
        "channel": row["channel"],
        "kind": row["kind"],
        "parse_status": row["parse_status"],
    }
    for key, name in (("method", "method"), ("rpc_id", "id"), ("answers_seq", "answers_seq")):
        if row.get(key) is not None:
            out[name] = row[key]
    if row.get("error_code") is not None:
        out["error_code"] = row["error_code"]
    if row.get("latency_ns") is not None:
        out["latency_ms"] = _ms(row["latency_ns"])
    meta = row.get("meta") if isinstance(row.get("meta"), dict) else {}
    if meta and meta.get("problem"):
        out["problem"] = meta["problem"]
    if row["seq"] in findings:
        out["findings"] = findings[row["seq"]]
    return out


def _entry(
    exchange: dict[str, Any], origin: str, page: str, findings: Mapping[int, list[dict[str, str]]]
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = exchange["messages"]
    requests = [r for r in rows if r["channel"] == "http-request"]
    answers = [r for r in rows if r["channel"] != "http-request"]
    request_headers = _headers(exchange["request_headers"])
    response_headers = _headers(exchange["response_headers"])
    method = exchange["method"] or "GET"
    url = _url(origin, exchange["path"], request_headers)
    started = min(r["ts_ns"] for r in rows)
    first_answer = min((r["ts_ns"] for r in answers), default=started)
    ended = max(r["ts_ns"] for r in rows)

    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": request_headers,
        "queryString": [
            {"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)
        ],
        "headersSize": -1,
        "bodySize": 0,
    }
    body = b"".join(bytes(r["raw"]) for r in requests)
    if body or method in ("POST", "PUT", "PATCH"):
        text, encoding = _text(body)
        request["postData"] = {"mimeType": _header(request_headers, "content-type") or "", "text": text}
        if encoding:
            request["postData"]["_encoding"] = encoding
        request["bodySize"] = len(body)

    events = [r for r in answers if r["channel"] == "sse"]
    content_bytes = b"".join(bytes(r["raw"]) for r in answers)
    text, encoding = _text(content_bytes)
    content: dict[str, Any] = {
        "size": len(content_bytes),
        "mimeType": _header(response_headers, "content-type")
        or ("text/event-stream" if events else "x-unknown"),
        "text": text,
    }
    if encoding:
        content["encoding"] = encoding
    status = exchange["status"] or 0
    try:
        status_text = http.HTTPStatus(status).phrase
    except ValueError:
        status_text = ""
    response = {
        "status": status,
        "statusText": status_text,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": response_headers,
        "content": content,
        "redirectURL": _header(response_headers, "location") or "",
        "headersSize": -1,
        "bodySize": len(content_bytes) if answers else -1,
    }
    wait, receive = first_answer - started, ended - first_answer
    mcp: dict[str, Any] = {
        "exchange": exchange["id"],
        "messages": [_message(r, findings) for r in rows if r["kind"] != "http" or _problem(r)],
    }
    session_id = _header(response_headers, "mcp-session-id") or _header(request_headers, "mcp-session-id")
    if session_id:
        mcp["mcp_session_id"] = session_id
    if events:
        mcp["events"] = [_event(r) for r in events]
    return {
        "pageref": page,
        "startedDateTime": iso_time(started),
        "time": _ms(wait + receive),
        "request": request,
        "response": response,
        "cache": {},
        "timings": {
            "blocked": -1,
            "dns": -1,
            "connect": -1,
            "send": 0,
            "wait": _ms(wait),
            "receive": _ms(receive),
            "ssl": -1,
        },
        "_mcp": mcp,
    }


def _problem(row: Mapping[str, Any]) -> Any:
    meta = row.get("meta")
    return meta.get("problem") if isinstance(meta, dict) else None


def _event(row: Mapping[str, Any]) -> dict[str, Any]:
    meta = row.get("meta") if isinstance(row.get("meta"), dict) else {}
    data = stored_body("sse", bytes(row["raw"]))
    out: dict[str, Any] = {"seq": row["seq"], "event": (meta or {}).get("event", "message")}
    if row.get("sse_event_id") is not None:
        out["id"] = row["sse_event_id"]
    out["data"] = _text(data)[0]
    if row["kind"] != "http":
        out["message"] = {
            k: v
            for k, v in (("kind", row["kind"]), ("method", row.get("method")), ("id", row.get("rpc_id")))
            if v is not None
        }
    return out


def session_page(har: HarSession, ref: int) -> dict[str, Any]:
    """The HAR page of a session: its start, a title, its facts under `_mcp`."""
    s = har.session
    title = s.get("name") or f"#{s.get('id')} {s.get('kind')} {s.get('target') or ''}".strip()
    facts = {
        k: s.get(k)
        for k in ("id", "name", "kind", "target", "status", "era", "protocol_version", "offered_version",
                  "client_info", "server_info", "started_ns", "ended_ns", "end_reason")
        if s.get(k) is not None
    }  # fmt: skip
    return {
        "id": f"session-{ref}",
        "title": str(title),
        "startedDateTime": iso_time(s.get("started_ns") or 0),
        "pageTimings": {"onContentLoad": -1, "onLoad": -1},
        "_mcp": facts,
    }


def session_entries(har: HarSession, ref: int) -> list[dict[str, Any]]:
    """The HAR entries of a session's HTTP exchanges, in the order they started."""
    origin = _origin(har.session.get("target"))
    exchanges = group_exchanges(har.rows)
    entries = [_entry(ex, origin, f"session-{ref}", har.findings) for ex in exchanges if ex["messages"]]
    entries.sort(key=lambda e: e["startedDateTime"])
    return entries


def har_chunks(sessions: Iterable[HarSession]) -> Iterator[bytes]:
    """The HAR file's bytes, a session at a time (pages first is what HAR wants, so pages are built
    first and entries follow)."""
    chosen = list(sessions)
    pages = [session_page(s, ref) for ref, s in enumerate(chosen, start=1)]
    creator = {"name": "mcp-inspector", "version": __version__}
    head = orjson.dumps({"version": "1.2", "creator": creator, "pages": pages}, option=_OPTIONS)
    # `{"log": {..., "entries": [` then the entries, then `]}}`: written as they are built.
    yield b'{"log": ' + head[:-2] + b',\n  "entries": [\n'
    first = True
    for ref, s in enumerate(chosen, start=1):
        for entry in session_entries(s, ref):
            yield (b"" if first else b",\n") + orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
            first = False
    yield b"\n  ]\n}}\n"
