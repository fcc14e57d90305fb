"""Hand-made authorization flows for the lint tests: a good flow (every leg as the spec asks, as the
mock client and the recording proxy record them) and one case per authorization rule, each the good
flow with one thing broken. Built through the recorder's own `MessageBuilder` (`tests.lint_recordings.Http`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson

from inspector.lint import check_rows
from inspector.store import open_engine
from inspector.store.queries import iter_rows
from tests.lint_recordings import Http, request, result

HOST = "127.0.0.1:8000"
BASE = f"http://{HOST}"
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
CHALLENGE = f'Bearer resource_metadata="{BASE}{PRM_PATH}", scope="mcp"'
PRM = {"resource": f"{BASE}/mcp", "authorization_servers": [f"{BASE}/"], "scopes_supported": ["mcp"]}
AS = {
    "issuer": f"{BASE}/",
    "authorization_endpoint": f"{BASE}/authorize",
    "token_endpoint": f"{BASE}/token",
    "registration_endpoint": f"{BASE}/register",
    "response_types_supported": ["code"],
    "code_challenge_methods_supported": ["S256"],
}
AUTHORIZE = {
    "response_type": "code",
    "client_id": "c1",
    "redirect_uri": "http://127.0.0.1:9/callback",
    "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    "code_challenge_method": "S256",
    "state": "[redacted]",
    "resource": f"{BASE}/mcp",
}
TOKEN = {
    "grant_type": "authorization_code",
    "code": "[redacted]",
    "code_verifier": "[redacted]",
    "redirect_uri": "http://127.0.0.1:9/callback",
    "resource": f"{BASE}/mcp",
}
FORM = {"content-type": "application/x-www-form-urlencoded", "host": HOST}


class AuthFlow(Http):
    """A Streamable HTTP session whose first request is refused, then authorized, then served."""

    def leg(
        self,
        method: str,
        path: str,
        *,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        status: int = 200,
        response: dict[str, Any] | bytes = b"",
        response_headers: dict[str, str] | None = None,
        step: str | None = None,
    ) -> tuple[int, int]:
        """One labelled HTTP exchange (no JSON-RPC); the seqs of its request and response rows."""
        self.exchange += 1
        self.t += 1_000_000
        meta: dict[str, Any] = {"exchange": self.exchange}
        if step is not None:
            meta["auth_step"] = step
        http = {"http_method": method, "http_path": path, "meta": meta}
        self.rows.append(
            self.builder.message(
                self.t,
                "c2s",
                "http-request",
                body,
                jsonrpc=False,
                http_headers=[[k, v] for k, v in (headers or {"host": HOST}).items()],
                **http,
            )
        )
        raw = response if isinstance(response, bytes) else orjson.dumps(response)
        head = response_headers or ({"content-type": "application/json"} if raw else {})
        self.rows.append(
            self.builder.message(
                self.t + 500_000,
                "s2c",
                "http-response",
                raw,
                jsonrpc=False,
                http_status=status,
                http_headers=[[k, v] for k, v in head.items()],
                **http,
            )
        )
        return self.rows[-2]["seq"], self.rows[-1]["seq"]

    def authorize(self, **broken: Any) -> dict[str, int]:
        """The flow's legs; `broken` replaces a part (challenge, prm, as_path, as_doc, authorize,
        token, location). Returns the seq of each leg's request (`*_req`) and response."""
        seqs: dict[str, int] = {}
        refused = orjson.dumps(request(0, "initialize", {}))
        challenge = broken.get("challenge", CHALLENGE)
        seqs["unauthorized_req"], seqs["unauthorized"] = self.leg(
            "POST",
            "/mcp",
            body=refused,
            headers={"host": HOST, "accept": "application/json, text/event-stream"},
            status=401,
            response={"error": "invalid_token"},
            response_headers={"content-type": "application/json"}
            | ({"www-authenticate": challenge} if challenge else {}),
            step="unauthorized",
        )
        seqs["prm_req"], seqs["prm"] = self.leg(
            "GET", PRM_PATH, response=broken.get("prm", PRM), step="resource-metadata"
        )
        seqs["as_req"], seqs["as"] = self.leg(
            "GET",
            broken.get("as_path", "/.well-known/oauth-authorization-server"),
            response=broken.get("as_doc", AS),
            step="as-metadata",
        )
        seqs["register_req"], seqs["register"] = self.leg(
            "POST",
            "/register",
            body=orjson.dumps({"redirect_uris": ["http://127.0.0.1:9/callback"]}),
            headers={"content-type": "application/json", "host": HOST},
            status=201,
            response={"client_id": "c1"},
            step="registration",
        )
        query = urlencode(broken.get("authorize", AUTHORIZE))
        issuer = broken.get("as_doc", AS).get("issuer", "")  # RFC 9207: the issuer of the metadata used
        default = f"http://127.0.0.1:9/callback?code=[redacted]&state=[redacted]&iss={issuer}"
        location = broken.get("location", default)
        seqs["authorize_req"], seqs["authorize"] = self.leg(
            "GET",
            f"/authorize?{query}",
            status=302,
            response_headers={"location": location},
            step="authorization-request",
        )
        seqs["token_req"], seqs["token"] = self.leg(
            "POST",
            "/token",
            body=urlencode(broken.get("token", TOKEN)).encode(),
            headers=FORM,
            response={"access_token": "[redacted]", "token_type": "Bearer"},
            step="token-request",
        )
        return seqs


def good_flow(version: str = "2025-11-25", **broken: Any) -> tuple[AuthFlow, dict[str, int]]:
    """The whole session: the authorization legs, the handshake (of `version`), a tools/list."""
    flow = AuthFlow()
    seqs = flow.authorize(**broken)
    flow.handshake(version)
    flow.post(request(1, "tools/list"), Http.headers(version), answer=result(1, {"tools": []}))
    return flow, seqs


def _without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


Case = Callable[[], tuple[list[dict[str, Any]], int]]


def _case(part: str, **broken: Any) -> Case:
    def build() -> tuple[list[dict[str, Any]], int]:
        flow, seqs = good_flow(**broken)
        return flow.rows, seqs[part]

    return build


AUTH_CASES: dict[str, Case] = {
    "auth-401-without-resource-metadata": _case("unauthorized", challenge='Bearer error="invalid_token"'),
    "auth-resource-metadata-incomplete": _case("prm", prm=_without(PRM, "authorization_servers")),
    "auth-server-metadata-incomplete": _case("as", as_doc=_without(AS, "code_challenge_methods_supported")),
    "auth-no-pkce": _case("authorize_req", authorize=_without(AUTHORIZE, "code_challenge")),
    "auth-no-resource-parameter": _case("token_req", token=_without(TOKEN, "resource")),
    "auth-token-in-query": _case("authorize_req", authorize={**AUTHORIZE, "access_token": "[redacted]"}),
    "auth-issuer-mismatch": _case("as", as_doc={**AS, "issuer": "http://127.0.0.1:8001/"}),
}


def all_findings(db: Path) -> list[tuple[str, str, str]]:
    """(rule, explanation, spec section) of every finding of every session in a database."""
    engine = open_engine(db, create=False)
    try:
        with engine.connect() as conn:
            ids = [r[0] for r in conn.exec_driver_sql("SELECT id FROM session ORDER BY id")]
        found = [f for sid in ids for f in check_rows(iter_rows(engine, sid))]
    finally:
        engine.dispose()
    return [(f.rule, f.explanation, f.spec_section) for f in found]


def auth_findings(db: Path) -> list[tuple[str, str, str]]:
    """The auth-* findings of every session in a database."""
    return [f for f in all_findings(db) if f[0].startswith("auth-")]
