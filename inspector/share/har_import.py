"""HAR files captured elsewhere (Chrome DevTools, mitmproxy's savehar, our own export) into sessions.

Sans-IO: `read_har` checks a parsed HAR document and picks the entries that
carry MCP; `session_rows` rebuilds a session's rows from its entries through
the recorder's own `MessageBuilder`, so an imported session is framed,
classified and paired exactly as a live recording of the same bytes.

What is MCP: a request body that is JSON-RPC, a request or response with
Mcp-Session-Id or MCP-Protocol-Version headers, an event-stream response
whose events carry JSON-RPC, or a legacy SSE stream (its `endpoint` event).
Entries are grouped into sessions by Mcp-Session-Id (request header, else
the response's, which names the session an `initialize` opened), then by a
legacy stream's `sessionId` query parameter, else by URL (a stateless
server). A HAR gives an exchange's start, its wait and its total time, not
the time of each event of a stream: the response head is placed at start +
blocked + dns + connect + send + wait, an event stream's events follow it a
microsecond apart, an answer no earlier than the request it answers (a
legacy SSE stream carries the answers to later POSTs), and a POST's stream's
last event at the exchange's end (it ends with its answer). Parts of all
exchanges of a session are then ordered by these times.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from inspector.capture.builder import MessageBuilder
from inspector.errors import HarFormatError
from inspector.protocol.http_exchange import is_json_body
from inspector.protocol.sse import SSEFramer
from inspector.store.models import SQL_INT_MAX, SQL_INT_MIN, MessageRow
from inspector.store.writer import FACT_COLUMNS

__all__ = ["HarEntry", "HarSessionRows", "group_sessions", "read_har", "session_rows"]

_MCP_HEADERS = ("mcp-session-id", "mcp-protocol-version")


@dataclass
class HarEntry:
    """One exchange of a HAR file as the importer needs it."""

    index: int
    started_ns: int
    head_ns: int
    ended_ns: int
    method: str
    url: str
    request_headers: list[list[str]]
    request_body: bytes
    status: int | None
    response_headers: list[list[str]]
    response_body: bytes
    event_stream: bool

    def header(self, name: str, *, response: bool = False) -> str | None:
        for k, v in self.response_headers if response else self.request_headers:
            if k.lower() == name:
                return v
        return None

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


@dataclass
class HarSessionRows:
    """A rebuilt session: its rows (seq from 1) and columns for the store."""

    rows: list[MessageRow]
    columns: dict[str, Any] = field(default_factory=dict)


def _ns(stamp: Any, where: str) -> int:
    if not isinstance(stamp, str):
        raise HarFormatError(f"{where}: startedDateTime is missing")
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        raise HarFormatError(f"{where}: startedDateTime {stamp!r} is not an ISO 8601 date-time") from None
    if parsed.tzinfo is None:
        raise HarFormatError(f"{where}: startedDateTime {stamp!r} has no time zone")
    ns = int(parsed.timestamp() * 1_000_000) * 1000
    if not SQL_INT_MIN <= ns <= SQL_INT_MAX:
        raise HarFormatError(
            f"{where}: startedDateTime {stamp!r} is outside 1677-2262, what a nanosecond clock holds"
        )
    return ns


def _ms(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and value > 0 else 0.0


def _pairs(headers: Any) -> list[list[str]]:
    if not isinstance(headers, list):
        return []
    return [
        [str(h["name"]), str(h.get("value", ""))]
        for h in headers
        if isinstance(h, dict) and isinstance(h.get("name"), str) and not h["name"].startswith(":")
    ]


def _body(part: Any, where: str) -> bytes:
    if not isinstance(part, dict):
        return b""
    text = part.get("text")
    if not isinstance(text, str):
        return b""
    if part.get("encoding") == "base64" or part.get("_encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise HarFormatError(f"{where}: text says base64 but is not") from None
    return _text_bytes(text)


def _text_bytes(text: str) -> bytes:
    """A body's bytes from its HAR text. mitmproxy writes a text body without a charset (an event
    stream) decoded as latin-1: text of latin-1 characters only whose latin-1 bytes are valid UTF-8
    (and not ASCII) is those bytes; any other text is encoded as UTF-8."""
    if not text.isascii():
        try:
            raw = text.encode("latin-1")
            raw.decode("utf-8")
            return raw
        except UnicodeError:
            pass
    return text.encode("utf-8", "surrogatepass")


def _entry(index: int, raw: Any) -> HarEntry:
    where = f"entry {index + 1}"
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict):
        raise HarFormatError(f"{where}: not an entry with a request")
    request, response = raw["request"], raw.get("response")
    response = response if isinstance(response, dict) else {}
    started = _ns(raw.get("startedDateTime"), where)
    timings: dict[str, Any] = raw["timings"] if isinstance(raw.get("timings"), dict) else {}
    head_ms = sum((_ms(timings.get(k)) for k in ("blocked", "dns", "connect", "send", "wait")), 0.0)
    total_ms = max(_ms(raw.get("time")), head_ms + _ms(timings.get("receive")))
    if started + total_ms * 1e6 > SQL_INT_MAX:  # finite (orjson refuses infinities), maybe huge
        raise HarFormatError(f"{where}: its time and timings ({total_ms:g} ms) end past the year 2262")
    content: dict[str, Any] = response["content"] if isinstance(response.get("content"), dict) else {}
    response_headers = _pairs(response.get("headers"))
    mime = str(content.get("mimeType") or "")
    for k, v in response_headers:
        if k.lower() == "content-type":
            mime = v
    status = response.get("status")
    return HarEntry(
        index=index,
        started_ns=started,
        head_ns=started + int(head_ms * 1e6),
        ended_ns=started + int(total_ms * 1e6),
        method=str(request.get("method") or "GET").upper(),
        url=str(request.get("url") or ""),
        request_headers=_pairs(request.get("headers")),
        request_body=_body(request.get("postData"), f"{where} request"),
        status=status if isinstance(status, int) and status > 0 else None,
        response_headers=response_headers,
        response_body=_body(content, f"{where} response"),
        event_stream=mime.split(";")[0].strip().lower() == "text/event-stream",
    )


def _is_jsonrpc(body: bytes) -> bool:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(i, dict) and i.get("jsonrpc") == "2.0" for i in items)


def _is_mcp(e: HarEntry) -> bool:
    if any(e.header(h) or e.header(h, response=True) for h in _MCP_HEADERS):
        return True
    if e.request_body and _is_jsonrpc(e.request_body.strip()):
        return True
    if e.event_stream:
        return any(ev.event == "endpoint" or _is_jsonrpc(ev.data_bytes) for ev in _events(e.response_body))
    return False


def _items(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC objects of a body (one, or a batch's), none when it is not JSON."""
    try:
        value = orjson.loads(body) if body.strip() else None
    except orjson.JSONDecodeError:
        return []
    return [i for i in (value if isinstance(value, list) else [value]) if isinstance(i, dict)]


def _events(body: bytes) -> list[Any]:
    framer = SSEFramer()
    return [ev for ev in [*framer.feed(body), *framer.close()] if not ev.is_comment_only]


def read_har(data: bytes, source: str = "") -> tuple[list[HarEntry], str]:
    """The MCP entries of a HAR file (in file order) and its creator's name; `HarFormatError` if it is not HAR."""
    prefix = f"{source}: " if source else ""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise HarFormatError(f"{prefix}not JSON ({exc})") from None
    log = doc.get("log") if isinstance(doc, dict) else None
    if not isinstance(log, dict) or not isinstance(log.get("entries"), list):
        raise HarFormatError(f'{prefix}not a session file, nor a HAR file (no "log" with "entries")')
    creator: dict[str, Any] = log["creator"] if isinstance(log.get("creator"), dict) else {}
    made_by = " ".join(str(creator.get(k)) for k in ("name", "version") if creator.get(k))
    try:
        entries = [_entry(i, raw) for i, raw in enumerate(log["entries"])]
    except HarFormatError as exc:
        raise HarFormatError(f"{prefix}{exc}") from None
    return [e for e in entries if _is_mcp(e)], made_by


def _legacy_id(e: HarEntry) -> str | None:
    query = dict(parse_qsl(urlsplit(e.url).query))
    if "sessionId" in query or "session_id" in query:
        return query.get("sessionId") or query.get("session_id")
    if e.event_stream:
        for ev in _events(e.response_body):
            if ev.event == "endpoint":
                q = dict(parse_qsl(urlsplit(ev.data).query))
                return q.get("sessionId") or q.get("session_id")
    return None


def group_sessions(entries: list[HarEntry]) -> list[list[HarEntry]]:
    """Entries grouped into MCP sessions, each in start order, sessions in order of their first entry.

    An entry with no session id of either kind (a client's stateless probe before its `initialize`,
    e.g. `server/discover`) joins the next session that starts on the same URL, else the last one
    before it there; a URL where no entry has a session id (a stateless server) is one session."""
    ordered = sorted(entries, key=lambda e: (e.started_ns, e.index))
    keys: list[str | None] = []
    for e in ordered:
        sid = e.header("mcp-session-id") or e.header("mcp-session-id", response=True)
        legacy = None if sid else _legacy_id(e)
        keys.append(f"mcp:{sid}" if sid else f"legacy:{legacy}" if legacy else None)
    for i, e in enumerate(ordered):
        if keys[i] is not None:
            continue
        url = _url_key(e)
        later = (keys[j] for j in range(i + 1, len(ordered)) if keys[j] and _url_key(ordered[j]) == url)
        earlier = (keys[j] for j in range(i - 1, -1, -1) if keys[j] and _url_key(ordered[j]) == url)
        keys[i] = next(later, None) or next(earlier, None) or f"url:{url}"
    groups: dict[str, list[HarEntry]] = {}
    for e, key in zip(ordered, keys, strict=True):
        groups.setdefault(key or "", []).append(e)
    return list(groups.values())


def _url_key(e: HarEntry) -> str:
    parts = urlsplit(e.url)
    return f"{parts.netloc}{parts.path}"


def _target(entries: list[HarEntry]) -> str:
    first = next((e for e in entries if not e.event_stream or e.method != "GET"), entries[0])
    parts = urlsplit(first.url)
    if _legacy_id(first) is not None and not first.event_stream:
        stream = next((e for e in entries if e.event_stream and e.method == "GET"), None)
        parts = urlsplit(stream.url) if stream else parts
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def session_rows(entries: list[HarEntry], session_id: int) -> HarSessionRows:
    """Rows of one session, built by the recorder's builder from the entries' bytes, in time order."""
    builder = MessageBuilder(session_id)
    parts: list[tuple[int, int, int, Any]] = []  # (ts, entry order, part order, what)
    asked: dict[bytes, int] = {}  # a client request's id -> when it was sent
    for e in entries:
        for item in _items(e.request_body):
            if "method" in item and "id" in item:
                asked.setdefault(orjson.dumps(item["id"]), e.started_ns)
    for n, e in enumerate(entries, start=1):
        parts.append((e.started_ns, e.index, 0, ("request", e, n)))
        if e.status is None:
            continue
        parts.append((e.head_ns, e.index, 1, ("head", e, n)))
        if e.event_stream:
            events = _events(e.response_body)
            ts = e.head_ns
            for k, ev in enumerate(events):
                # In stream order; an answer after the request it answers; a POST's stream ends at its end.
                ts = max(ts + 1000, e.ended_ns if k == len(events) - 1 and k > 0 and e.method != "GET" else 0)
                for item in _items(ev.data_bytes):
                    if "method" not in item and (sent := asked.get(orjson.dumps(item.get("id")))) is not None:
                        ts = max(ts, sent + 1000)
                parts.append((ts, e.index, 2 + k, ("event", e, n, ev)))
    parts.sort(key=lambda p: (p[0], p[1], p[2]))
    rows: list[MessageRow] = []
    for ts, _i, _o, part in parts:
        what, e, n = part[0], part[1], part[2]
        common = {"http_method": e.method, "http_path": e.path, "meta": {"exchange": n}}
        if what == "request":
            body = e.request_body
            rows.append(
                builder.message(
                    ts, "c2s", "http-request", body, jsonrpc=bool(body.strip()),
                    http_headers=e.request_headers, **common,
                )
            )  # fmt: skip
        elif what == "head":
            body = b"" if e.event_stream else e.response_body
            content_type = (e.header("content-type", response=True) or "").encode()
            rows.append(
                builder.message(
                    ts, "s2c", "http-response", body, jsonrpc=bool(body) and is_json_body(content_type, body),
                    http_status=e.status, http_headers=e.response_headers, **common,
                )
            )  # fmt: skip
        else:
            ev = part[3]
            meta: dict[str, Any] = {"exchange": n}
            if ev.event != "message":
                meta["event"] = ev.event
            if not ev.complete:
                meta["problem"] = "event cut off by the end of the stream"
            rows.append(
                builder.message(
                    ts, "s2c", "sse", ev.raw, jsonrpc=ev.event == "message" and bool(ev.data_bytes),
                    body=ev.data_bytes, sse_event_id=ev.id,
                    http_method=e.method, http_path=e.path, meta=meta,
                )
            )  # fmt: skip
    started = min(e.started_ns for e in entries)
    ended = max(max(e.ended_ns, e.started_ns) for e in entries)
    facts = builder.facts.snapshot()
    columns: dict[str, Any] = {
        "target": _target(entries),
        "started_ns": started,
        "ended_ns": ended,
        "facts": facts,
        **{k: facts.get(k) for k in FACT_COLUMNS},
    }
    return HarSessionRows(rows, columns)
