"""The gateway's config file (`mcp-inspect proxy --config FILE`): TOML, read by stdlib `tomllib`,
checked by pydantic.

    listen = "127.0.0.1:6280"        # optional; --listen overrides it
    allow_remote = false              # optional; --allow-remote also counts
    allow_hosts = ["gw.example"]      # optional; added to --allow-host
    allow_origins = []                # optional; added to --allow-origin
    allow_shared_credentials = false  # optional; see below

    [[route]]
    name = "github"                   # the recorded sessions' name
    prefix = "/github"                # the upstream's origin is served under this path
    target = "http://127.0.0.1:3001/mcp"
    rewrite_auth_metadata = false     # optional (as --rewrite-auth-metadata)
    faults = "faults.yaml"            # optional; relative to this file (else --faults)
    headers = { "X-Api-Key" = "${DOCS_KEY}" }   # optional; added upstream, ${VAR} from the environment

A route with `headers` (usually credentials) answers only requests carrying the gateway's client
token (`gateway_token.py`: made once, kept 0600 in `FILE.token`, sent as `X-MCP-Inspector-Token`).
`allow_shared_credentials = true` drops that check: every local user (and with allow_remote, the
network) can then use these credentials.

Every mistake is one `InspectorError` line naming the file, the route and the field; the CLI
prints it and exits 2 (no traceback). Pure: reads the file and the environment, opens nothing.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from inspector.errors import InspectorError

__all__ = ["GatewayConfig", "RouteConfig", "load_gateway_config"]

_SEGMENT = re.compile(r"[A-Za-z0-9._~-]+")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# Hop-by-hop and framing headers are the proxy's business, not a route's.
_NOT_ADDABLE = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"}
)


class RouteConfig(BaseModel):
    """One `[[route]]`: a path prefix on the gateway served by one upstream."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    prefix: str
    target: str
    rewrite_auth_metadata: bool = False
    faults: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if value != value.strip() or any(ord(c) < 32 for c in value):
            raise ValueError("must be plain text without surrounding spaces or control characters")
        return value

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        segments = value.split("/")
        if not value.startswith("/") or value == "/" or value.endswith("/"):
            raise ValueError("must be a path like /github (starting with /, not ending with /)")
        if any(not _SEGMENT.fullmatch(s) or s in (".", "..") for s in segments[1:]):
            raise ValueError("may hold only letters, digits and . _ ~ - between slashes")
        if segments[1] == ".well-known":
            raise ValueError("must not be under /.well-known (the gateway routes OAuth discovery there)")
        return value

    @field_validator("target")
    @classmethod
    def _target(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value

    @field_validator("headers")
    @classmethod
    def _headers(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not _HEADER_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a header name")
            if name.lower() in _NOT_ADDABLE:
                raise ValueError(f"{name} is set by the proxy and cannot be added")
            if any(c in text for c in "\r\n\0"):
                raise ValueError(f"the value of {name} holds a line break or NUL")
        return value

    def client_path(self, target: str | None = None) -> str:
        """The path a client is given: the prefix, then the target's own path and query (of
        `target`, the target as shown, e.g. redacted)."""
        parts = urlsplit(target or self.target)
        return self.prefix + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def upstream_headers(self, environ: dict[str, str] | os._Environ[str]) -> list[tuple[bytes, bytes]]:
        """The headers to add upstream, `${VAR}` taken from `environ` (KeyError: the variable's name)."""

        def value(match: re.Match[str]) -> str:
            found = environ.get(match.group(1))
            if found is None:
                raise KeyError(match.group(1))
            return found

        out = []
        for name, text in self.headers.items():
            filled = _ENV.sub(value, text)
            if any(c in filled for c in "\r\n\0"):
                raise ValueError(f"the value of {name} holds a line break or NUL")
            out.append((name.lower().encode("latin-1"), filled.encode("latin-1", "replace")))
        return out


class GatewayConfig(BaseModel):
    """The whole file: listener settings and the routes."""

    model_config = ConfigDict(extra="forbid")

    listen: str | None = None
    allow_remote: bool = False
    allow_hosts: list[str] = Field(default_factory=list)
    allow_origins: list[str] = Field(default_factory=list)
    # Every local user (and with allow_remote, the network) can use the routes' added headers.
    allow_shared_credentials: bool = False
    route: list[RouteConfig] = Field(min_length=1)

    @field_validator("listen")
    @classmethod
    def _listen(cls, value: str | None) -> str | None:
        if value is not None:
            from inspector.transports.serve import parse_listen

            try:
                parse_listen(value)
            except InspectorError as exc:
                raise ValueError(str(exc).replace("--listen wants", "wants")) from None
        return value

    @field_validator("allow_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        from inspector.guard import parse_origins

        try:
            parse_origins(value)
        except InspectorError as exc:
            raise ValueError(str(exc).replace("--allow-origin wants", "wants")) from None
        return value

    @model_validator(mode="after")
    def _distinct(self) -> GatewayConfig:
        names: set[str] = set()
        for route in self.route:
            if route.name in names:
                raise ValueError(f"route {route.name!r}: name is used by another route")
            names.add(route.name)
        prefixes = sorted(self.route, key=lambda r: r.prefix)
        for a, b in zip(prefixes, prefixes[1:], strict=False):
            if b.prefix == a.prefix or b.prefix.startswith(a.prefix + "/"):
                raise ValueError(
                    f"route {b.name!r}: prefix {b.prefix} is inside route {a.name!r}'s {a.prefix}"
                )
        return self


def load_gateway_config(path: str | Path) -> GatewayConfig:
    """The checked config, or an `InspectorError` of one line naming the file, route and field."""
    where = str(path)
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise InspectorError(f"{where}: cannot read the gateway config: {exc.strerror or exc}") from None
    try:
        doc = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise InspectorError(f"{where}: not UTF-8 text (the gateway config is TOML)") from None
    except tomllib.TOMLDecodeError as exc:
        raise InspectorError(f"{where}: not valid TOML: {exc}") from None
    try:
        config = GatewayConfig.model_validate(doc)
    except ValidationError as exc:
        raise InspectorError(f"{where}: {_first_error(exc, doc)}") from None
    base = Path(path).parent
    for route in config.route:
        if route.faults is not None and not os.path.isabs(route.faults):
            route.faults = str(base / route.faults)
        try:
            route.upstream_headers(os.environ)
        except KeyError as missing:
            raise InspectorError(
                f"{where}: route {route.name!r}: headers: ${{{missing.args[0]}}} is not set in the environment"
            ) from None
    return config


def _first_error(exc: ValidationError, doc: Any) -> str:
    """One line for the first problem: `route 'docs': target: must be an http(s) URL, got 'ftp://x'`."""
    err = exc.errors(include_url=False)[0]
    loc = list(err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        message = "is not a setting of the gateway config (a typo?)"
    elif err["type"] == "missing":
        message = "is missing"
    where = ""
    if len(loc) >= 2 and loc[0] == "route" and isinstance(loc[1], int):
        routes = doc.get("route") if isinstance(doc, dict) else None
        entry = routes[loc[1]] if isinstance(routes, list) and loc[1] < len(routes) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        where = f"route {name!r}: " if isinstance(name, str) and name else f"route {loc[1] + 1}: "
        loc = loc[2:]
    elif loc == ["route"] and err["type"] in ("missing", "too_short"):
        return "no [[route]] table: give at least one route (name, prefix, target)"
    field = ".".join(str(part) for part in loc)
    return f"{where}{field}: {message}" if field else f"{where}{message}"
