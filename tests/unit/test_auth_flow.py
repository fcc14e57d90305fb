"""The sans-IO flow, step by step and per revision, fed canned HTTP responses (no sockets)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest

from inspector.auth import pkce
from inspector.auth.flow import Authorized, FlowInput, authorize
from inspector.auth.registration import ClientIdentity, ClientOptions
from inspector.auth.revisions import revision_for
from inspector.auth.steps import HttpRequest, HttpResponse
from inspector.auth.tokens import auth_method, check_iss, merge_scopes, select_scope
from inspector.errors import AuthFailure

SERVER = "http://mcp.test/mcp"
AS = "https://as.test"
REDIRECT = "http://127.0.0.1:9/callback"


def _json(doc: dict[str, Any], status: int = 200) -> HttpResponse:
    return HttpResponse(status, {"content-type": "application/json"}, orjson.dumps(doc))


NOT_FOUND = HttpResponse(404)


class FakeServers:
    """Answers the flow's requests from a table; records what was asked."""

    def __init__(self, routes: dict[str, Callable[[HttpRequest], HttpResponse]]) -> None:
        self.routes = routes
        self.asked: list[tuple[str, str]] = []

    def __call__(self, req: HttpRequest) -> HttpResponse:
        base = req.url.split("?", 1)[0]
        self.asked.append((req.method, base))
        return self.routes.get(base, lambda _r: NOT_FOUND)(req)


def _authorize_redirect(req: HttpRequest) -> HttpResponse:
    query = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
    return HttpResponse(302, {"location": f"{query['redirect_uri']}?code=c0de&state={query['state']}"})


def _as_metadata(**extra: Any) -> dict[str, Any]:
    return {
        "issuer": AS,
        "authorization_endpoint": f"{AS}/authorize",
        "token_endpoint": f"{AS}/token",
        "registration_endpoint": f"{AS}/register",
        "code_challenge_methods_supported": ["S256"],
        **extra,
    }


def _routes(prm: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "http://mcp.test/.well-known/oauth-protected-resource/mcp": lambda r: _json(
            prm if prm is not None else {"resource": SERVER, "authorization_servers": [AS]}
        ),
        f"{AS}/.well-known/oauth-authorization-server": lambda r: _json(meta or _as_metadata()),
        f"{AS}/register": lambda r: _json({"client_id": "cid"}, 201),
        f"{AS}/authorize": _authorize_redirect,
        f"{AS}/token": lambda r: _json({"access_token": "at", "token_type": "Bearer", "expires_in": 60}),
    }


def run(servers: FakeServers, inp: FlowInput) -> tuple[Authorized, list[str], list[HttpRequest]]:
    flow = authorize(inp)
    names: list[str] = []
    sent: list[HttpRequest] = []
    answer: HttpResponse | None = None
    try:
        while True:
            step = flow.send(answer)
            names.append(step.name)
            answer = servers(step.request) if step.request else None
            if step.request:
                sent.append(step.request)
    except StopIteration as done:
        return done.value, names, sent


def _input(version: str = "2025-11-25", header: str | None = None, **kw: Any) -> FlowInput:
    return FlowInput(SERVER, header, revision_for(version), REDIRECT, **kw)


def test_full_flow_2025_11_25() -> None:
    servers = FakeServers(_routes())
    done, names, sent = run(servers, _input())
    assert names == [
        "resource-metadata",
        "as-metadata",
        "registration",
        "pkce",
        "authorization-request",
        "token-request",
    ]
    assert done.tokens.access_token == "at" and done.client.client_id == "cid"
    auth_query = parse_qs(urlsplit(sent[3].url).query)
    token_form = parse_qs(sent[4].body.decode())
    assert auth_query["resource"] == [SERVER] == token_form["resource"]
    assert auth_query["code_challenge"] == [pkce.challenge(token_form["code_verifier"][0])]
    assert "scope" not in auth_query  # nothing defined: omitted


def test_root_prm_after_path_aware_404() -> None:
    routes = _routes()
    routes["http://mcp.test/.well-known/oauth-protected-resource"] = routes.pop(
        "http://mcp.test/.well-known/oauth-protected-resource/mcp"
    )
    servers = FakeServers(routes)
    run(servers, _input())
    assert servers.asked[:2] == [
        ("GET", "http://mcp.test/.well-known/oauth-protected-resource/mcp"),
        ("GET", "http://mcp.test/.well-known/oauth-protected-resource"),
    ]


def test_legacy_2025_03_26_default_endpoints() -> None:
    routes = {f"http://mcp.test/{p}": r for p, r in (("authorize", _authorize_redirect),)}
    routes["http://mcp.test/register"] = lambda r: _json({"client_id": "cid"}, 201)
    routes["http://mcp.test/token"] = lambda r: _json({"access_token": "at"})
    done, names, _ = run(FakeServers(routes), _input("2025-03-26"))
    assert names[:2] == ["as-metadata", "default-endpoints"]
    assert done.resource is None


@pytest.mark.parametrize(
    ("version", "methods", "refused"),
    [
        ("2025-11-25", None, True),
        ("2025-11-25", ["plain"], True),
        ("2025-11-25", ["S256"], False),
        ("2025-06-18", None, False),
        ("2026-07-28", None, True),
    ],
)
def test_s256_required_where_the_revision_says(
    version: str, methods: list[str] | None, refused: bool
) -> None:
    meta = _as_metadata()
    if methods is None:
        del meta["code_challenge_methods_supported"]
    else:
        meta["code_challenge_methods_supported"] = methods
    servers = FakeServers(_routes(meta=meta))
    if refused:
        with pytest.raises(AuthFailure) as failed:
            run(servers, _input(version))
        assert failed.value.expectation == "no-s256"
    else:
        run(servers, _input(version))


def test_issuer_mismatch_is_refused() -> None:
    servers = FakeServers(_routes(meta=_as_metadata(issuer="http://evil.test")))
    with pytest.raises(AuthFailure) as failed:
        run(servers, _input())
    assert failed.value.expectation == "issuer-mismatch"


def test_resource_mismatch_is_refused() -> None:
    servers = FakeServers(_routes(prm={"resource": "http://other.test/mcp", "authorization_servers": [AS]}))
    with pytest.raises(AuthFailure) as failed:
        run(servers, _input())
    assert failed.value.expectation == "resource-mismatch"


def test_pre_registered_and_metadata_document_come_before_dcr() -> None:
    servers = FakeServers(_routes(meta=_as_metadata(client_id_metadata_document_supported=True)))
    done, names, _ = run(servers, _input(options=ClientOptions(client_metadata_url="https://c.test/m.json")))
    assert (
        done.client.client_id == "https://c.test/m.json" and ("POST", f"{AS}/register") not in servers.asked
    )
    done, _, _ = run(servers, _input(options=ClientOptions(client_id="pre", client_secret="s")))
    assert done.client.client_id == "pre"


def test_no_registration_possible() -> None:
    meta = _as_metadata()
    del meta["registration_endpoint"]
    with pytest.raises(AuthFailure) as failed:
        run(FakeServers(_routes(meta=meta)), _input())
    assert failed.value.expectation == "no-registration"


@pytest.mark.parametrize(
    ("given", "header", "supported", "expected"),
    [
        (None, "a b", ["x"], "a b"),
        (None, None, ["x", "y"], "x y"),
        (None, None, None, None),
        ("mine", "a", ["x"], "mine"),
    ],
)
def test_scope_selection(given: str | None, header: str | None, supported: Any, expected: str | None) -> None:
    assert select_scope(given, header, supported) == expected


def test_step_up_keeps_earlier_scopes() -> None:
    assert merge_scopes("a b", "b c") == "a b c"
    servers = FakeServers(_routes())
    _, _, sent = run(
        servers, _input(header='Bearer error="insufficient_scope", scope="w"', previous_scope="r")
    )
    assert parse_qs(urlsplit(sent[3].url).query)["scope"] == ["r w"]


@pytest.mark.parametrize(
    ("secret", "registered", "supported", "expected"),
    [
        (None, None, ["client_secret_basic"], "none"),
        ("s", None, ["client_secret_post"], "client_secret_post"),
        ("s", None, None, "client_secret_basic"),
        ("s", "client_secret_post", ["client_secret_basic", "client_secret_post"], "client_secret_post"),
    ],
)
def test_token_endpoint_auth_method(
    secret: str | None, registered: str | None, supported: Any, expected: str
) -> None:
    meta = {} if supported is None else {"token_endpoint_auth_methods_supported": supported}
    assert auth_method(ClientIdentity("id", secret, "dcr", registered), meta) == expected


def test_basic_auth_is_form_encoded_then_base64() -> None:
    servers = FakeServers(
        _routes(meta=_as_metadata(token_endpoint_auth_methods_supported=["client_secret_basic"]))
    )
    _, _, sent = run(servers, _input(options=ClientOptions(client_id="a b", client_secret="p:w")))
    header = sent[-1].headers["authorization"]
    assert base64.b64decode(header.split()[1]).decode() == "a%20b:p%3Aw"


@pytest.mark.parametrize(
    ("version", "iss", "advertised", "failure"),
    [
        ("2026-07-28", "https://as.test", True, None),
        ("2026-07-28", "http://evil.test", False, "issuer-mismatch"),
        ("2026-07-28", None, True, "iss-missing"),
        ("2026-07-28", None, False, None),
        ("2026-07-28", "https://AS.test", True, "issuer-mismatch"),  # no case folding
        ("2025-11-25", "http://evil.test", True, None),  # not asked by that revision
    ],
)
def test_iss_check(version: str, iss: str | None, advertised: bool, failure: str | None) -> None:
    meta = {"authorization_response_iss_parameter_supported": advertised}
    if failure is None:
        check_iss(iss, AS, meta, revision_for(version))
    else:
        with pytest.raises(AuthFailure) as failed:
            check_iss(iss, AS, meta, revision_for(version))
        assert failed.value.expectation == failure


def test_refresh_keeps_the_old_refresh_token_when_none_is_given() -> None:
    from inspector.auth.flow import refresh
    from inspector.auth.tokens import Tokens

    done = Authorized(
        Tokens("old", refresh_token="rt", expires_at=0.0),
        ClientIdentity("cid", "sec", "dcr", "client_secret_post"),
        AS,
        SERVER,
        _as_metadata(),
        None,
    )
    assert done.tokens.expired()
    flow = refresh(done, revision_for("2025-11-25"))
    step = flow.send(None)
    assert step.name == "refresh" and step.request is not None
    form = parse_qs(step.request.body.decode())
    assert form == {
        "grant_type": ["refresh_token"],
        "refresh_token": ["rt"],
        "resource": [SERVER],
        "client_id": ["cid"],
        "client_secret": ["sec"],
    }
    with pytest.raises(StopIteration) as stop:
        flow.send(_json({"access_token": "new", "expires_in": 3600}))
    fresh = stop.value.value
    assert fresh.tokens.access_token == "new" and fresh.tokens.refresh_token == "rt"
    assert not fresh.tokens.expired()


def test_store_is_private_and_round_trips(tmp_path: Any) -> None:
    import stat

    from inspector.auth.store import AuthStore
    from inspector.auth.tokens import Tokens

    path = tmp_path / "cfg" / "auth.json"
    store = AuthStore(path)
    assert store.grant_for(SERVER) is None
    done = Authorized(
        Tokens("at", refresh_token="rt"), ClientIdentity("cid", None, "dcr"), AS, SERVER, {}, "s"
    )
    store.save(SERVER, done)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = AuthStore(path).grant_for(SERVER)
    assert again is not None and again.tokens.access_token == "at" and again.client.client_id == "cid"
    assert AuthStore(path).clients()[AS].client_id == "cid"


def test_a_stored_registration_is_reused_only_with_its_redirect_uri() -> None:
    stored = ClientIdentity("old", None, "dcr", None, REDIRECT)
    servers = FakeServers(_routes())
    done, names, sent = run(servers, _input(known_clients={AS: stored}))
    assert done.client.client_id == "old" and "registration" in names  # a local step: reused
    assert not any(r.url == f"{AS}/register" for r in sent)
    moved = ClientIdentity("old", None, "dcr", None, "http://127.0.0.1:1/callback")
    done, names, sent = run(servers, _input(known_clients={AS: moved}))
    assert done.client.client_id == "cid" and done.client.redirect_uri == REDIRECT
    assert [r.url for r in sent].count(f"{AS}/register") == 1
