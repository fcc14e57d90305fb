"""The built-in authorization server of `serve --auth`, sans-IO: requests in, `Reply` out.

It plays both OAuth roles a client meets in front of an MCP server
(authorization spec, 2025-06-18 and later): the resource server's side (the
bearer check on the MCP endpoint: 401 with `WWW-Authenticate` naming the
resource metadata and scope, 403 `insufficient_scope` for step-up, RFC 6750)
and the authorization server (RFC 9728 resource metadata, RFC 8414 metadata,
RFC 7591 registration, the authorization endpoint with PKCE S256 required,
the token endpoint with `authorization_code` and `refresh_token` and client
authentication as registered). Nothing here opens a socket or reads a clock
of its own (`now` is passed in): `auth_routes` is the thin HTTP side.

The issuer is the origin the client used (its validated `Host`), so a client
that says `localhost` and one that says `127.0.0.1` each see a consistent
server. `Settings.faults` switch on what clients must survive or refuse:

- `wrong-issuer`: the AS metadata names another issuer than the one it was
  fetched for (RFC 8414 section 3.3: the client must not use it);
- `resource-mismatch`: the resource metadata's `resource` is not the MCP
  endpoint (RFC 9728 section 3.3: the client must not use it);
- `no-s256`: `code_challenge_methods_supported` is absent (2025-11-25 and
  later: the client must refuse to go on);
- `expired-token`: the first access token each client gets is refused as
  expired (401 `invalid_token`) after one request; the client must get a new
  one (refresh, or authorize again) and retry;
- `step-up`: `tools/call` needs the extra scope `mcp:tools`, answered 403
  `insufficient_scope` naming it; the client must authorize again with it.

Codes, access and refresh tokens and client secrets are random and only in
memory; the recording of these exchanges holds placeholders (the recorder's
redaction step).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import orjson

from inspector.guard import is_loopback
from inspector.mock.auth_pages import approval_page, message_page, page_headers

__all__ = [
    "FAULTS",
    "AuthServer",
    "Reply",
    "Settings",
]

FAULTS = ("wrong-issuer", "resource-mismatch", "no-s256", "expired-token", "step-up")
Approve = Literal["auto", "ui"]

BASE_SCOPE = "mcp"
TOOLS_SCOPE = "mcp:tools"  # what `tools/call` needs under the step-up fault
CODE_LIFETIME = 60  # seconds an authorization code can be exchanged
PENDING_LIMIT = 100  # authorization requests waiting for a person at once

PRM_PATH = "/.well-known/oauth-protected-resource"
AS_METADATA_PATH = "/.well-known/oauth-authorization-server"
AUTHORIZE_PATH = "/authorize"
DECISION_PATH = "/authorize/decision"
TOKEN_PATH = "/token"
REGISTER_PATH = "/register"
_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")


@dataclass(frozen=True)
class Settings:
    """What `--auth`, `--auth-fault` and `--approve` (or the scenario's `auth` key) asked for."""

    faults: frozenset[str] = frozenset()
    approve: Approve = "auto"
    token_lifetime: int = 3600

    def __post_init__(self) -> None:
        unknown = sorted(set(self.faults) - set(FAULTS))
        if unknown:
            raise ValueError(f"unknown authorization fault(s) {unknown}; known: {list(FAULTS)}")

    def describe(self) -> str:
        """For the ready line: "authorization required (faults: ...), approved on a page"."""
        faults = f" (faults: {', '.join(sorted(self.faults))})" if self.faults else ""
        return "authorization required" + faults + (", approved on a page" if self.approve == "ui" else "")


@dataclass
class Reply:
    """An HTTP answer, and the flow step it belongs to (`meta.auth_step` of the recorded exchange)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    step: str = ""

    @classmethod
    def json(cls, status: int, value: Any, step: str, headers: Mapping[str, str] | None = None) -> Reply:
        head = {"content-type": "application/json", "cache-control": "no-store", **(headers or {})}
        return cls(status, head, orjson.dumps(value), step)


@dataclass
class _Client:
    client_id: str
    secret: str | None
    auth_method: str
    redirect_uris: list[str]
    metadata: dict[str, Any]
    tokens_issued: int = 0


@dataclass
class _Code:
    client_id: str
    redirect_uri: str | None
    challenge: str | None
    method: str  # S256, or plain (only when the no-s256 fault lets a client use it)
    scopes: tuple[str, ...]
    resource: str | None
    expires_at: float


@dataclass
class _Access:
    client_id: str
    scopes: tuple[str, ...]
    resource: str | None
    expires_at: float
    uses_left: int | None = None  # the expired-token fault: refused once this reaches 0


@dataclass
class _Refresh:
    client_id: str
    scopes: tuple[str, ...]
    resource: str | None


@dataclass
class _Pending:
    """An authorization request waiting for a person (`--approve ui`)."""

    client_id: str
    client_name: str
    params: dict[str, str]
    scopes: tuple[str, ...]
    origin: str


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _error(
    status: int, code: str, description: str, step: str, headers: Mapping[str, str] | None = None
) -> Reply:
    return Reply.json(status, {"error": code, "error_description": description}, step, headers)


def _redirect(uri: str, params: Mapping[str, str], step: str) -> Reply:
    sep = "&" if urlsplit(uri).query else "?"
    return Reply(302, {"location": uri + sep + urlencode(params), "cache-control": "no-store"}, b"", step)


def _page(status: int, title: str, text: str, step: str) -> Reply:
    return Reply(status, page_headers(), message_page(title, text), step)


def _redirect_uri_ok(uri: str) -> bool:
    """https anywhere, http only to this machine's loopback (a native client's callback), no fragment."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    if parts.fragment or not parts.hostname:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and is_loopback(parts.hostname))


class AuthServer:
    """The authorization server's state (clients, codes, tokens) and its endpoints' logic."""

    def __init__(self, settings: Settings, mcp_path: str = "/mcp") -> None:
        self.settings = settings
        self.mcp_path = mcp_path
        self.clients: dict[str, _Client] = {}
        self.codes: dict[str, _Code] = {}
        self.access: dict[str, _Access] = {}
        self.refresh: dict[str, _Refresh] = {}
        self.pending: dict[str, _Pending] = {}

    # --- what the documents say --------------------------------------------------------------------

    def has(self, fault: str) -> bool:
        return fault in self.settings.faults

    def resource(self, origin: str) -> str:
        """The MCP endpoint's canonical URI (RFC 8707): what tokens are for."""
        return origin + self.mcp_path

    def issuer(self, origin: str) -> str:
        return origin + "/issuer-of-another-server" if self.has("wrong-issuer") else origin

    def scopes_supported(self) -> list[str]:
        return [BASE_SCOPE, TOOLS_SCOPE] if self.has("step-up") else [BASE_SCOPE]

    def prm_url(self, origin: str) -> str:
        """The path-aware well-known URL of the resource metadata (RFC 9728 section 3.1)."""
        return origin + PRM_PATH + self.mcp_path

    def protected_resource_metadata(self, origin: str) -> Reply:
        resource = (
            origin + "/a-different-resource" if self.has("resource-mismatch") else self.resource(origin)
        )
        document = {
            "resource": resource,
            "authorization_servers": [origin],
            "scopes_supported": self.scopes_supported(),
            "bearer_methods_supported": ["header"],
            "resource_name": "mcp-inspect serve",
        }
        return Reply.json(200, document, "resource-metadata")

    def as_metadata(self, origin: str) -> Reply:
        document: dict[str, Any] = {
            "issuer": self.issuer(origin),
            "authorization_endpoint": origin + AUTHORIZE_PATH,
            "token_endpoint": origin + TOKEN_PATH,
            "registration_endpoint": origin + REGISTER_PATH,
            "scopes_supported": self.scopes_supported(),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": list(_AUTH_METHODS),
            "authorization_response_iss_parameter_supported": True,
        }
        if not self.has("no-s256"):
            document["code_challenge_methods_supported"] = ["S256"]
        return Reply.json(200, document, "as-metadata")

    # --- registration (RFC 7591) -------------------------------------------------------------------

    def register(self, body: bytes, now: float) -> Reply:
        step = "registration"
        try:
            metadata = orjson.loads(body)
        except orjson.JSONDecodeError:
            metadata = None
        if not isinstance(metadata, dict):
            return _error(400, "invalid_client_metadata", "the body must be a JSON object", step)
        uris = metadata.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            return _error(400, "invalid_redirect_uri", "redirect_uris must be a non-empty list of URLs", step)
        bad = [u for u in uris if not _redirect_uri_ok(u)]
        if bad:
            return _error(
                400,
                "invalid_redirect_uri",
                f"{bad[0][:200]!r}: a redirect URI must be https, or http to a loopback address",
                step,
            )
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in _AUTH_METHODS:
            return _error(
                400,
                "invalid_client_metadata",
                f"token_endpoint_auth_method must be one of {', '.join(_AUTH_METHODS)}",
                step,
            )
        grants = metadata.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or any(
            g not in ("authorization_code", "refresh_token") for g in grants
        ):
            return _error(
                400,
                "invalid_client_metadata",
                "grant_types may hold authorization_code and refresh_token",
                step,
            )
        client_id = "mcp-inspect-" + secrets.token_urlsafe(12)
        secret = None if method == "none" else secrets.token_urlsafe(32)
        info = {
            **metadata,
            "client_id": client_id,
            "client_id_issued_at": int(now),
            "token_endpoint_auth_method": method,
            "grant_types": grants,
            "redirect_uris": uris,
        }
        if secret is not None:
            info["client_secret"] = secret
            info["client_secret_expires_at"] = 0
        self.clients[client_id] = _Client(client_id, secret, method, list(uris), dict(metadata))
        return Reply.json(201, info, step)

    # --- authorization endpoint --------------------------------------------------------------------

    def authorize(self, query: str, origin: str, now: float) -> Reply:
        """GET /authorize: an error page (the redirect URI cannot be trusted), an error redirect, the
        code redirect (auto-approve) or the approval page (`--approve ui`)."""
        step = "authorization-request"
        params: dict[str, str] = {}
        for name, value in parse_qsl(query, keep_blank_values=True):
            if name in params:
                return _page(400, "Invalid authorization request", f"the parameter {name} is repeated", step)
            params[name] = value
        client = self.clients.get(params.get("client_id", ""))
        if client is None:
            return _page(400, "Unknown client", "client_id is missing or not registered here", step)
        redirect_uri = params.get("redirect_uri")
        if redirect_uri is None and len(client.redirect_uris) != 1:
            return _page(400, "Invalid authorization request", "redirect_uri is required", step)
        if redirect_uri is not None and redirect_uri not in client.redirect_uris:
            return _page(400, "Invalid redirect URI", "redirect_uri is not one this client registered", step)
        target = redirect_uri or client.redirect_uris[0]
        state = {"state": params["state"]} if "state" in params else {}
        issuer = {"iss": self.issuer(origin)}

        def fail(code: str, description: str) -> Reply:
            return _redirect(
                target, {"error": code, "error_description": description, **state, **issuer}, step
            )

        if params.get("response_type") != "code":
            return fail("unsupported_response_type", "response_type must be code")
        challenge = params.get("code_challenge")
        method = params.get("code_challenge_method")
        if not self.has("no-s256"):
            if not challenge:
                return fail("invalid_request", "PKCE is required: code_challenge is missing")
            if method != "S256":
                return fail("invalid_request", "code_challenge_method must be S256")
        elif challenge and method not in (None, "plain", "S256"):
            return fail("invalid_request", "unknown code_challenge_method")
        if challenge is not None and not 43 <= len(challenge) <= 128:
            return fail("invalid_request", "code_challenge must be 43 to 128 characters")
        scopes = tuple(params.get("scope", "").split()) or (BASE_SCOPE,)
        unknown = [s for s in scopes if s not in self.scopes_supported()]
        if unknown:
            return fail("invalid_scope", f"unknown scope {unknown[0][:100]!r}")
        resource = params.get("resource")
        if resource is not None and resource not in self.audiences(origin):
            return fail("invalid_target", "resource is not this server's MCP endpoint")
        if self.settings.approve == "ui":
            if len(self.pending) >= PENDING_LIMIT:
                self.pending.pop(next(iter(self.pending)))
            request_id = secrets.token_urlsafe(24)
            client_name = client.metadata.get("client_name")
            self.pending[request_id] = _Pending(
                client.client_id,
                client_name if isinstance(client_name, str) else client.client_id,
                params,
                scopes,
                origin,
            )
            return self._approval_page(request_id, self.pending[request_id])
        return self._issue_code(client, params, scopes, origin, now)

    def audiences(self, origin: str) -> tuple[str, ...]:
        """The `resource` values accepted in requests (the advertised one too under resource-mismatch)."""
        resource = self.resource(origin)
        return (resource, origin + "/a-different-resource") if self.has("resource-mismatch") else (resource,)

    def _issue_code(
        self, client: _Client, params: dict[str, str], scopes: tuple[str, ...], origin: str, now: float
    ) -> Reply:
        code = secrets.token_urlsafe(32)
        self.codes[code] = _Code(
            client.client_id,
            params.get("redirect_uri"),
            params.get("code_challenge"),
            params.get("code_challenge_method") or "plain",
            scopes,
            params.get("resource"),
            now + CODE_LIFETIME,
        )
        target = params.get("redirect_uri") or client.redirect_uris[0]
        state = {"state": params["state"]} if "state" in params else {}
        return _redirect(target, {"code": code, **state, "iss": self.issuer(origin)}, "authorization-request")

    def _approval_page(self, request_id: str, pending: _Pending) -> Reply:
        redirect = pending.params.get("redirect_uri") or self.clients[pending.client_id].redirect_uris[0]
        body = approval_page(
            request_id=request_id,
            client_name=pending.client_name,
            resource=self.resource(pending.origin),
            scopes=" ".join(pending.scopes),
            redirect=redirect,
            action=DECISION_PATH,
        )
        return Reply(200, page_headers(), body, "authorization-request")

    def decide(self, body: bytes, now: float) -> Reply:
        """POST /authorize/decision from the approval page: the code redirect, or access_denied."""
        step = "authorization-decision"
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        pending = self.pending.pop(form.get("request", ""), None)
        if pending is None:
            return _page(
                400, "Unknown request", "this authorization request was decided already or never made", step
            )
        client = self.clients.get(pending.client_id)
        if client is None:
            return _page(400, "Unknown client", "the client of this request is gone", step)
        if form.get("decision") != "approve":
            target = pending.params.get("redirect_uri") or client.redirect_uris[0]
            state = {"state": pending.params["state"]} if "state" in pending.params else {}
            reply = _redirect(
                target,
                {"error": "access_denied", "error_description": "the user denied the request", **state,
                 "iss": self.issuer(pending.origin)},
                step,
            )  # fmt: skip
        else:
            reply = self._issue_code(client, pending.params, pending.scopes, pending.origin, now)
        reply.status = 303  # after a POST: the browser GETs the redirect URI
        reply.step = step
        return reply

    # --- token endpoint ----------------------------------------------------------------------------

    def token(self, body: bytes, authorization: str | None, origin: str, now: float) -> Reply:
        step = "token-request"
        form: dict[str, str] = {}
        for name, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
            if name in form:
                return _error(400, "invalid_request", f"the parameter {name} is repeated", step)
            form[name] = value
        client, refusal = self._client_auth(form, authorization)
        if refusal is not None:
            return refusal
        assert client is not None
        grant = form.get("grant_type")
        if grant == "authorization_code":
            return self._code_grant(client, form, origin, now)
        if grant == "refresh_token":
            return self._refresh_grant(client, form, origin, now)
        return _error(
            400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token", step
        )

    def _client_auth(
        self, form: dict[str, str], authorization: str | None
    ) -> tuple[_Client | None, Reply | None]:
        """The client, authenticated the way it registered (RFC 6749 section 2.3), or a 401 invalid_client."""
        step = "token-request"
        basic_id = basic_secret = None
        if authorization and authorization[:6].lower() == "basic ":
            try:
                decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode()
                raw_id, _, raw_secret = decoded.partition(":")
                basic_id, basic_secret = unquote(raw_id), unquote(raw_secret)
            except (ValueError, UnicodeDecodeError):
                return None, _error(401, "invalid_client", "the Basic credentials are malformed", step,
                                    {"www-authenticate": 'Basic realm="mcp-inspect"'})  # fmt: skip
        client_id = basic_id or form.get("client_id", "")
        if basic_id is not None and form.get("client_id", basic_id) != basic_id:
            return None, _error(400, "invalid_request", "client_id differs from the Basic credentials", step)
        client = self.clients.get(client_id)

        def refuse(why: str) -> tuple[None, Reply]:
            return None, _error(
                401, "invalid_client", why, step, {"www-authenticate": 'Basic realm="mcp-inspect"'}
            )

        if client is None:
            return refuse("unknown client")
        if client.auth_method == "client_secret_basic":
            if basic_secret is None:
                return refuse("this client registered client_secret_basic: send its secret in a Basic header")
            given = basic_secret
        elif client.auth_method == "client_secret_post":
            if basic_secret is not None or "client_secret" not in form:
                return refuse("this client registered client_secret_post: send client_secret in the body")
            given = form["client_secret"]
        else:
            if basic_secret is not None or "client_secret" in form:
                return refuse("this client registered token_endpoint_auth_method none: it has no secret")
            return client, None
        if client.secret is None or not secrets.compare_digest(given.encode(), client.secret.encode()):
            return refuse("wrong client secret")
        return client, None

    def _code_grant(self, client: _Client, form: dict[str, str], origin: str, now: float) -> Reply:
        step = "token-request"
        code = self.codes.pop(form.get("code", ""), None)  # a code is used once, whatever happens
        if code is None or code.client_id != client.client_id or code.expires_at < now:
            return _error(
                400, "invalid_grant", "the authorization code is unknown, used, expired or not yours", step
            )
        if code.redirect_uri is not None and form.get("redirect_uri") != code.redirect_uri:
            return _error(400, "invalid_grant", "redirect_uri differs from the authorization request's", step)
        if code.challenge is not None:
            verifier = form.get("code_verifier")
            if not verifier:
                return _error(400, "invalid_request", "code_verifier is missing (PKCE)", step)
            computed = _s256(verifier) if code.method == "S256" else verifier
            if not secrets.compare_digest(computed.encode(), code.challenge.encode()):
                return _error(400, "invalid_grant", "code_verifier does not match the code_challenge", step)
        resource: str | None = form.get("resource", code.resource)
        if resource is not None and resource not in self.audiences(origin):
            return _error(400, "invalid_target", "resource is not this server's MCP endpoint", step)
        if code.resource is not None and resource != code.resource:
            return _error(400, "invalid_grant", "resource differs from the authorization request's", step)
        return self._issue_tokens(client, code.scopes, resource, now, first_grant=True)

    def _refresh_grant(self, client: _Client, form: dict[str, str], origin: str, now: float) -> Reply:
        step = "token-request"
        old = self.refresh.get(form.get("refresh_token", ""))
        if old is None or old.client_id != client.client_id:
            return _error(400, "invalid_grant", "the refresh token is unknown, used or not yours", step)
        scopes = tuple(form["scope"].split()) if form.get("scope") else old.scopes
        if not set(scopes) <= set(old.scopes):
            return _error(400, "invalid_scope", "a refresh cannot widen the scopes granted", step)
        resource: str | None = form.get("resource", old.resource)
        if resource != old.resource and old.resource is not None:
            return _error(400, "invalid_target", "resource differs from the grant's", step)
        del self.refresh[form["refresh_token"]]  # rotated (OAuth 2.1 section 4.3.1)
        return self._issue_tokens(client, scopes, resource, now, first_grant=False)

    def _issue_tokens(
        self, client: _Client, scopes: tuple[str, ...], resource: str | None, now: float, *, first_grant: bool
    ) -> Reply:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        lifetime = self.settings.token_lifetime
        uses = 1 if self.has("expired-token") and first_grant and client.tokens_issued == 0 else None
        client.tokens_issued += 1
        self.access[access] = _Access(client.client_id, scopes, resource, now + lifetime, uses)
        self.refresh[refresh] = _Refresh(client.client_id, scopes, resource)
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": lifetime,
            "refresh_token": refresh,
            "scope": " ".join(scopes),
        }
        return Reply.json(200, body, "token-request", {"pragma": "no-cache"})

    # --- the resource server's side ----------------------------------------------------------------

    def challenge(self, origin: str, *, error: str | None = None, description: str | None = None,
                  scope: str | None = None) -> str:  # fmt: skip
        """A Bearer `WWW-Authenticate` value (RFC 6750 section 3, RFC 9728 section 5.1)."""
        parts = []
        if error:
            parts.append(f'error="{error}"')
        if description:
            parts.append(f'error_description="{description}"')
        parts.append(f'scope="{scope or BASE_SCOPE}"')
        parts.append(f'resource_metadata="{self.prm_url(origin)}"')
        return "Bearer " + ", ".join(parts)

    def check_bearer(
        self, authorization: str | None, methods: list[str], origin: str, now: float
    ) -> Reply | None:
        """None when the request may reach the MCP endpoint, else its 401 or 403 (RFC 6750 section 3.1)."""
        step = "unauthorized"
        if not authorization or authorization[:7].lower() != "bearer ":
            return _error(401, "unauthorized", "this MCP server requires authorization", step,
                          {"www-authenticate": self.challenge(origin)})  # fmt: skip
        token = self.access.get(authorization[7:].strip())

        def invalid(why: str) -> Reply:
            header = self.challenge(origin, error="invalid_token", description=why)
            return _error(401, "invalid_token", why, step, {"www-authenticate": header})

        if token is None:
            return invalid("The access token is not known here")
        if token.expires_at < now or token.uses_left == 0:
            return invalid("The access token expired")
        if token.resource is not None and token.resource != self.resource(origin):
            return invalid("The access token is for another resource")
        if self.has("step-up") and "tools/call" in methods and TOOLS_SCOPE not in token.scopes:
            needed = f"{BASE_SCOPE} {TOOLS_SCOPE}"
            header = self.challenge(
                origin,
                error="insufficient_scope",
                description="tools/call needs the scope mcp:tools",
                scope=needed,
            )
            return _error(403, "insufficient_scope", "tools/call needs the scope mcp:tools", "insufficient-scope",
                          {"www-authenticate": header})  # fmt: skip
        if token.uses_left is not None:
            token.uses_left -= 1
        return None
