"""The HTTP exchange rules of the recording proxy, without IO.

What the proxy changes on the way and what it concludes from what it sees:
- which request and response headers go on (`forward_headers`: no hop-by-hop
  headers, none the `Connection` header names, none of the UI's token cookies);
- what a response body is (`is_json_body`, `is_event_stream`) and its
  recorded copy when compressed (`decoded_body`);
- the legacy `endpoint` event pointed at the proxy (`rewrite_endpoint`);
- which recorded session an exchange belongs to, and when a session is
  over (`SessionRouter`).

The proxy (`transports/http_proxy.py`) does the IO and asks these.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from inspector.protocol.client_identity import peer_label

__all__ = [
    "EndpointRewrite",
    "SessionRouter",
    "decoded_body",
    "forward_headers",
    "header",
    "is_event_stream",
    "is_json_body",
    "legacy_session_param",
    "path_forms",
    "rewrite_endpoint",
]

HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
        b"host",
    }
)
# The name prefix of the UI's token cookies (inspector/api/security.py set them before the
# token moved to the URL fragment and an Authorization header).
UI_COOKIE = b"mcp_inspector_token_"


def path_forms(path: str) -> set[str]:
    """A path with and without its trailing slash (servers redirect between the two)."""
    bare = path.rstrip("/") or "/"
    return {bare, bare + "/"} if bare != "/" else {"/"}


def forward_headers(raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers to pass on: no hop-by-hop headers, and none of the UI's token cookies.

    Old browsers may still hold an `mcp_inspector_token_<port>` cookie from an earlier
    inspector UI on this host (cookies ignore ports), and send it to whatever runs
    behind the proxy: it is the UI's access token, so it never goes upstream.
    """
    named = set()
    for name, value in raw:
        if name.lower() == b"connection":
            named |= {v.strip().lower() for v in value.split(b",")}
    out = []
    for n, v in raw:
        lower = n.lower()
        if lower in HOP_BY_HOP or lower in named:
            continue
        if lower == b"cookie" and UI_COOKIE in v:
            kept = b";".join(c for c in v.split(b";") if not c.lstrip().startswith(UI_COOKIE)).strip(b"; ")
            if not kept:
                continue
            v = kept
        out.append((n, v))
    return out


def header(raw: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    """The first value of a header (`name` in lower case)."""
    for n, v in raw:
        if n.lower() == name:
            return v
    return None


def media_type(raw: list[tuple[bytes, bytes]]) -> bytes:
    """The response's media type, lower case, without parameters (b"" when absent)."""
    return (header(raw, b"content-type") or b"").split(b";")[0].strip().lower()


def is_event_stream(content_type: bytes) -> bool:
    return content_type == b"text/event-stream"


def is_json_body(content_type: bytes, body: bytes) -> bool:
    """A JSON body by its media type; without one, by its first byte."""
    if content_type:
        return content_type == b"application/json" or content_type.endswith(b"+json")
    return body.lstrip()[:1] in (b"{", b"[")


def decoded_body(body: bytes, encoding: str | None) -> tuple[bytes, dict[str, Any] | None]:
    """The recorded copy of a compressed body, decompressed where we can, and what was done."""
    if not encoding or encoding == "identity" or not body:
        return body, None
    try:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompress(body, 16 + zlib.MAX_WBITS), {
                "content_encoding": encoding,
                "wire_size": len(body),
            }
        if encoding == "deflate":
            return zlib.decompress(body), {"content_encoding": encoding, "wire_size": len(body)}
    except zlib.error as exc:
        return body, {"content_encoding": encoding, "problem": f"could not decompress: {exc}"}
    return body, {"content_encoding": encoding, "problem": f"{encoding} bodies are recorded as sent"}


_LEGACY_PARAMS = ("session_id", "sessionId")


def legacy_session_param(query: str) -> str | None:
    """The session id a legacy message endpoint URL carries in its query, if any."""
    params = parse_qs(query)
    for name in _LEGACY_PARAMS:
        if params.get(name):
            return params[name][0]
    return None


@dataclass(frozen=True, slots=True)
class EndpointRewrite:
    """What the proxy does with a legacy `endpoint` event."""

    raw: bytes  # the event as the client gets it
    meta: dict[str, Any]  # `rewritten_to` when changed
    legacy_id: str | None  # the session id the endpoint URL carries
    mcp_paths: set[str]  # paths clients will POST MCP messages to (empty: another origin)


def rewrite_endpoint(raw: bytes, data: str, upstream_origin: str, mount: str = "") -> EndpointRewrite:
    """Point an `endpoint` event that names the upstream's origin at the proxy (a relative URL).

    `mount`: the path prefix the proxy serves the upstream's origin under (a gateway route); a
    path-absolute endpoint gets it in front, else the client would post beside the route."""
    endpoint = data.strip()
    parts = urlsplit(endpoint)
    legacy = legacy_session_param(parts.query)
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme else None
    ours = origin is None or origin == upstream_origin
    paths = path_forms(parts.path) if ours and parts.path else set()
    mounted = bool(mount) and origin is None and endpoint.startswith("/") and not endpoint.startswith("//")
    if origin == upstream_origin or mounted:
        relative = mount + ((endpoint[len(upstream_origin) :] or "/") if origin else endpoint)
        # The row keeps what the server sent; the meta says what the client got instead.
        new = raw.replace(endpoint.encode(), relative.encode(), 1)
        return EndpointRewrite(new, {"rewritten_to": relative}, legacy, paths)
    return EndpointRewrite(raw, {}, legacy, paths)


Key = tuple[str, str]

# An identity-keyed session is over when none of its client's connections has been open for this
# long (an HTTP client pool closes and opens connections within one run of the client).
CLIENT_GRACE = 2.0
# A peer-keyed session (a handshake-era client of a stateless server) is over when none of its
# connections has been open for this long (`proxy --peer-gap`): a host's pool lets idle keep-alive
# connections go after a few seconds (Node's fetch after 4 s) while the user reads or types.
PEER_GAP = 30.0


@dataclass(slots=True)
class _Activity:
    in_flight: int = 0  # exchanges under way (an open event stream counts until it closes)
    last: float = 0.0  # when the last exchange started or finished
    closing: str | None = None  # ends when its exchanges are over, for this reason


@dataclass
class SessionRouter:
    """Maps exchanges to recorded sessions and says when a session is over.

    Keys, most specific first:
    - `Mcp-Session-Id` (Streamable HTTP): one recorded session per MCP session;
    - the `session_id`/`sessionId` query parameter of a legacy HTTP+SSE message
      endpoint, learned from the `endpoint` event;
    - the client identity a 2026-07-28 request declares in `_meta` (`identity`:
      `protocol.client_identity`): a client's stateless requests over all the
      connections its HTTP pool opens; over when none of them has been open for
      `CLIENT_GRACE` seconds, or after `idle_after` seconds without traffic;
    - otherwise the client's connection (address and port): the first request of
      a Streamable HTTP session (initialize has no session id yet) and every
      request to a stateless server. With a `peer` (`client_identity.peer_key`:
      address without the port, User-Agent, Authorization fingerprint), a
      request on a new connection joins the open session its peer started last,
      unless it is an `initialize` (`opening`: the peer's next run); such a
      session is over when none of its connections has been open for
      `peer_gap` seconds (a pool drops and reopens connections within a run).

    When a response assigns an `Mcp-Session-Id`, the connection's session takes
    that id and the connection key is released, so the next session started on the
    same keep-alive connection is recorded separately.

    A session is over when its legacy event stream closes, when the connection of a
    connection-keyed session closes, or when nothing happened in it for `idle_after`
    seconds with no exchange under way. `new_session` is the caller's id factory;
    times are the caller's clock (seconds).
    """

    new_session: Any  # Callable[[str], int]: (a human hint) -> new session handle
    idle_after: float | None = None
    _by_key: dict[Key, int] = field(default_factory=dict)
    _activity: dict[int, _Activity] = field(default_factory=dict)
    _legacy_streams: set[int] = field(default_factory=set)
    _conn_numbers: dict[str, int] = field(default_factory=dict)  # connection -> 1, 2, ... (for people)
    _client_conns: dict[int, set[str]] = field(default_factory=dict)  # identity-keyed session -> open conns
    _grouping: dict[int, dict[str, Any]] = field(default_factory=dict)
    peer_gap: float = PEER_GAP
    _by_peer: dict[str, int] = field(default_factory=dict)  # peer -> the open session it started last
    _peer_conns: dict[int, set[str]] = field(default_factory=dict)  # peer-keyed session -> open conns
    _peer_grouping: dict[int, dict[str, Any]] = field(default_factory=dict)

    def route(
        self,
        mcp_session_id: str | None,
        query: str,
        connection: str,
        identity: Any = None,
        *,
        peer: str | None = None,
        opening: bool = False,
    ) -> tuple[int, Key]:
        """The recorded session for a request, and the key it was found under (`identity`: a
        `ClientIdentity` the request declares, for requests without a session id; `peer`: who
        sent it, `opening`: it is an `initialize`)."""
        if mcp_session_id:
            key = ("mcp", mcp_session_id)
        elif (legacy := legacy_session_param(query)) is not None and ("legacy", legacy) in self._by_key:
            key = ("legacy", legacy)
        elif identity is not None and ("conn", connection) not in self._by_key:
            key = ("client", identity.key)
        else:
            key = ("conn", connection)
            if key not in self._by_key:
                # A request without an identity on a connection a client's session already uses (the
                # SDK's handshake fallback after its server/discover probe): the same session.
                owner = next((s for s, conns in self._client_conns.items() if connection in conns), None)
                if owner is not None:
                    self._by_key[key] = owner
            if peer is not None:
                self._peer_route(key, connection, peer, opening)
        sid = self._by_key.get(key)
        if sid is None:
            hint = f"client {identity.label}" if key[0] == "client" else f"{key[0]} {key[1]}"
            sid = self._by_key[key] = self.new_session(hint)
            self._activity[sid] = _Activity()
            if key[0] == "client":
                self._client_conns[sid] = set()
                self._grouping[sid] = {
                    "by": "client-identity",
                    "client": identity.label,
                    "auth": identity.auth,
                    "connections": [],
                    "idle_gap_s": self.idle_after,
                    "closed_gap_s": CLIENT_GRACE,
                }
            if peer is not None and key[0] == "conn":
                self._by_peer[peer] = sid
                self._peer_conns[sid] = {connection}
                self._peer_grouping[sid] = {
                    "by": "peer",
                    "peer": peer_label(peer),
                    "auth": json.loads(peer)[2],
                    "connections": [self._conn_numbers.setdefault(connection, len(self._conn_numbers) + 1)],
                    "closed_gap_s": self.peer_gap,
                }
        if key[0] == "client" and connection not in self._client_conns[sid]:
            self._client_conns[sid].add(connection)
            self._activity[sid].closing = None  # a new connection: the client is still there
            number = self._conn_numbers.setdefault(connection, len(self._conn_numbers) + 1)
            self._grouping[sid]["connections"].append(number)
        return sid, key

    def _peer_route(self, key: Key, connection: str, peer: str, opening: bool) -> None:
        """A request of `peer` without a session id or identity, on `connection` (`key`)."""
        sid = self._by_key.get(key)
        if sid is not None:
            if opening and sid in self._peer_conns:  # the peer's next run, on a kept-alive connection
                del self._by_key[key]
                self._peer_conns[sid].discard(connection)
            return
        sid = self._by_peer.get(peer)
        if opening or sid is None or sid not in self._peer_conns:
            return
        self._by_key[key] = sid  # another connection of the peer's pool: the same run
        self._peer_conns[sid].add(connection)
        self._activity[sid].closing = None
        number = self._conn_numbers.setdefault(connection, len(self._conn_numbers) + 1)
        if number not in self._peer_grouping[sid]["connections"]:
            self._peer_grouping[sid]["connections"].append(number)

    def connections_open(self, sid: int) -> int:
        """How many of an identity- or peer-keyed session's connections are open."""
        return len(self._client_conns.get(sid, ())) + len(self._peer_conns.get(sid, ()))

    def is_peer_keyed(self, sid: int) -> bool:
        """True for a session grouped by its peer (a handshake-era client of a stateless server)."""
        return sid in self._peer_conns

    def grouping(self, sid: int) -> dict[str, Any] | None:
        """How an identity-keyed session, or a peer-keyed one over more than one connection, was
        grouped (a copy; None for the other sessions)."""
        g = self._grouping.get(sid)
        if g is None and len((p := self._peer_grouping.get(sid) or {}).get("connections", ())) > 1:
            g = p
        return {**g, "connections": list(g["connections"])} if g else None

    def begin(self, sid: int, now: float) -> None:
        """An exchange of the session started."""
        activity = self._activity.get(sid)
        if activity is not None:
            activity.in_flight += 1
            activity.last = now

    def finish(self, sid: int, now: float) -> str | None:
        """An exchange ended; the reason to end the session now, if it is over."""
        activity = self._activity.get(sid)
        if activity is None:
            return None
        activity.in_flight -= 1
        activity.last = now
        if activity.in_flight <= 0 and activity.closing:
            return activity.closing
        return None

    def bind_mcp_session(self, key: Key, mcp_session_id: str) -> None:
        """A response assigned an `Mcp-Session-Id` to the session found under `key`."""
        if key[0] != "conn" or ("mcp", mcp_session_id) in self._by_key or key not in self._by_key:
            return
        sid = self._by_key.pop(key)
        self._by_key[("mcp", mcp_session_id)] = sid
        self._unpeer(sid)  # a stateful server: the session id groups it
        if sid in self._client_conns:  # an MCP session after all: its id groups it from now on
            for k in [k for k, v in self._by_key.items() if v == sid and k[0] == "client"]:
                del self._by_key[k]
            del self._client_conns[sid]
            self._grouping.pop(sid, None)

    def _unpeer(self, sid: int) -> None:
        for peer in [p for p, s in self._by_peer.items() if s == sid]:
            del self._by_peer[peer]
        self._peer_conns.pop(sid, None)
        self._peer_grouping.pop(sid, None)

    def bind_legacy(self, sid: int, legacy_id: str) -> None:
        """A legacy `endpoint` event named the message endpoint's session id: its stream is the session's life."""
        if sid in self._activity:
            self._by_key[("legacy", legacy_id)] = sid
            self._legacy_streams.add(sid)
            self._unpeer(sid)

    def is_legacy_stream(self, sid: int) -> bool:
        return sid in self._legacy_streams

    def close(self, sid: int, reason: str) -> str | None:
        """The session's life ended (its legacy stream closed); the reason to end it now, if nothing is under way."""
        activity = self._activity.get(sid)
        if activity is None:
            return None
        activity.closing = reason
        return reason if activity.in_flight <= 0 else None

    def connection_closed(self, connection: str) -> tuple[int, str] | None:
        """A client connection closed: its connection-keyed session, and the reason, if it ends now."""
        sid = self._by_key.get(("conn", connection))
        if sid is not None and sid in self._peer_conns:  # over once none has been open for peer_gap s
            del self._by_key[("conn", connection)]
            self._peer_conns[sid].discard(connection)
            return None
        if sid is None:
            for conns in self._client_conns.values():
                if connection in conns:  # over once none has been open for CLIENT_GRACE s (`idle`)
                    conns.discard(connection)
            return None
        reason = self.close(sid, "the client closed its connection")
        return (sid, reason) if reason else None

    def quiet(self, sid: int, now: float) -> tuple[float, float | None] | None:
        """How long a session with nothing under way has been quiet, and when (the caller's clock)
        it will be ended if it stays so (None: never on its own); None while an exchange is under way."""
        a = self._activity.get(sid)
        if a is None or a.in_flight > 0:
            return None
        if sid in self._peer_conns and not self._peer_conns[sid]:
            ends: float | None = a.last + self.peer_gap
        elif sid in self._client_conns and not self._client_conns[sid]:
            ends = a.last + CLIENT_GRACE
        else:
            ends = a.last + self.idle_after if self.idle_after is not None else None
        return now - a.last, ends

    def idle(self, now: float) -> list[int]:
        """Sessions with nothing under way for `idle_after` seconds."""
        gone = [
            s
            for s, conns in self._client_conns.items()
            if not conns and self._activity[s].in_flight <= 0 and self._activity[s].last <= now - CLIENT_GRACE
        ]
        gone += [
            s
            for s, conns in self._peer_conns.items()
            if not conns
            and self._activity[s].in_flight <= 0
            and self._activity[s].last <= now - self.peer_gap
        ]
        if self.idle_after is None:
            return gone
        limit = now - self.idle_after
        return gone + [
            s for s, a in self._activity.items() if a.in_flight <= 0 and a.last <= limit and s not in gone
        ]

    def forget(self, sid: int) -> None:
        """The session ended: new traffic under its keys starts a new one."""
        for key in [k for k, v in self._by_key.items() if v == sid]:
            del self._by_key[key]
        self._activity.pop(sid, None)
        self._legacy_streams.discard(sid)
        self._client_conns.pop(sid, None)
        self._grouping.pop(sid, None)
        self._unpeer(sid)

    def open_sessions(self) -> set[int]:
        return set(self._activity)
