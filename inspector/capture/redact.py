"""Secrets never at rest: the one redaction step between captured bytes and stored rows.

The recorder passes every row any producer builds (wrap, proxy, mock client,
replay, serve, mock-server) through `Redaction.row` before a subscriber (the
store, the live feed) sees it, and `create_session` passes the session's
target through `Redaction.target`. What is redacted:

- names are judged by ONE rule, `secret_name`, wherever names are looked at
  (headers, query parameters, form and JSON fields of OAuth exchanges, command
  lines, log lines): the name is split into tokens (camelCase, `-`, `_`, `.`)
  and is a secret when a whole token is auth, authentication, token, secret,
  key, apikey, pass, passwd, password, pwd, credential(s), signature, sig,
  session, jwt or cookie, or ends with a compound (`accesstoken`, `x-apikey`,
  `jsessionid`), unless its last token says what kind or where (`token_type`,
  `token_endpoint`, `--token-file`, `max_tokens`, identifiers: `key_id`,
  `Mcp-Session-Id`, the legacy transport's `sessionId`) or its first token
  switches something (`--no-auth`); "author", "keyboard", "passage" are not
  secrets. Each place adds its own exact names (below);
- headers: Authorization and Proxy-Authorization (the scheme stays:
  `Bearer [secret:authorization]`), Cookie, Set-Cookie (cookie name and
  attributes stay), and the rule's names; a 2026-07-28 `Mcp-Param-*` header
  mirroring a redacted `tools/call` argument gets the argument's placeholder
  (decoded first: the `=?base64?...?=` form too), and one named for a
  `--redact` name or `--redact-path` leaf `[secret:mcp-param-NAME]`;
- query parameters (in `http_path`, URL targets and Location/Referer headers): the rule's names
  and api_key, key, token, code, state, ...: `[secret:query.NAME]`;
  a URL's userinfo password: `[secret:url.password]`;
- a command line (a stdio target's argv): the word after `--api-key`-like flags,
  `--token=V` and `GITHUB_TOKEN=V` words' values, `Name: value` header words:
  `[secret:arg.api-key]`, `[secret:arg.github_token]`;
- a server's stderr lines (free text): credentials after `Bearer`/`Basic`,
  `NAME=VALUE` / `NAME: VALUE` where NAME names a secret, URLs' secrets
  (`redact_text.py`): `[secret:log.NAME]`;
- OAuth exchanges: the rule's names and code, code_verifier, assertion, ... in
  form or JSON bodies (string values) of HTTP rows that are not JSON-RPC
  (token endpoint requests and responses, registration responses):
  `[secret:body.NAME]`;
- what the user adds: names (`--redact NAME`, a header, query parameter or body
  key anywhere, JSON-RPC bodies included) and JSON paths (`--redact-path
  params.arguments.api_key`, `*` for any one key), also from
  $MCP_INSPECTOR_REDACT and the config file's `redact` (`inspector/settings.py`;
  an entry with a dot is a path), all of them added together; and per server,
  the `redact` names of the config file's first `[[servers]]` rule matching a
  session's name, command line or URL (`Redaction.for_server`: the session's
  own rules, `capture/sessions.py`, that redact its target and, handed to the
  recorder with it, its rows only).

A body keeps every byte but the secret's: the value's text is replaced (JSON
stays valid JSON), and `meta.redacted` names what was replaced, never the
values. A replay puts secrets back (`resolve_secrets`) from `--secret
NAME=VALUE` or $MCP_INSPECTOR_SECRET_NAME, inserted exactly as given, i.e.
as the text was on the wire. `--keep-secrets` turns the step off.

The check is cheap where traffic is heavy: a JSON-RPC row with no HTTP
metadata is only looked at when the user configured names or paths, and then
only parsed when one of them occurs in its bytes.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_plus, urlsplit

import orjson

from inspector.capture.json_spans import value_spans
from inspector.capture.redact_text import redact_line
from inspector.protocol.routing_headers import PARAM_PREFIX, decode_value, header_string
from inspector.protocol.sse import stored_body

if TYPE_CHECKING:
    from inspector.settings import Settings
    from inspector.store.models import MessageRow

__all__ = [
    "REDACT_ENV",
    "Redaction",
    "active",
    "configure",
    "file_settings",
    "header_pairs",
    "placeholder",
    "Secrets",
    "missing_command_secrets_message",
    "missing_secrets_message",
    "resolve_secrets",
    "rules_from",
    "secret_env_var",
]

REDACT_ENV = "MCP_INSPECTOR_REDACT"

_HEADER_NAMES = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_PARAM_PREFIX = PARAM_PREFIX.lower()  # 2026-07-28: a tools/call argument mirrored into a header
_URL_HEADERS = frozenset({"location", "content-location", "referer"})  # their URL's query may carry a code
# The one name rule (`secret_name`): a name is split into tokens (camelCase, `-`, `_`, `.`, digits);
# it names a secret when a token is one of these, whole ("author", "keyboard", "passage" are not) ...
_SECRET_TOKENS = frozenset(
    {
        "auth", "authentication", "token", "secret", "secrets", "key", "apikey", "pass", "passwd",
        "password", "passwords", "passphrase", "passcode", "pwd", "credential", "credentials",
        "signature", "sig", "session", "jwt", "cookie",
    }
)  # fmt: skip
# ... or ends with one of these (`accesstoken`, `x-apikey`, `JSESSIONID`, `mysecretkey`: header names
# come in lower case, HTTP/2 always) but not "key" ("monkey"), "pass" ("compass"), "auth" ("oauth") ...
_SECRET_COMPOUNDS = (
    "token", "secret", "apikey", "accesskey", "secretkey", "privatekey", "signingkey", "sessionkey",
    "authkey", "masterkey", "clientkey", "subscriptionkey", "functionkey", "password", "passwd",
    "passphrase", "jsessionid", "phpsessid", "sessid", "credentials", "credential", "signature",
)  # fmt: skip
# ... unless the name says where a secret is, what kind, how many, or switches something: its last
# token is one of these (`token_endpoint`, `token_type`, `--token-file`, `max_tokens`, `key_id`,
# `Mcp-Session-Id`, the legacy transport's `sessionId`: identifiers, not credentials) ...
_NOT_SECRET_LAST = frozenset(
    {
        "file", "path", "dir", "env", "var", "url", "uri", "endpoint", "endpoints", "type", "types",
        "name", "names", "id", "ids", "length", "count", "tokens", "supported", "method", "methods",
        "server", "servers", "header", "headers", "expires", "at", "in", "alg", "required",
    }
)  # fmt: skip
# ... or its first token one of these (`--no-auth`, `--keep-secrets`, `use_session`).
_NOT_SECRET_FIRST = frozenset(
    {
        "max", "min", "num", "no", "keep", "use", "with", "without", "skip", "show", "hide", "print",
        "require", "allow", "enable", "disable",
    }
)  # fmt: skip
_NAME_TOKENS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORDS_WHOLE = frozenset({"oauth"})  # not split at its capitals: `OAuth` is no `auth`
# Names seen -> whether `secret_name` says secret: a proxy sees the same dozen header names on every
# exchange, and the rule was most of a header's redaction cost.
_PATTERN_HITS: dict[str, bool] = {}
_PATTERN_HITS_MAX = 4096  # names are the client's to choose: past this many, worked out each time


def name_tokens(name: str) -> list[str]:
    """`name`'s tokens, lower case: `X-Amz-Credential` -> x, amz, credential; `sessionToken` ->
    session, token; `APIKey` -> api, key; `OAuth` -> oauth."""
    out: list[str] = []
    for word in re.split(r"[^A-Za-z0-9]+", name):
        if word.lower() in _WORDS_WHOLE:
            out.append(word.lower())
        else:
            out += [t.lower() for t in _NAME_TOKENS.findall(word)]
    return out


def secret_name(name: str) -> bool:
    """Whether a header, query parameter, form or JSON key, command-line flag or log name names a
    secret: the one rule of every place names are looked at (each place adds its own exact names,
    e.g. a query's `code` and `state`). Case-insensitive; whole tokens only."""
    hit = _PATTERN_HITS.get(name)
    if hit is not None:
        return hit
    tokens = name_tokens(name)
    hit = (
        bool(tokens)
        and tokens[:2] != ["access", "control"]  # CORS policy (`...-Allow-Credentials: true`), no credential
        and tokens[-1] not in _NOT_SECRET_LAST
        and not (len(tokens) > 1 and tokens[0] in _NOT_SECRET_FIRST)
        and any(t in _SECRET_TOKENS or t.endswith(_SECRET_COMPOUNDS) for t in tokens)
    )
    if len(_PATTERN_HITS) < _PATTERN_HITS_MAX:
        _PATTERN_HITS[name] = hit
    return hit


_QUERY_NAMES = frozenset(
    {
        "api_key",
        "apikey",
        "api-key",
        "key",
        "token",
        "inspector_token",  # the gateway's client token (taken off before recording; in case)
        "access_token",
        "refresh_token",
        "id_token",
        "code",
        "state",
        "client_secret",
        "code_verifier",
        "client_assertion",
        "assertion",
        "password",
        "secret",
        "sig",
        "signature",
        "x-amz-signature",
        "x-amz-security-token",
    }
)
# Body keys of OAuth token, authorization and registration exchanges (not looked for in JSON-RPC bodies:
# `code` there is a tool's output, `state` a resource's).
_BODY_NAMES = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "registration_access_token",
        "code",
        "code_verifier",
        "client_secret",
        "client_assertion",
        "assertion",
        "password",
        "device_code",
        "subject_token",
        "actor_token",
    }
)
# A body of an HTTP row that is not JSON-RPC is parsed when one of these occurs in it: they are in
# every `_BODY_NAMES` name and every name `secret_name` says is secret.
_BODY_NEEDLE = re.compile(rb"(?i)auth|token|secret|key|pass|pwd|cred|sig|session|jwt|cookie|code|assertion")
_JSONRPC_KINDS = frozenset({"request", "notification", "response", "error", "batch"})
_HTTP_CHANNELS = frozenset({"http-request", "http-response", "sse"})
_SSE_LINES = re.compile(rb"\r\n|\r|\n")
_FORM = re.compile(rb"[^&=\s]+=[^&\s]*(?:&[^&=\s]*(?:=[^&\s]*)?)*")
_PLACEHOLDER = re.compile(r"\[secret:([a-z0-9_.-]+)\]")
_PLACEHOLDER_BYTES = re.compile(rb"\[secret:([a-z0-9_.-]+)\]")
_UNSAFE = re.compile(r"[^a-z0-9_.-]")
# Command-line words: `--NAME`/`-NAME` flags and `NAME=VALUE` (environment-style) words.
_ARG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_ARG_NAMES = frozenset({"pat"})  # a command line's own exact names (GitHub's `--pat`)
_ARG_HEADER = re.compile(r"([A-Za-z0-9_-]+):\s*(\S.*)", re.DOTALL)


def placeholder(name: str) -> str:
    """The text stored in place of a secret; `name` says what it was (`query.api_key`)."""
    return f"[secret:{_UNSAFE.sub('_', name.lower())}]"


def secret_env_var(name: str) -> str:
    """The environment variable a replay reads a secret from."""
    return "MCP_INSPECTOR_SECRET_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


def header_pairs(headers: Iterable[tuple[bytes, bytes]]) -> list[list[str]]:
    """Raw (name, value) header pairs as the JSON-ready [name, value] lists a row stores."""
    return [[name.decode("latin-1"), value.decode("latin-1")] for name, value in headers]


@dataclass(frozen=True)
class Redaction:
    """What to redact: the built-in rules plus the user's names and JSON paths (or nothing: `keep`)."""

    names: frozenset[str] = frozenset()  # user names: headers, query parameters, body keys (lower case)
    paths: tuple[tuple[str, ...], ...] = ()  # user JSON paths, `*` for any one key
    keep: bool = False
    values: tuple[tuple[str, str], ...] = ()  # literal secret -> name (a replay's own secrets)
    spellings: tuple[str, ...] = ()  # the names as the user typed them (`apiKey`): what bodies contain
    # Per-server rules of the config file, in order: (glob, names as typed); the first match wins.
    servers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    _needles: tuple[bytes, ...] = field(default=(), compare=False, repr=False)
    _leaves: frozenset[str] = field(default=frozenset(), compare=False, repr=False)  # paths' last keys

    def __post_init__(self) -> None:
        needles = {n.encode() for n in (*self.names, *self.spellings)}
        for path in self.paths:
            leaf = next((k for k in reversed(path) if k != "*"), None)
            if leaf is None:
                needles.add(b"")  # a path of wildcards only: every body is a candidate
            else:
                needles.add(leaf.encode())
        object.__setattr__(self, "_needles", tuple(sorted(needles)))
        object.__setattr__(self, "_leaves", frozenset(p[-1].lower() for p in self.paths if p[-1] != "*"))

    @classmethod
    def from_config(
        cls,
        names: Iterable[str] = (),
        paths: Iterable[str] = (),
        *,
        keep: bool = False,
        environ: Mapping[str, str] | None = None,
        settings: Settings | None = None,
    ) -> Redaction:
        """The rules for these flags plus $MCP_INSPECTOR_REDACT plus `settings` (the config file's
        `redact` names and its per-server rules); a bad path is a ValueError."""
        env = (environ if environ is not None else os.environ).get(REDACT_ENV, "")
        entries = [e.strip() for e in env.split(",") if e.strip()]
        if settings is not None:
            entries += [e.strip() for e in settings.redact if e.strip()]
        all_names = [*names, *(e for e in entries if "." not in e)]
        all_paths = [*paths, *(e for e in entries if "." in e)]
        parsed = []
        for path in all_paths:
            parts = tuple(path.split("."))
            if not path or any(not p for p in parts):
                raise ValueError(
                    f"not a JSON path: {path!r} (keys joined by dots, e.g. params.arguments.api_key)"
                )
            parsed.append(parts)
        typed = tuple(dict.fromkeys(n.strip() for n in all_names if n.strip()))
        servers = tuple(
            (rule.match.lower(), tuple(n.strip() for n in rule.redact if n.strip()))
            for rule in (settings.servers if settings is not None else ())
        )
        return cls(
            frozenset(n.lower() for n in typed), tuple(dict.fromkeys(parsed)), keep=keep,
            spellings=typed, servers=servers,
        )  # fmt: skip

    def for_server(self, name: str | None, target: Any) -> Redaction:
        """These rules plus the `redact` names of the first per-server rule matching the session's
        name, command line (a list target) or URL (a str target); self when none adds a name."""
        if self.keep or not self.servers:
            return self
        line = " ".join(target) if isinstance(target, list) else target if isinstance(target, str) else None
        candidates = [c.lower() for c in (name, line) if isinstance(c, str)]
        for pattern, names in self.servers:
            if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
                extra = [n for n in names if n.lower() not in self.names]
                if not extra:
                    return self
                words = tuple(n for n in extra if "." not in n)
                paths = tuple(tuple(n.split(".")) for n in extra if "." in n and all(n.split(".")))
                return replace(
                    self,
                    names=self.names | {n.lower() for n in words},
                    spellings=self.spellings + words,
                    paths=self.paths + paths,
                )
        return self

    def with_values(self, secrets: Mapping[str, str]) -> Redaction:
        """Also redact these literal values wherever they occur (a replay knows what it put back)."""
        found = tuple((v, k) for k, v in secrets.items() if len(v) >= 4)
        return replace(self, values=self.values + found)

    def cli_args(self) -> list[str]:
        """The flags that give a child `mcp-inspect` process these rules."""
        args = [f"--redact={n}" for n in sorted(set(self.spellings) or self.names)]
        args += [f"--redact-path={'.'.join(p)}" for p in self.paths]
        return [*args, "--keep-secrets"] if self.keep else args

    # -- rows ---------------------------------------------------------------------------------------

    def row(self, row: MessageRow) -> None:
        """Redact one message row in place (raw, http_path, http_headers); note what in `meta`."""
        headers = row["http_headers"]
        path = row["http_path"]
        if self.keep or (
            headers is None
            and path is None
            and not self._needles
            and not self.values
            and row["channel"] not in _HTTP_CHANNELS
            and row["channel"] != "stderr"
        ):
            return  # a stdio row with nothing configured: the hot path
        done: list[str] = []
        # A redirect's body often repeats its Location (Express: "Found. Redirecting to URL", an
        # HTML link): the secret `name=value` pairs of URL headers are replaced there too.
        echoed = self._url_header_pairs(headers) if headers else []
        # The values redacted from a request's body, as header strings -> their placeholder names:
        # a 2026-07-28 `Mcp-Param-*` header mirroring one of them is the same secret.
        mirrored: dict[str, str] = {}
        raw = row["raw"]
        new = raw
        if raw:
            if row["channel"] == "sse":
                new = self._sse(raw, row, done)
            else:
                new = self._body(raw, row, done, mirrored if row["channel"] == "http-request" else None)
        if headers:
            row["http_headers"] = self._headers(headers, done, mirrored)
        if path is not None and "?" in path:
            row["http_path"] = self._url_query(path, done)
        if raw:
            for pair, replacement, name in echoed:
                if pair in new:
                    new = new.replace(pair, replacement)
                    done.append(name)
            if new is not raw:
                row["raw"] = new
                if row.get("parse_status") != "truncated":  # a cut row's size is the whole message's
                    row["size"] = len(new)
        if done:
            meta = row["meta"] or {}
            row["meta"] = {**meta, "redacted": sorted({*meta.get("redacted", ()), *done})}

    def target(self, target: Any) -> Any:
        """A session's target with its secrets redacted: a URL's, or a command's (`argv`)."""
        if self.keep:
            return target
        if isinstance(target, str):
            return self.url(target)
        if isinstance(target, list) and all(isinstance(t, str) for t in target):
            return self.argv(target)
        return target

    def argv(self, argv: list[str]) -> list[str]:
        """A command line with secrets redacted: the value after a flag named like a secret
        (`--api-key V`), a `--token=V` or `GITHUB_TOKEN=V` word's value, and URLs' secrets.
        Placeholders are `[secret:arg.NAME]` (NAME as typed, without dashes, lower case)."""
        done: list[str] = []
        out = list(argv)
        for i, word in enumerate(argv):
            if i == 0:
                continue  # the program
            name = _flag_name(argv[i - 1])
            if name is not None and self._secret_arg(name) and not word.startswith("-"):
                out[i] = placeholder("arg." + name)
                continue
            key, eq, value = word.partition("=")
            key = key.lstrip("-")
            if eq and value and _ARG_NAME.fullmatch(key) and self._secret_arg(key.lower()):
                out[i] = word[: len(word) - len(value)] + placeholder("arg." + key)
            elif "://" in word:
                out[i] = self.url(word)
            elif (header := _ARG_HEADER.fullmatch(word)) and self._secret_header(header[1]):
                out[i] = (
                    f"{header[1]}: {_header_value(header[1].lower(), header[2])}"  # --header 'Authorization: ...'
                )
            elif self.values:
                out[i] = self._literal(word, done)
        return out

    def _secret_arg(self, lower: str) -> bool:
        """A flag or NAME=VALUE name that names a secret (and not where to find one: `--token-file`)."""
        return lower in self.names or lower in _ARG_NAMES or secret_name(lower)

    def url(self, url: str) -> str:
        """A URL with its query secrets and userinfo password redacted."""
        if self.keep:
            return url
        done: list[str] = []
        parts = urlsplit(url)
        if parts.password:
            at = url.find("@", len(parts.scheme))
            colon = url.rfind(":", 0, at)
            url = url[: colon + 1] + placeholder("url.password") + url[at:]
        return self._literal(self._url_query(url, done), done)

    # -- the parts ----------------------------------------------------------------------------------

    def _secret_header(self, name: str) -> bool:
        """`name` as sent: an HTTP/1.1 `X-AccessToken`'s capitals split it (HTTP/2 sends lower case)."""
        lower = name.lower()
        return lower in _HEADER_NAMES or lower in self.names or secret_name(name)

    def _headers(self, headers: Any, done: list[str], mirrored: Mapping[str, str]) -> list[list[str]]:
        out = []
        for name, value in headers.items() if isinstance(headers, dict) else headers:
            lower = name.lower()
            if lower.startswith(_PARAM_PREFIX) and "[secret:" not in value:
                secret = self._param_header(lower, value, mirrored)
                if secret is not None:
                    out.append([name, placeholder(secret)])
                    done.append(secret)
                    continue
            if self._secret_header(name) and "[secret:" not in value:
                value = _header_value(lower, value)
                done.append(f"header.{lower}")
            elif lower in _URL_HEADERS and "?" in value:
                value = self._url_query(value, done)
            elif self.values:
                value = self._literal(value, done)
            out.append([name, value])
        return out

    def _param_header(self, lower: str, value: str, mirrored: Mapping[str, str]) -> str | None:
        """The placeholder name for a tools/call argument's `Mcp-Param-NAME` header that mirrors a
        secret: the body value's own (header and body then still agree) when the header, decoded,
        is a value redacted from the body; else `mcp-param-NAME` when NAME is a `--redact` name or
        a `--redact-path` leaf; None when it is no secret of the user's."""
        if mirrored:
            decoded = decode_value(value)[0]
            found = mirrored.get(decoded if decoded is not None else value)
            if found is not None:
                return found
        suffix = lower[len(_PARAM_PREFIX) :]
        if suffix in self.names or suffix in self._leaves:
            return lower
        return None

    def _url_header_pairs(self, headers: Any) -> list[tuple[bytes, bytes, str]]:
        """(`name=value`, `name=[secret:query.name]`, placeholder name) for each secret query
        parameter of a Location-like header."""
        out = []
        for name, value in headers.items() if isinstance(headers, dict) else headers:
            if name.lower() not in _URL_HEADERS or "?" not in value:
                continue
            query = value.partition("?")[2].partition("#")[0].encode("latin-1", "replace")
            for start, end, key in _form_spans(query):
                if self._secret_query(key):
                    pair = query[query.rfind(b"&", 0, start) + 1 : end]
                    label = f"query.{key.lower()}"
                    kept = pair[: len(pair) - (end - start)]  # `name=`
                    out.append((pair, kept + placeholder(label).encode(), label))
        return out

    def _url_query(self, url: str, done: list[str]) -> str:
        head, sep, rest = url.partition("?")
        if not sep:
            return self._literal(url, done) if self.values else url
        query, hash_, fragment = rest.partition("#")
        spans = [
            (s, e, f"query.{key.lower()}")
            for s, e, key in _form_spans(query.encode("latin-1", "replace"))
            if self._secret_query(key)
        ]
        if spans:
            query = _splice(query.encode("latin-1", "replace"), spans, done).decode("latin-1")
        out = f"{head}?{query}{hash_}{fragment}"
        return self._literal(out, done) if self.values else out

    def _secret_query(self, key: str) -> bool:
        lower = key.lower()
        return lower in _QUERY_NAMES or lower in self.names or secret_name(key)

    def _sse(self, raw: bytes, row: MessageRow, done: list[str]) -> bytes:
        """An SSE event's bytes: its data redacted as a body, the framing around it kept."""
        data = stored_body("sse", raw)
        if data is raw or not data:
            return self._body(raw, row, done)  # an old row holding the data alone, or no data
        new = self._body(data, row, done)
        if new == data:
            return raw
        if raw.count(data) == 1:  # one data line: only the value changes
            return raw.replace(data, new)
        # Data over several lines: the other fields as sent, the data lines rebuilt.
        fields = [line for line in _SSE_LINES.split(raw) if line and not line.startswith(b"data")]
        return b"\n".join([*fields, *(b"data: " + line for line in new.split(b"\n"))]) + b"\n\n"

    def _body(
        self, raw: bytes, row: MessageRow, done: list[str], mirrored: dict[str, str] | None = None
    ) -> bytes:
        if row["channel"] == "stderr":  # a server's log line: free text (redact_text.py)
            out = redact_line(raw, self._secret_arg, self.url, done)
            return self._literal_bytes(out, done) if self.values else out
        jsonrpc = row["kind"] in _JSONRPC_KINDS
        if jsonrpc or row["channel"] not in _HTTP_CHANNELS:
            # JSON-RPC and stdio rows: only what the user asked for.
            if not self._needles or not any(n in raw for n in self._needles):
                return self._literal_bytes(raw, done) if self.values else raw
            out = self._json(raw, False, done, mirrored)
        elif _BODY_NEEDLE.search(raw) is not None or (self._needles and any(n in raw for n in self._needles)):
            out = self._json(raw, True, done) if raw.lstrip()[:1] in (b"{", b"[") else self._form(raw, done)
        else:
            out = raw
        return self._literal_bytes(out, done) if self.values else out

    def _json(
        self, raw: bytes, oauth: bool, done: list[str], mirrored: dict[str, str] | None = None
    ) -> bytes:
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw  # not JSON: nothing to find keys in
        start = len(raw) - len(raw.lstrip())
        spans = value_spans(raw, lambda path: self._want(path, oauth), start)
        if mirrored is not None:
            for s, e, name in spans:
                shown = header_string(orjson.loads(raw[s:e]))
                if shown:
                    mirrored.setdefault(shown, name)
        return _splice(raw, spans, done, quote=True) if spans else raw

    def _want(self, path: tuple[str, ...], oauth: bool) -> tuple[str, bool] | None:
        key = path[-1].lower()
        for pattern in self.paths:
            if len(pattern) == len(path) and all(p in ("*", k) for p, k in zip(pattern, path, strict=True)):
                return "body." + ".".join(path), False
        if key in self.names:
            return f"body.{key}", False
        if oauth and (key in _BODY_NAMES or secret_name(path[-1])):
            return f"body.{key}", True
        return None

    def _form(self, raw: bytes, done: list[str]) -> bytes:
        if _FORM.fullmatch(raw.strip()) is None:
            return raw
        names = _BODY_NAMES | self.names
        spans = [
            (s, e, f"body.{k.lower()}")
            for s, e, k in _form_spans(raw)
            if k.lower() in names or secret_name(k)
        ]
        return _splice(raw, spans, done) if spans else raw

    def _literal(self, text: str, done: list[str]) -> str:
        for value, name in self.values:
            if value in text:
                text = text.replace(value, placeholder(name))
                done.append(name)
        return text

    def _literal_bytes(self, raw: bytes, done: list[str]) -> bytes:
        for value, name in self.values:
            secret = value.encode()
            if secret in raw:
                raw = raw.replace(secret, placeholder(name).encode())
                done.append(name)
        return raw


def _flag_name(word: str) -> str | None:
    """`api-key` for `--api-key` or `-api-key`; None for a word that is not a flag."""
    if not word.startswith("-") or word in ("-", "--"):
        return None
    name = word.lstrip("-")
    return name.lower() if _ARG_NAME.fullmatch(name) else None


def _header_value(lower: str, value: str) -> str:
    if lower in ("authorization", "proxy-authorization"):
        scheme, sep, _secret = value.partition(" ")
        return f"{scheme} {placeholder(lower)}" if sep else placeholder(lower)
    if lower == "set-cookie":
        # The cookie's name and attributes say what was set; only its value is the secret.
        first, sep, attributes = value.partition(";")
        cookie, eq, _value = first.partition("=")
        if eq:
            return f"{cookie}={placeholder('set-cookie.' + cookie.strip())}{sep}{attributes}"
    return placeholder(lower)


def _form_spans(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, decoded name) of each `name=value` pair's value in a query or form body."""
    out = []
    pos = 0
    for part in data.split(b"&"):
        name, eq, value = part.partition(b"=")
        if eq and value:
            start = pos + len(name) + 1
            out.append((start, start + len(value), unquote_plus(name.decode("latin-1"))))
        pos += len(part) + 1
    return out


def _splice(data: bytes, spans: list[tuple[int, int, str]], done: list[str], *, quote: bool = False) -> bytes:
    """Replace each span's bytes by its placeholder (`quote`: as a JSON string)."""
    parts = []
    pos = 0
    for start, end, name in spans:
        parts.append(data[pos:start])
        text = placeholder(name).encode()
        parts.append(b'"' + text + b'"' if quote else text)
        pos = end
        done.append(name)
    parts.append(data[pos:])
    return b"".join(parts)


# -- the process's rules ----------------------------------------------------------------------------

_active: Redaction | None = None


def active() -> Redaction:
    """The rules of this process: set by `configure` (the CLI's flags), else from the environment and
    the config file (a bad config file raises InspectorError: no recording without its names)."""
    global _active
    if _active is None:
        _active = Redaction.from_config(settings=file_settings())
    return _active


def rules_from(names: Iterable[str] = (), paths: Iterable[str] = (), *, keep: bool = False) -> Redaction:
    """The rules of the flags, the environment and the config file. A bad path is a ValueError, a
    bad config file an InspectorError naming the file and the key."""
    return Redaction.from_config(names, paths, keep=keep, settings=None if keep else file_settings())


def configure(names: Iterable[str] = (), paths: Iterable[str] = (), *, keep: bool = False) -> Redaction:
    """Set this process's rules (every recorder and new session uses them): `rules_from`'s."""
    global _active
    _active = rules_from(names, paths, keep=keep)
    return _active


def file_settings() -> Settings:
    """The settings whose `redact` names add to $MCP_INSPECTOR_REDACT's (rather than being replaced by
    them, as `settings.load` does for a value): the config file's, the other variables and defaults."""
    from inspector.settings import load

    return load({k: v for k, v in os.environ.items() if k != REDACT_ENV}).settings


# -- putting secrets back ---------------------------------------------------------------------------


class Secrets:
    """The secrets a replay puts back: `given` (--secret, lower-case names) first, then the environment.

    Remembers the values it used (`used`, so the replay's own recording redacts them again) and the
    names nobody supplied (`missing`, placeholders left as they are)."""

    def __init__(self, given: Mapping[str, str], environ: Mapping[str, str]) -> None:
        self.given = given
        self.environ = environ
        self.used: dict[str, str] = {}
        self.missing: list[str] = []

    def _lookup(self, name: str) -> str | None:
        value = self.given.get(name)
        if value is None:
            value = self.environ.get(secret_env_var(name))
        if value is None:
            if name not in self.missing:
                self.missing.append(name)
            return None
        self.used[name] = value
        return value

    def unknown(self, words: Iterable[str]) -> list[str]:
        """The placeholder names in `words` that neither `given` nor the environment supplies."""
        names = dict.fromkeys(m for w in words for m in _PLACEHOLDER.findall(w))
        return [n for n in names if n not in self.given and secret_env_var(n) not in self.environ]

    def text(self, value: str) -> str:
        """A recorded text (header value, URL) with its placeholders filled where known."""
        if "[secret:" not in value:
            return value

        def fill(m: re.Match[str]) -> str:
            found = self._lookup(m.group(1))
            return m.group(0) if found is None else found

        return _PLACEHOLDER.sub(fill, value)

    def bytes(self, raw: bytes) -> bytes:
        """A recorded body with its placeholders filled where known (inserted as given)."""
        if b"[secret:" not in raw:
            return raw

        def fill(m: re.Match[bytes]) -> bytes:
            found = self._lookup(m.group(1).decode())
            return m.group(0) if found is None else found.encode()

        return _PLACEHOLDER_BYTES.sub(fill, raw)


def resolve_secrets(
    value: str, given: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[str, list[str]]:
    """Put secrets back into a recorded value; also return the names that stayed unknown."""
    secrets = Secrets(given, environ)
    return secrets.text(value), secrets.missing


def missing_command_secrets_message(names: list[str]) -> str:
    """Why a command copied from a recording is not run: its placeholders were not all given."""
    wanted = ", ".join(f"{n} (${secret_env_var(n)})" for n in names)
    return (
        f"the command holds redacted secret(s) that were not given: {wanted}; set them in the "
        "environment of mcp-inspect, or the server would be started with the placeholders"
    )


def missing_secrets_message(names: list[str]) -> str:
    """What a replay says when some placeholders could not be filled."""
    wanted = ", ".join(f"{n} (--secret {n}=VALUE or ${secret_env_var(n)})" for n in names)
    return f"the recording's redacted secret(s) were not given: {wanted}; sending the placeholders instead"
