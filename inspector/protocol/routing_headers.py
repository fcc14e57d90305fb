"""The 2026-07-28 routing headers of one recorded HTTP request, decoded and checked against its body.

Sans-IO. The Streamable HTTP transport of 2026-07-28 mirrors body fields into
headers so intermediaries can route without parsing the body
(basic/transports/streamable-http, "Request Metadata"):

* `MCP-Protocol-Version`: the `_meta` `io.modelcontextprotocol/protocolVersion`;
* `Mcp-Method`: the JSON-RPC `method` (every request);
* `Mcp-Name`: `params.name` (`tools/call`, `prompts/get`) or `params.uri`
  (`resources/read`);
* `Mcp-Param-{Name}`: a `tools/call` argument whose property in the tool's
  `inputSchema` carries `"x-mcp-header": "{Name}"`.

`Mcp-Name` and `Mcp-Param-*` values that are not plain header-safe ASCII are
sent as `=?base64?{UTF-8 bytes in base64}?=` ("Value Encoding"). A server
MUST reject (HTTP 400, `HeaderMismatch` -32020) a request whose headers are
missing, malformed or disagree with the body ("Server Validation").

`routing_of` gives one typed `Routing` for a request: each header decoded,
what body value it mirrors, and whether the two agree. The lint rules, the
network view and the message detail all read this one result.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import orjson

from inspector.protocol.sse import stored_body

__all__ = [
    "NAME_FIELDS",
    "HeaderCheck",
    "Routing",
    "decode_value",
    "encode_value",
    "header_string",
    "invalid_param_headers",
    "param_header_values",
    "param_headers",
    "recorded_tool_schemas",
    "routing_of_row",
    "row_body",
    "routing_of",
]

PROTOCOL_VERSION = "MCP-Protocol-Version"
METHOD = "Mcp-Method"
NAME = "Mcp-Name"
PARAM_PREFIX = "Mcp-Param-"
_PV_META = "io.modelcontextprotocol/protocolVersion"
ROUTING_REVISION = "2026-07-28"  # the first revision with Mcp-Method / Mcp-Name / Mcp-Param-*

# Method -> the params key mirrored into Mcp-Name.
NAME_FIELDS: Mapping[str, str] = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

_SENTINEL = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$", re.DOTALL)
_SAFE = re.compile(r"^[\x20-\x7E]*$")  # visible ASCII and space (tab is allowed but never emitted)
_VALID_FIELD = re.compile(r"^[\t\x20-\x7E]*$")  # what RFC 9110 allows in a field value
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")

Agreement = Literal["agrees", "disagrees", "missing", "invalid", "unchecked"]


def encode_value(value: str) -> str:
    """A header value for `value`: as-is when plain header-safe ASCII, else the base64 sentinel form."""
    if _SAFE.match(value) and value == value.strip() and not _SENTINEL.match(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def decode_value(raw: str) -> tuple[str | None, bool, str | None]:
    """(decoded value, whether the sentinel form was used, problem) of one header value.

    The value is None with a problem when the sentinel's payload is not
    canonical base64 of UTF-8 text, or when a plain value has characters a
    header value may not carry.
    """
    found = _SENTINEL.match(raw)
    if found is None:
        if not _VALID_FIELD.match(raw):
            return None, False, "has characters outside visible ASCII, space and tab"
        return raw, False, None
    payload = found.group("payload")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None, True, f"=?base64?...?= payload {payload!r} is not valid base64"
    if base64.b64encode(data).decode("ascii") != payload:
        return None, True, f"=?base64?...?= payload {payload!r} is not canonical base64"
    try:
        return data.decode("utf-8"), True, None
    except UnicodeDecodeError:
        return None, True, "=?base64?...?= payload does not decode to UTF-8 text"


def header_string(value: Any) -> str | None:
    """A body value as its header string (Value Encoding's type conversion), None when it has none."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value
    return None


def _same_integer(header: str | None, body: str) -> bool:
    """Integers compare numerically (the spec's SHOULD: `42.0` and `42` are equal)."""
    if header is None or not re.fullmatch(r"-?[0-9]+", body):
        return False
    found = re.fullmatch(r"(-?[0-9]+)(?:\.0+)?", header)
    return found is not None and int(found.group(1)) == int(body)


def param_headers(input_schema: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    """`x-mcp-header` names (lower-case) of a tool's inputSchema -> (the name, the argument path it mirrors).

    Only properties reachable through a chain of `properties` keys count (the
    spec makes any other placement invalid; such schemas give no headers).
    """
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    stack: list[tuple[tuple[str, ...], Any]] = [((), input_schema)]
    while stack:
        path, schema = stack.pop()
        if not isinstance(schema, dict):
            continue
        props = schema.get("properties")
        if not isinstance(props, dict):
            continue
        for key, sub in props.items():
            if not isinstance(sub, dict):
                continue
            token = sub.get("x-mcp-header")
            if isinstance(token, str) and _TOKEN.match(token):
                out.setdefault(token.lower(), (token, (*path, str(key))))
            stack.append(((*path, str(key)), sub))
    return out


_HEADER_TYPES = frozenset({"string", "integer", "boolean"})


def invalid_param_headers(input_schema: Any) -> str | None:
    """Why a tool's `x-mcp-header` annotations are invalid (server/tools, "x-mcp-header": a non-empty
    token of visible ASCII without space or colon, unique case-insensitively, on a string, integer
    or boolean property only: not a number, whose text form is ambiguous), None when they are valid. A client MUST exclude such a tool."""
    seen: set[str] = set()
    stack: list[Any] = [input_schema]
    while stack:
        schema = stack.pop()
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            continue
        for key, sub in props.items():
            if not isinstance(sub, dict):
                continue
            stack.append(sub)
            if "x-mcp-header" not in sub:
                continue
            token = sub["x-mcp-header"]
            if not isinstance(token, str) or not _TOKEN.match(token):
                return f"property {key!r}: x-mcp-header {token!r} is not a non-empty header-name token"
            if token.lower() in seen:
                return (
                    f"property {key!r}: x-mcp-header {token!r} is declared twice (names are case-insensitive)"
                )
            seen.add(token.lower())
            kind = sub.get("type")
            kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
            if any(k not in _HEADER_TYPES for k in kinds):
                return (
                    f"property {key!r}: x-mcp-header on a {kind} property (string, integer or boolean only)"
                )
    return None


def param_header_values(input_schema: Any, arguments: Any) -> list[tuple[str, str]]:
    """The `Mcp-Param-*` headers a client sends with a `tools/call` ("Client Behavior"): each
    `x-mcp-header` argument that has a value, encoded; one that is null or absent is omitted."""
    out = []
    for token, path in sorted(param_headers(input_schema).values()):
        rendered = header_string(_at(arguments, path))
        if rendered is not None:
            out.append((PARAM_PREFIX + token, encode_value(rendered)))
    return out


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    value = arguments
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


@dataclass(frozen=True)
class HeaderCheck:
    """One routing header: as sent, decoded, the body value it mirrors and whether they agree.

    `status`: `agrees`, `disagrees`, `missing` (required but not sent),
    `invalid` (the value could not be decoded), or `unchecked` (nothing in
    the recording says what it should mirror, e.g. an `Mcp-Param-*` header
    without the tool's recorded inputSchema).
    """

    name: str
    raw: str | None
    decoded: str | None
    encoded: bool
    source: str | None  # the body field it mirrors, e.g. `params.name`
    expected: str | None  # that field's value as a header string
    status: Agreement
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Routing:
    """The routing headers of one HTTP request, checked against its JSON-RPC body.

    `required` is True for a 2026-07-28 POST carrying a request (the headers
    are then REQUIRED); an older request is described but nothing is missing.
    """

    method: str | None
    revision: str | None
    required: bool
    headers: list[HeaderCheck] = field(default_factory=list)

    @property
    def problems(self) -> list[HeaderCheck]:
        return [h for h in self.headers if h.status in ("disagrees", "missing", "invalid")]

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "revision": self.revision,
            "required": self.required,
            "headers": [h.to_json() for h in self.headers],
        }


def _pairs(headers: Mapping[str, str] | Iterable[Any] | None) -> list[tuple[str, str]]:
    items = headers.items() if isinstance(headers, Mapping) else (headers or [])
    return [(str(p[0]), str(p[1])) for p in items if isinstance(p, (list, tuple)) and len(p) == 2]


def _check(
    name: str, raw: str | None, source: str | None, expected: str | None, *, required: bool, encodable: bool
) -> HeaderCheck | None:
    if raw is None:
        if expected is None or not required:
            return None
        return HeaderCheck(name, None, None, False, source, expected, "missing", f"{name} not sent")
    if encodable:
        decoded, encoded, problem = decode_value(raw)
    else:
        decoded, encoded = raw, False
        problem = None if _VALID_FIELD.match(raw) else "has characters outside visible ASCII, space and tab"
        decoded = None if problem else raw
    if problem is not None:
        return HeaderCheck(name, raw, None, encoded, source, expected, "invalid", problem)
    if source is None:
        return HeaderCheck(name, raw, decoded, encoded, None, None, "unchecked")
    if expected is None:
        return HeaderCheck(
            name, raw, decoded, encoded, source, None, "disagrees", f"the body has no {source}"
        )
    status: Agreement = "agrees" if decoded == expected or _same_integer(decoded, expected) else "disagrees"
    why = None if status == "agrees" else f"header {decoded!r}, body {source} {expected!r}"
    return HeaderCheck(name, raw, decoded, encoded, source, expected, status, why)


def routing_of(
    headers: Mapping[str, str] | Iterable[Any] | None,
    body: Any,
    *,
    http_method: str = "POST",
    tool_schemas: Mapping[str, Any] | None = None,
) -> Routing | None:
    """The routing headers of a request whose parsed JSON body is `body` (None: not a JSON-RPC request).

    `tool_schemas` maps tool names to the inputSchema the session's recorded
    `tools/list` gave; without the called tool's schema `Mcp-Param-*`
    headers are shown but not checked.
    """
    if not isinstance(body, dict) or not isinstance(body.get("method"), str) or "id" not in body:
        return None
    pairs = _pairs(headers)
    by_name: dict[str, str] = {}
    for key, value in pairs:
        by_name.setdefault(key.lower(), value)  # the first copy, as most servers read it
    method = str(body["method"])
    found_params = body.get("params")
    params: dict[str, Any] = found_params if isinstance(found_params, dict) else {}
    found_meta = params.get("_meta")
    meta: dict[str, Any] = found_meta if isinstance(found_meta, dict) else {}
    meta_version = meta.get(_PV_META) if isinstance(meta.get(_PV_META), str) else None
    sent_version = by_name.get(PROTOCOL_VERSION.lower())
    revision = meta_version or sent_version
    required = http_method.upper() == "POST" and revision is not None and revision >= ROUTING_REVISION
    out: list[HeaderCheck] = []

    def add(found: HeaderCheck | None) -> None:
        if found is not None:
            out.append(found)

    if meta_version is not None:
        add(
            _check(
                PROTOCOL_VERSION,
                sent_version,
                f"_meta[{_PV_META}]",
                meta_version,
                required=required,
                encodable=False,
            )
        )
    elif sent_version is not None:
        add(_check(PROTOCOL_VERSION, sent_version, None, None, required=False, encodable=False))
    add(_check(METHOD, by_name.get(METHOD.lower()), "method", method, required=required, encodable=False))
    name_key = NAME_FIELDS.get(method)
    if name_key is not None:
        add(
            _check(
                NAME,
                by_name.get(NAME.lower()),
                f"params.{name_key}",
                header_string(params.get(name_key)),
                required=required,
                encodable=True,
            )
        )
    elif (sent := by_name.get(NAME.lower())) is not None:
        add(
            _check(
                NAME, sent, "params.name", header_string(params.get("name")), required=False, encodable=True
            )
        )
    out.extend(_param_checks(pairs, method, params, tool_schemas, required=required))
    return Routing(method, revision, required, out)


def _param_checks(
    pairs: list[tuple[str, str]],
    method: str,
    params: dict[str, Any],
    tool_schemas: Mapping[str, Any] | None,
    *,
    required: bool,
) -> list[HeaderCheck]:
    sent = {k.lower(): (k, v) for k, v in reversed(pairs) if k.lower().startswith(PARAM_PREFIX.lower())}
    schema = None
    if method == "tools/call" and tool_schemas is not None:
        schema = tool_schemas.get(str(params.get("name")))
    annotated = param_headers(schema) if schema is not None else {}
    arguments = params.get("arguments")
    out: list[HeaderCheck] = []
    for lower, (shown, raw) in sorted(sent.items()):
        token = lower[len(PARAM_PREFIX) :]
        path = annotated[token][1] if token in annotated else None
        if path is None:  # no schema recorded, or a header the tool does not declare: shown, not judged
            found = _check(shown, raw, None, None, required=False, encodable=True)
        else:
            source = "params.arguments." + ".".join(path)
            found = _check(
                shown, raw, source, header_string(_at(arguments, path)), required=required, encodable=True
            )
        if found is not None:
            out.append(found)
    for lower, (token, path) in sorted(annotated.items()):
        if f"{PARAM_PREFIX.lower()}{lower}" in sent:
            continue
        value = header_string(_at(arguments, path))
        source = "params.arguments." + ".".join(path)
        found = _check(f"{PARAM_PREFIX}{token}", None, source, value, required=required, encodable=True)
        if found is not None:
            out.append(found)
    return out


def row_body(row: Mapping[str, Any]) -> Any:
    raw = row.get("raw")
    if raw is None:
        return None
    try:
        return orjson.loads(stored_body(row.get("channel"), bytes(raw)))
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None


def recorded_tool_schemas(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Tool name -> inputSchema, from every `tools/list` answer among `rows`."""
    schemas: dict[str, Any] = {}
    for row in rows:
        if (
            row.get("method") != "tools/list"
            or row.get("direction") != "s2c"
            or row.get("kind") != "response"
        ):
            continue
        body = row_body(row)
        result = body.get("result") if isinstance(body, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        for tool in tools if isinstance(tools, list) else []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                schemas[tool["name"]] = tool.get("inputSchema")
    return schemas


def routing_of_row(row: Mapping[str, Any], tool_schemas: dict[str, Any] | None = None) -> Routing | None:
    """The routing headers of a recorded HTTP request row (None for any other row)."""
    if row.get("channel") != "http-request" or row.get("http_headers") is None:
        return None
    return routing_of(
        row.get("http_headers"),
        row_body(row),
        http_method=str(row.get("http_method") or "POST"),
        tool_schemas=tool_schemas,
    )
