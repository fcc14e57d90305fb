"""One guard for every HTTP listener the inspector opens (principle 8).

The UI server, the recording proxy, `mock-server --http`, `serve --http` and
the stdio `serve`'s control port all go through this module:

- `check_bind`: a non-loopback interface needs an explicit `--allow-remote`.
- `allowed_hosts`: the `Host` values a listener answers to: 127.0.0.1,
  localhost and [::1] with its port, the interface it was told to bind; with a
  non-loopback bind also this machine's names and addresses; plus any
  `--allow-host` names.
- `ListenerGuard`: a pure ASGI middleware (HTTP and websockets) that refuses
  a foreign `Host` (DNS rebinding) and a foreign `Origin` (cross-site pages;
  `null` too) with 403, and a POST to an MCP endpoint whose body is not
  declared JSON with 415 (a cross-site `<form enctype="text/plain">` needs no
  CORS preflight). A websocket is closed before it is accepted, so the
  handshake gets 403.
- `Access`: what the user opened up on the command line (`--allow-remote`,
  `--allow-host`, `--allow-origin`), carried from the CLI to each listener.

The guard sits on the proxy's forwarding path, so it costs one pass over the
header list and a few set lookups: no decoding, no parsing, no routing.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Container, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson

from inspector.errors import InspectorError

__all__ = [
    "Access",
    "ListenerGuard",
    "allowed_hosts",
    "check_bind",
    "is_loopback",
    "parse_origins",
]

_WILDCARDS = frozenset({"0.0.0.0", "::", ""})
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether an interface name or address is this machine's loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, allow_remote: bool, option: str = "--listen") -> None:
    """Refuse a non-loopback interface unless the user said `--allow-remote`."""
    if not allow_remote and not is_loopback(host):
        raise InspectorError(
            f"{option} {host} would let other machines reach this listener; add --allow-remote to mean it"
        )


def _machine_names() -> set[str]:
    names = {socket.gethostname()}
    with contextlib.suppress(OSError):
        names.add(socket.getfqdn())
    with contextlib.suppress(OSError):
        names.update(str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None))
    return names


def _with_port(name: str, port: int) -> str:
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


def _has_port(name: str) -> bool:
    if name.startswith("["):
        return "]:" in name
    return name.count(":") == 1


def allowed_hosts(bind_host: str, port: int, *, extra: Iterable[str] = ()) -> frozenset[str]:
    """The `Host` header values a listener bound to `bind_host:port` answers to (lower case).

    `extra` names (`--allow-host`) count with this port or without any port (behind a
    reverse proxy on port 80); `NAME:PORT` counts as given.
    """
    names = set(_LOOPBACK_NAMES)
    if not is_loopback(bind_host):
        # Reachable from elsewhere (--allow-remote): answer to this machine's names too.
        names |= _machine_names()
    names.add(bind_host if bind_host else "0.0.0.0")
    hosts = {_with_port(n, port) for n in names}
    if port == 80:
        hosts |= {f"[{n}]" if ":" in n else n for n in names}
    for name in extra:
        name = name.strip()
        if _has_port(name):
            hosts.add(name)
        else:
            hosts.add(_with_port(name.strip("[]"), port))
            hosts.add(f"[{name.strip('[]')}]" if ":" in name else name)
    return frozenset(h.lower() for h in hosts)


def parse_origins(values: Iterable[str]) -> tuple[str, ...]:
    """`--allow-origin` values checked: `null`, or `scheme://host[:port]` with nothing after it."""
    out = []
    for value in values:
        origin = value.strip().rstrip("/").lower()
        if origin != "null":
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
                raise InspectorError(
                    f"--allow-origin wants an origin like http://localhost:5173 (or null), got {value!r}"
                )
        out.append(origin)
    return tuple(out)


@dataclass(frozen=True)
class Access:
    """What the user opened a listener up to: another interface, other Host names, browser origins."""

    allow_remote: bool = False
    hosts: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()

    def guard(
        self, app: Any, bind_host: str, port: int, *, json_paths: Container[str] = frozenset()
    ) -> ListenerGuard:
        """`app` behind the guard, for a listener bound to `bind_host:port`."""
        return ListenerGuard(
            app,
            hosts=allowed_hosts(bind_host, port, extra=self.hosts),
            origins=self.origins,
            json_paths=json_paths,
        )


_ORIGIN_HINT = "; a browser-based client's origin can be allowed with --allow-origin"


class ListenerGuard:
    """ASGI middleware: refuse a foreign Host or Origin (403) and a non-JSON POST to an MCP path (415).

    `origins` are allowed besides this listener's own (`http://` + each allowed host);
    `json_paths` is any container of paths (the proxy's grows as it learns legacy
    endpoints). Lifespan and other scopes pass through untouched.
    """

    def __init__(
        self,
        app: Any,
        *,
        hosts: Iterable[str],
        origins: Iterable[str] = (),
        json_paths: Container[str] = frozenset(),
        origin_hint: bool | None = None,
    ) -> None:
        self.app = app
        self.hosts = frozenset(h.lower().encode("latin-1") for h in hosts)
        explicit = {o.lower().encode("latin-1") for o in origins}
        self.origins = frozenset({b"http://" + h for h in self.hosts} | explicit)
        self.json_paths = json_paths
        self.hint = _ORIGIN_HINT if (origin_hint if origin_hint is not None else bool(json_paths)) else ""

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "http" or kind == "websocket":
            refusal = self.refusal(scope)
            if refusal is not None:
                await refuse(scope, receive, send, *refusal)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: MutableMapping[str, Any]) -> tuple[int, str] | None:
        """Why this request is refused (status, reason), or None to let it through."""
        # One C-level pass (ASGI servers give header names in lower case); a header sent twice
        # keeps its last value, and a browser sends Host and Origin once.
        headers = dict(scope["headers"])
        host = headers.get(b"host")
        if host is None:
            return 403, "a request without a Host header is not allowed (DNS rebinding protection)"
        if host not in self.hosts and host.lower() not in self.hosts:
            return 403, (
                f"Host {_shown(host)} is not a name of this listener (DNS rebinding "
                "protection); use 127.0.0.1 or localhost, or add --allow-host NAME"
            )
        origin = headers.get(b"origin")
        if origin is not None and origin not in self.origins and origin.lower() not in self.origins:
            return 403, f"Origin {_shown(origin)} is not allowed (cross-site request){self.hint}"
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] in self.json_paths:
            content_type = headers.get(b"content-type")
            if content_type != b"application/json" and (
                content_type is None or content_type.split(b";", 1)[0].strip().lower() != b"application/json"
            ):
                return 415, (
                    "an MCP POST must have Content-Type: application/json, got "
                    + (_shown(content_type) if content_type is not None else "none")
                )
        return None


def _shown(value: bytes) -> str:
    return repr(value[:120].decode("latin-1"))


async def refuse(scope: MutableMapping[str, Any], receive: Any, send: Any, status: int, reason: str) -> None:
    """Answer `status` with `{"detail": reason}`; a websocket is closed before accept (403)."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        # A close reason is at most 123 bytes.
        short = reason.encode()[:120].decode(errors="ignore")
        await send({"type": "websocket.close", "code": 1008, "reason": short})
        return
    body = orjson.dumps({"detail": reason})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
