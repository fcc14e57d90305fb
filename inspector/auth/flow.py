"""The authorization as one sans-IO generator: it yields `Step`s and is sent their responses.

`authorize` runs from an MCP request's 401 (or 403 insufficient_scope) to
tokens: resource metadata, AS metadata, client identity, PKCE, the
authorization request, the token request. Each yielded `Step` carries the
request to make (None for a local step such as PKCE, which is yielded so a
debugger sees it; send None back). For the `authorization-request` step the
runner sends back the redirect it received: a response whose `location` header
is the redirect URI with the authorization response's query.

`refresh` turns a refresh token into new tokens. Failures raise `AuthFailure`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from inspector.auth import discovery, dpop, pkce
from inspector.auth.registration import (
    ClientIdentity,
    ClientOptions,
    choose_identity,
    parse_registration,
    registration_request,
)
from inspector.auth.revisions import Revision
from inspector.auth.steps import HttpRequest, HttpResponse, Step
from inspector.auth.tokens import (
    Tokens,
    auth_method,
    check_iss,
    client_credentials_request,
    code_request,
    merge_scopes,
    parse_tokens,
    refresh_request,
    select_scope,
)
from inspector.auth.urls import check_url
from inspector.errors import AuthFailure
from inspector.terminal_text import visible

__all__ = ["Authorized", "FlowInput", "authorize", "refresh"]

Flow = Generator[Step, HttpResponse | None, "Authorized"]
_JSON = {"accept": "application/json"}


@dataclass
class FlowInput:
    """What the flow starts from."""

    server_url: str
    www_authenticate: str | None  # of the 401/403 that started it
    revision: Revision
    redirect_uri: str
    options: ClientOptions = field(default_factory=ClientOptions)
    known_clients: dict[str, ClientIdentity] = field(default_factory=dict)  # by issuer, from the store
    previous_scope: str | None = None  # step-up: what the current token has


@dataclass
class Authorized:
    """The outcome: tokens, and what refreshing and storing them needs."""

    tokens: Tokens
    client: ClientIdentity
    issuer: str
    resource: str | None
    metadata: dict[str, Any]
    scope: str | None
    dpop: dict[str, Any] | None = None  # the DPoP key (a private JWK) the tokens are bound to


def _token_exchange(
    name: str,
    expects: str,
    spec: str,
    build: Callable[[], HttpRequest],
    key: dict[str, Any] | None,
    rev: Revision,
) -> Generator[Step, HttpResponse | None, Tokens]:
    """One token request (`build` makes it afresh: a client assertion is single-use), with a DPoP
    proof when the grant is bound to `key`, sent again once with the AS's nonce when it asks
    (RFC 9449 8: `use_dpop_nonce`)."""
    nonce: str | None = None
    for _ in range(2):
        request = build()
        if key is not None:
            request = HttpRequest(
                request.method,
                request.url,
                {**request.headers, "dpop": dpop.proof(key, request.method, request.url, nonce=nonce)},
                request.body,
            )
        response = yield Step(
            name,
            expects
            + (" (DPoP proof)" if key is not None else "")
            + (" again with the AS's nonce" if nonce else ""),
            request,
            spec,
        )
        assert response is not None
        asked = dpop.nonce_challenge(response.status, response.headers, response.json()) if key else None
        if asked is None or nonce is not None:
            return parse_tokens(response, name, rev)
        nonce = asked
    raise AssertionError("unreachable")  # pragma: no cover


def _get(name: str, url: str, expects: str, spec: str = "") -> Step:
    return Step(name, expects, HttpRequest("GET", url, dict(_JSON)), spec)


def _resource_metadata(
    inp: FlowInput, challenge: discovery.Challenge | None
) -> Generator[Step, HttpResponse | None, dict[str, Any] | None]:
    rev = inp.revision
    from_header = challenge.params.get("resource_metadata") if challenge else None
    if from_header is not None:
        # Named by the server: on its own origin when it is on this machine (urls.py).
        check_url(
            from_header,
            "the WWW-Authenticate resource_metadata",
            "resource-metadata",
            server_url=inp.server_url,
            origins=[inp.server_url],
        )
    for url in discovery.prm_urls(inp.server_url, from_header):
        response = yield _get(
            "resource-metadata",
            url,
            "Protected Resource Metadata (RFC 9728): from WWW-Authenticate resource_metadata, "
            "else the path-aware well-known URL, then the root one",
            rev.section("protected-resource-metadata-discovery-requirements"),
        )
        assert response is not None
        doc = response.json() if response.status == 200 else None
        if doc is not None:
            return doc
    return None


def _check_resource(prm: dict[str, Any], server_url: str, rev: Revision) -> str:
    resource = prm.get("resource")
    ours = discovery.canonical_resource(server_url)
    if not isinstance(resource, str) or not resource:
        raise AuthFailure(
            "resource-metadata",
            "missing-field",
            "the resource metadata has no `resource`",
            rev.section("overview"),
        )
    theirs = discovery.canonical_resource(resource)
    # RFC 9728 section 3.3; the resource may name the server or a prefix of its URL (a root PRM).
    if not (ours == theirs or ours.startswith(theirs.rstrip("/") + "/")):
        raise AuthFailure(
            "resource-metadata",
            "resource-mismatch",
            f"the resource metadata's resource {resource!r} does not match the server URL {server_url!r}",
            rev.section("canonical-server-uri"),
        )
    return resource


def _as_metadata(issuer: str, rev: Revision) -> Generator[Step, HttpResponse | None, dict[str, Any]]:
    for url in discovery.as_metadata_urls(issuer):
        response = yield _get(
            "as-metadata",
            url,
            "Authorization Server Metadata: RFC 8414 path-aware, then OpenID Connect discovery forms",
            rev.section("authorization-server-metadata-discovery"),
        )
        assert response is not None
        doc = response.json() if response.status == 200 else None
        if doc is None:
            continue
        # RFC 8414 3.3: the issuer must be the one the URL was built from (a trailing "/" aside:
        # servers built on URL types often add one).
        if str(doc.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
            raise AuthFailure(
                "as-metadata",
                "issuer-mismatch",
                f"the metadata at {url} names issuer {doc.get('issuer')!r}, not {issuer!r}",
                rev.section("authorization-server-metadata-discovery"),
            )
        return doc
    raise AuthFailure(
        "as-metadata",
        "no-as-metadata",
        f"no authorization server metadata found for {issuer} (tried the RFC 8414 and OpenID forms)",
        rev.section("authorization-server-metadata-discovery"),
    )


def _legacy_metadata(inp: FlowInput) -> Generator[Step, HttpResponse | None, dict[str, Any]]:
    """2025-03-26: metadata at the server's origin, else the default endpoints."""
    base = discovery.origin(inp.server_url)
    response = yield _get(
        "as-metadata",
        f"{base}/.well-known/oauth-authorization-server",
        "2025-03-26: no resource metadata; RFC 8414 metadata at the MCP server's origin",
        "https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#server-metadata-discovery",
    )
    assert response is not None
    doc = response.json() if response.status == 200 else None
    if doc is not None and doc.get("authorization_endpoint") and doc.get("token_endpoint"):
        return doc
    yield Step(
        "default-endpoints",
        "2025-03-26: without metadata, /authorize, /token and /register at the server's origin",
        None,
        "https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#fallbacks-for-servers-without-metadata-discovery",
    )
    return discovery.legacy_endpoints(inp.server_url)


_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "registration_endpoint")


def _check_endpoints(metadata: dict[str, Any], server_url: str, origins: list[str], rev: Revision) -> None:
    """Every endpoint the flow may open or fetch, checked before the first of them is used
    (urls.py): a loopback endpoint must be on the MCP server's or the authorization server's
    origin. The authorization and token endpoints are required (RFC 8414 2)."""
    for name in _ENDPOINTS:
        value = metadata.get(name)
        if value is None and name == "registration_endpoint":
            continue
        if (
            value is None
            and name == "authorization_endpoint"
            and "authorization_code" not in (metadata.get("grant_types_supported") or ["authorization_code"])
        ):
            continue  # RFC 8414 2: only required when a grant type uses it
        if value is None:
            raise AuthFailure(
                "as-metadata",
                "missing-field",
                f"the authorization server metadata has no {name}",
                rev.section("authorization-server-metadata-discovery"),
            )
        check_url(
            value,
            f"the authorization server metadata's {name}",
            "as-metadata",
            server_url=server_url,
            origins=origins,
        )


def authorize(inp: FlowInput) -> Flow:
    """From the 401/403 to tokens (see the module docstring)."""
    rev = inp.revision
    challenge = discovery.bearer_challenge(inp.www_authenticate)
    prm: dict[str, Any] | None = None
    if rev.protected_resource_metadata or (challenge and "resource_metadata" in challenge.params):
        prm = yield from _resource_metadata(inp, challenge)
    resource: str | None = None
    if prm is not None:
        resource = _check_resource(prm, inp.server_url, rev)
        servers = prm.get("authorization_servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
            raise AuthFailure(
                "resource-metadata",
                "missing-field",
                "the resource metadata lists no authorization_servers",
                rev.section("authorization-server-location"),
            )
        issuer = check_url(
            servers[0],
            "the resource metadata's authorization_servers[0]",
            "resource-metadata",
            server_url=inp.server_url,
            plain=True,
        )
        metadata = yield from _as_metadata(issuer, rev)
        _check_endpoints(metadata, inp.server_url, [inp.server_url, issuer], rev)
    else:
        # No resource metadata: the server follows 2025-03-26 (the client learns the revision only
        # after initialize, the request that got the 401), so use that revision's discovery.
        metadata = yield from _legacy_metadata(inp)
        issuer = str(metadata.get("issuer") or discovery.origin(inp.server_url))
        _check_endpoints(metadata, inp.server_url, [inp.server_url], rev)
    # RFC 8707 `resource`: the resource metadata's `resource` exactly as published (checked above
    # to name this server or a prefix of its URL; RFC 9728 3.3: the identifier the AS binds tokens
    # to, so no parser's "/" added or case folded); 2025-03-26 servers have no resource metadata
    # and get none.
    resource = resource if resource and rev.resource_indicator else None

    pkce.check_s256(metadata, rev)
    scope = select_scope(
        inp.options.scope,
        challenge.params.get("scope") if challenge else None,
        prm.get("scopes_supported") if prm else None,
    )
    if inp.previous_scope and scope:
        scope = merge_scopes(inp.previous_scope, scope)

    # DPoP (RFC 9449, SEP-1932): the tokens are bound to a key of this grant when the AS can.
    key = dpop.new_key() if dpop.supported(metadata) else None
    if _client_credentials(inp.options, metadata):
        return (yield from _client_credentials_grant(inp, metadata, issuer, resource, scope, key))
    if not metadata.get("authorization_endpoint"):
        raise AuthFailure(
            "as-metadata",
            "missing-field",
            "the authorization server offers only the client_credentials grant: give --client-id and "
            "--client-secret of a client registered with it",
            rev.section("authorization-server-metadata-discovery"),
        )

    # Client identity, in the spec's order; a client registered earlier with this issuer is reused.
    client = inp.known_clients.get(issuer)
    if client is not None and client.source == "dcr" and client.redirect_uri != inp.redirect_uri:
        # Registered with another loopback port: an AS that matches redirect URIs exactly would
        # refuse this one, so register again.
        client = None
    if inp.options.client_id:
        client = ClientIdentity(
            inp.options.client_id,
            inp.options.client_secret,
            "pre-registered",
            private_key_file=inp.options.private_key_file,
        )
    elif client is not None:
        yield Step(
            "registration",
            f"a client registered earlier with this issuer is reused ({client.source}); no request",
            None,
        )
    if client is None:
        how = choose_identity(inp.options, metadata, rev)
        if how == "metadata-document":
            assert inp.options.client_metadata_url
            client = ClientIdentity(inp.options.client_metadata_url, None, "metadata-document")
            yield Step(
                "registration", "Client ID Metadata Document: the client_id is the document's URL", None
            )
        else:
            response = yield Step(
                "registration",
                "Dynamic Client Registration (RFC 7591): 201 with a client_id",
                registration_request(
                    str(metadata["registration_endpoint"]), inp.redirect_uri, metadata, scope
                ),
                rev.section("dynamic-client-registration"),
            )
            assert response is not None
            client = parse_registration(response, rev, inp.redirect_uri)

    verifier = pkce.new_verifier()
    yield Step(
        "pkce",
        "PKCE S256: a fresh verifier; its SHA-256 is sent as code_challenge",
        None,
        rev.section("authorization-code-protection"),
    )
    state = secrets.token_urlsafe(24)
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": inp.redirect_uri,
        "code_challenge": pkce.challenge(verifier),
        "code_challenge_method": "S256",
        "state": state,
    }
    if scope:
        query["scope"] = scope
    if resource:
        query["resource"] = resource
    endpoint = str(metadata["authorization_endpoint"])
    sep = "&" if urlsplit(endpoint).query else "?"
    response = yield Step(
        "authorization-request",
        "the authorization endpoint redirects back to the redirect URI with code and the same state",
        HttpRequest("GET", endpoint + sep + urlencode(query)),
        rev.section("authorization-flow-steps"),
    )
    assert response is not None
    answer = {k: v[0] for k, v in parse_qs(urlsplit(response.header("location") or "").query).items()}
    if answer.get("error"):
        raise AuthFailure(
            "authorization-response",
            "authorization-denied",
            f"the authorization server answered error={visible(answer['error'])}"
            + (f" ({visible(answer['error_description'])})" if answer.get("error_description") else ""),
        )
    if answer.get("state") != state:
        raise AuthFailure(
            "authorization-response", "state-mismatch", "the redirect's state is not the one sent"
        )
    check_iss(answer.get("iss"), issuer, metadata, rev)
    if not answer.get("code"):
        raise AuthFailure("authorization-response", "no-code", "the redirect carries no code")

    method = auth_method(client, metadata)
    tokens = yield from _token_exchange(
        "token-request",
        f"authorization_code grant with code_verifier{' and resource' if resource else ''}; "
        f"client authentication: {method}",
        rev.section("token-handling"),
        lambda: code_request(
            str(metadata["token_endpoint"]),
            client,
            method,
            code=answer["code"],
            verifier=verifier,
            redirect_uri=inp.redirect_uri,
            resource=resource,
            audience=issuer,
        ),
        key,
        rev,
    )
    return Authorized(tokens, client, issuer, resource, metadata, tokens.scope or scope, key)


def _client_credentials(options: ClientOptions, metadata: dict[str, Any]) -> bool:
    """The client_credentials grant (SEP-1046): for a pre-registered confidential client (--client-id
    and --client-secret or --client-private-key) when the authorization server offers that grant and not the authorization
    code one (RFC 8414 `grant_types_supported`; absent means authorization_code and implicit)."""
    grants = metadata.get("grant_types_supported")
    return (
        bool(options.client_id and (options.client_secret or options.private_key_file))
        and isinstance(grants, list)
        and "client_credentials" in grants
        and "authorization_code" not in grants
    )


def _client_credentials_grant(
    inp: FlowInput,
    metadata: dict[str, Any],
    issuer: str,
    resource: str | None,
    scope: str | None,
    key: dict[str, Any] | None,
) -> Flow:
    """A client acting on its own behalf: its credentials straight to the token endpoint."""
    assert inp.options.client_id
    client = ClientIdentity(
        inp.options.client_id,
        inp.options.client_secret,
        "pre-registered",
        private_key_file=inp.options.private_key_file,
    )
    method = auth_method(client, metadata)
    tokens = yield from _token_exchange(
        "token-request",
        "client_credentials grant (SEP-1046: the AS offers no authorization code grant; the client "
        f"acts on its own behalf){' with resource' if resource else ''}; client authentication: {method}",
        "https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx",
        lambda: client_credentials_request(
            str(metadata["token_endpoint"]), client, method, scope=scope, resource=resource, audience=issuer
        ),
        key,
        inp.revision,
    )
    return Authorized(tokens, client, issuer, resource, metadata, tokens.scope or scope, key)


def refresh(done: Authorized, rev: Revision) -> Flow:
    """New tokens from the refresh token (AuthFailure `token-refused` when the AS says no)."""
    if not done.tokens.refresh_token:
        raise AuthFailure("refresh", "no-refresh-token", "the token expired and there is no refresh token")
    refresh_token = done.tokens.refresh_token
    tokens = yield from _token_exchange(
        "refresh",
        "refresh_token grant at the token endpoint",
        rev.section("token-handling"),
        lambda: refresh_request(
            str(done.metadata["token_endpoint"]),
            done.client,
            auth_method(done.client, done.metadata),
            refresh_token=refresh_token,
            resource=done.resource,
            audience=done.issuer,
        ),
        done.dpop,
        rev,
    )
    if tokens.refresh_token is None:
        tokens.refresh_token = done.tokens.refresh_token  # RFC 6749 6: the old one stays valid
    return Authorized(
        tokens, done.client, done.issuer, done.resource, done.metadata, tokens.scope or done.scope, done.dpop
    )
