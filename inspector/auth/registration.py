"""Client identity, in the spec's order: pre-registered, Client ID Metadata Document, RFC 7591 DCR."""

from __future__ import annotations

import contextlib
import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson

from inspector.auth.revisions import Revision
from inspector.auth.steps import HttpRequest, HttpResponse
from inspector.errors import AuthFailure

__all__ = [
    "ClientIdentity",
    "ClientOptions",
    "application_type",
    "choose_identity",
    "parse_registration",
    "registration_request",
]

CLIENT_NAME = "mcp-inspect"


@dataclass(frozen=True)
class ClientOptions:
    """What the user gave: a pre-registered client, a metadata document URL, scopes."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    private_key_file: str | None = None  # PEM: private_key_jwt client authentication (RFC 7523)


@dataclass
class ClientIdentity:
    """The client as the AS knows it; `source` says how we got it (pre-registered, metadata-document, dcr)."""

    client_id: str
    client_secret: str | None = None
    source: str = "pre-registered"
    auth_method: str | None = None  # token_endpoint_auth_method the AS registered, if it said
    redirect_uri: str | None = None  # the one registered (DCR): the AS may insist on it exactly
    private_key_file: str | None = None  # pre-registered with a key: private_key_jwt (RFC 7523)

    def to_json(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "source": self.source,
            "auth_method": self.auth_method,
            "redirect_uri": self.redirect_uri,
            "private_key_file": self.private_key_file,
        }


def choose_identity(options: ClientOptions, metadata: dict[str, Any], revision: Revision) -> str:
    """Which way to identify: `pre-registered`, `metadata-document` or `dcr` (the spec's order).

    AuthFailure `no-registration` when none is possible."""
    if options.client_id:
        return "pre-registered"
    if (
        options.client_metadata_url
        and revision.client_id_metadata
        and metadata.get("client_id_metadata_document_supported") is True
    ):
        return "metadata-document"
    if metadata.get("registration_endpoint"):
        return "dcr"
    raise AuthFailure(
        "registration",
        "no-registration",
        "the authorization server has no registration_endpoint"
        + (
            ""
            if metadata.get("client_id_metadata_document_supported")
            else " and does not accept client ID metadata documents"
        )
        + ": give --client-id (and --client-secret) of a client registered with it",
        revision.section("client-registration"),
    )


def application_type(redirect_uri: str) -> str:
    """SEP-837: `native` for a client whose redirect URI is on this machine (the CLI's loopback
    listener, the UI on localhost), `web` for one served from another host."""
    host = (urlsplit(redirect_uri).hostname or "").lower()
    local = host == "localhost" or host.endswith(".localhost")
    with contextlib.suppress(ValueError):
        local = local or ipaddress.ip_address(host).is_loopback
    return "native" if local else "web"


def registration_request(
    endpoint: str, redirect_uri: str, metadata: dict[str, Any], scope: str | None
) -> HttpRequest:
    """The RFC 7591 registration request: a public client unless the AS only takes secrets."""
    methods = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    method = "none" if "none" in methods else methods[0]
    body: dict[str, Any] = {
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        # SEP-837 (2026-07-28 client registration): an OIDC AS defaults a missing application_type
        # to "web", which refuses loopback redirect URIs; harmless to a non-OIDC AS.
        "application_type": application_type(redirect_uri),
    }
    if scope:
        body["scope"] = scope
    return HttpRequest(
        "POST",
        endpoint,
        {"content-type": "application/json", "accept": "application/json"},
        orjson.dumps(body),
    )


def parse_registration(
    response: HttpResponse, revision: Revision, redirect_uri: str | None = None
) -> ClientIdentity:
    """The registered client from a 201/200 response; AuthFailure `registration-refused` otherwise."""
    doc = response.json()
    if response.status not in (200, 201) or doc is None or not isinstance(doc.get("client_id"), str):
        raise AuthFailure(
            "registration",
            "registration-refused",
            f"dynamic client registration answered {response.status} without a client_id",
            revision.section("dynamic-client-registration"),
        )
    secret = doc.get("client_secret")
    method = doc.get("token_endpoint_auth_method")
    return ClientIdentity(
        doc["client_id"],
        secret if isinstance(secret, str) else None,
        "dcr",
        method if isinstance(method, str) else None,
        redirect_uri,
    )
