"""The sans-IO authorization server of `serve --auth` (inspector/mock/auth_server.py): what it refuses,
what it issues, and that no input makes it raise (every answer is below 500)."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector.mock.auth_pages as auth_pages_module
import inspector.mock.auth_server as auth_server_module
from inspector.mock.auth_server import AuthServer, Reply, Settings
from tests.unit.test_protocol_is_sans_io import forbidden_imports

ORIGIN = "http://127.0.0.1:5000"
REDIRECT = "http://127.0.0.1:6000/callback"
VERIFIER = "v" * 50
NOW = 1_000_000.0


def _challenge(verifier: str = VERIFIER) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _json(reply: Reply) -> dict[str, Any]:
    value = orjson.loads(reply.body)
    assert isinstance(value, dict)
    return value


def _register(server: AuthServer, method: str = "client_secret_post") -> dict[str, Any]:
    body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method, "client_name": "t <b>"}
    reply = server.register(orjson.dumps(body), NOW)
    assert reply.status == 201, reply.body
    return _json(reply)


def _authorize(server: AuthServer, client: dict[str, Any], **extra: str) -> Reply:
    params = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": REDIRECT,
        "state": "s1",
        "code_challenge": _challenge(),
        "code_challenge_method": "S256",
        "resource": ORIGIN + "/mcp",
        **extra,
    }
    return server.authorize(urlencode({k: v for k, v in params.items() if v != "-"}), ORIGIN, NOW)


def _query(reply: Reply) -> dict[str, str]:
    assert reply.status in (302, 303), reply.body
    location = reply.headers["location"]
    assert location.startswith(REDIRECT)
    return dict(parse_qsl(urlsplit(location).query))


def _token(server: AuthServer, client: dict[str, Any], **form: str) -> Reply:
    data = {"client_id": client["client_id"], **form}
    if client["token_endpoint_auth_method"] == "client_secret_post":
        data["client_secret"] = client["client_secret"]
    return server.token(urlencode(data).encode(), None, ORIGIN, NOW + 1)


def _tokens(server: AuthServer, client: dict[str, Any]) -> dict[str, Any]:
    code = _query(_authorize(server, client))["code"]
    reply = _token(
        server,
        client,
        grant_type="authorization_code",
        code=code,
        redirect_uri=REDIRECT,
        code_verifier=VERIFIER,
    )
    assert reply.status == 200, reply.body
    return _json(reply)


def test_the_core_does_no_io() -> None:
    for module in (auth_server_module, auth_pages_module):
        assert forbidden_imports(Path(module.__file__).read_text()) == set(), module.__name__


def test_documents_point_at_each_other() -> None:
    server = AuthServer(Settings())
    prm = _json(server.protected_resource_metadata(ORIGIN))
    assert prm["resource"] == ORIGIN + "/mcp" and prm["authorization_servers"] == [ORIGIN]
    meta = _json(server.as_metadata(ORIGIN))
    assert meta["issuer"] == ORIGIN
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["token_endpoint"] == ORIGIN + "/token"
    challenge = server.check_bearer(None, [], ORIGIN, NOW)
    assert challenge is not None and challenge.status == 401
    assert challenge.headers["www-authenticate"] == (
        f'Bearer scope="mcp", resource_metadata="{ORIGIN}/.well-known/oauth-protected-resource/mcp"'
    )


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("wrong-issuer", lambda s: _json(s.as_metadata(ORIGIN))["issuer"] != ORIGIN),
        (
            "resource-mismatch",
            lambda s: _json(s.protected_resource_metadata(ORIGIN))["resource"] != ORIGIN + "/mcp",
        ),
        ("no-s256", lambda s: "code_challenge_methods_supported" not in _json(s.as_metadata(ORIGIN))),
    ],
)
def test_document_faults(fault: str, check: Any) -> None:
    assert check(AuthServer(Settings(frozenset({fault}))))
    assert not check(AuthServer(Settings()))


def test_unknown_fault_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown authorization fault"):
        Settings(frozenset({"wrong-audience"}))


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic", "none"])
def test_code_flow_and_refresh_rotation(method: str) -> None:
    server = AuthServer(Settings())
    client = _register(server, method)
    assert ("client_secret" in client) == (method != "none")
    reply = _authorize(server, client)
    query = _query(reply)
    assert query["state"] == "s1" and query["iss"] == ORIGIN
    form = {"grant_type": "authorization_code", "code": query["code"], "redirect_uri": REDIRECT,
            "code_verifier": VERIFIER, "client_id": client["client_id"]}  # fmt: skip
    basic = None
    if method == "client_secret_post":
        form["client_secret"] = client["client_secret"]
    elif method == "client_secret_basic":
        basic = (
            "Basic " + base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
        )
    issued = server.token(urlencode(form).encode(), basic, ORIGIN, NOW + 1)
    assert issued.status == 200, issued.body
    tokens = _json(issued)
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "mcp"
    assert issued.headers["cache-control"] == "no-store"
    assert server.check_bearer(f"Bearer {tokens['access_token']}", ["tools/call"], ORIGIN, NOW + 2) is None
    # The code is used once.
    again = server.token(urlencode(form).encode(), basic, ORIGIN, NOW + 1)
    assert again.status == 400 and _json(again)["error"] == "invalid_grant"
    refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], **{
        k: v for k, v in form.items() if k in ("client_id", "client_secret")}}  # fmt: skip
    renewed = server.token(urlencode(refresh).encode(), basic, ORIGIN, NOW + 3)
    assert renewed.status == 200 and _json(renewed)["refresh_token"] != tokens["refresh_token"]
    rotated = server.token(urlencode(refresh).encode(), basic, ORIGIN, NOW + 4)
    assert rotated.status == 400 and _json(rotated)["error"] == "invalid_grant"


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        ({"code_challenge": "-", "code_challenge_method": "-"}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "admin"}, "invalid_scope"),
        ({"resource": "http://127.0.0.1:5000/other"}, "invalid_target"),
    ],
)
def test_authorization_errors_go_back_to_the_client(extra: dict[str, str], error: str) -> None:
    server = AuthServer(Settings())
    query = _query(_authorize(server, _register(server), **extra))
    assert query["error"] == error and query["state"] == "s1" and "code" not in query


def test_an_untrusted_redirect_uri_is_never_redirected_to() -> None:
    server = AuthServer(Settings())
    client = _register(server)
    for reply in (
        _authorize(server, client, redirect_uri="http://127.0.0.1:6000/elsewhere"),
        _authorize(server, {"client_id": "nobody"}),
    ):
        assert reply.status == 400 and "location" not in reply.headers
    bad = server.register(orjson.dumps({"redirect_uris": ["http://example.com/cb"]}), NOW)
    assert bad.status == 400 and _json(bad)["error"] == "invalid_redirect_uri"


def test_pkce_and_client_auth_are_checked() -> None:
    server = AuthServer(Settings())
    client = _register(server)
    code = _query(_authorize(server, client))["code"]
    wrong = _token(server, client, grant_type="authorization_code", code=code, redirect_uri=REDIRECT,
                   code_verifier="w" * 50)  # fmt: skip
    assert wrong.status == 400 and _json(wrong)["error"] == "invalid_grant"
    code = _query(_authorize(server, client))["code"]
    no_secret = server.token(
        urlencode({"grant_type": "authorization_code", "code": code, "client_id": client["client_id"],
                   "redirect_uri": REDIRECT, "code_verifier": VERIFIER}).encode(), None, ORIGIN, NOW)  # fmt: skip
    assert no_secret.status == 401 and _json(no_secret)["error"] == "invalid_client"


def test_bearer_check_and_the_token_faults() -> None:
    server = AuthServer(Settings(frozenset({"expired-token", "step-up"})))
    client = _register(server)
    first = _tokens(server, client)["access_token"]
    assert server.check_bearer("Bearer nope", [], ORIGIN, NOW) is not None
    assert server.check_bearer(f"Bearer {first}", ["initialize"], ORIGIN, NOW) is None
    expired = server.check_bearer(f"Bearer {first}", ["tools/list"], ORIGIN, NOW)
    assert expired is not None and expired.status == 401
    assert 'error="invalid_token"' in expired.headers["www-authenticate"]
    second = _tokens(server, client)["access_token"]
    assert server.check_bearer(f"Bearer {second}", ["tools/list"], ORIGIN, NOW) is None
    step_up = server.check_bearer(f"Bearer {second}", ["tools/call"], ORIGIN, NOW)
    assert step_up is not None and step_up.status == 403
    assert 'error="insufficient_scope", ' in step_up.headers["www-authenticate"]
    assert 'scope="mcp mcp:tools"' in step_up.headers["www-authenticate"]
    wide = _query(_authorize(server, client, scope="mcp mcp:tools"))["code"]
    tokens = _json(_token(server, client, grant_type="authorization_code", code=wide, redirect_uri=REDIRECT,
                          code_verifier=VERIFIER))  # fmt: skip
    assert server.check_bearer(f"Bearer {tokens['access_token']}", ["tools/call"], ORIGIN, NOW) is None
    later = server.check_bearer(f"Bearer {tokens['access_token']}", [], ORIGIN, NOW + 3602)
    assert later is not None and later.status == 401


def test_approval_page_escapes_and_decides() -> None:
    server = AuthServer(Settings(approve="ui"))
    client = _register(server)
    page = _authorize(server, client)
    assert page.status == 200 and "frame-ancestors 'none'" in page.headers["content-security-policy"]
    text = page.body.decode()
    assert "t &lt;b&gt;" in text and "t <b>" not in text
    request_id = text.split('name=request value="', 1)[1].split('"', 1)[0]
    denied = server.decide(urlencode({"request": request_id, "decision": "deny"}).encode(), NOW)
    assert _query(denied)["error"] == "access_denied" and denied.status == 303
    # Decided once: the same id is unknown now.
    assert (
        server.decide(urlencode({"request": request_id, "decision": "approve"}).encode(), NOW).status == 400
    )
    text = _authorize(server, client).body.decode()
    request_id = text.split('name=request value="', 1)[1].split('"', 1)[0]
    approved = server.decide(urlencode({"request": request_id, "decision": "approve"}).encode(), NOW)
    assert "code" in _query(approved)


_junk = st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode))


@settings(max_examples=150, deadline=None)
@given(query=st.text(max_size=300), body=_junk, header=st.one_of(st.none(), st.text(max_size=80)))
def test_no_input_makes_it_raise(query: str, body: bytes, header: str | None) -> None:
    server = AuthServer(Settings(approve="ui"))
    client = _register(server)
    for reply in (
        server.authorize(query, ORIGIN, NOW),
        server.authorize(query + "&client_id=" + client["client_id"], ORIGIN, NOW),
        server.register(body, NOW),
        server.token(body, header, ORIGIN, NOW),
        server.decide(body, NOW),
    ):
        assert 200 <= reply.status < 500
    result = server.check_bearer(header, [], ORIGIN, NOW)
    assert result is None or result.status in (401, 403)


def test_scenario_auth_key_and_options_merge() -> None:
    from inspector.errors import InspectorError
    from inspector.scenario.models import Scenario
    from inspector.scenario.runner import ServeOptions, auth_settings

    plain = Scenario.model_validate({})
    assert auth_settings(plain, ServeOptions()) is None
    assert auth_settings(plain, ServeOptions(auth=True)) == Settings()
    keyed = Scenario.model_validate({"auth": {"approve": "ui", "faults": ["step-up"], "tokenLifetime": 5}})
    merged = auth_settings(keyed, ServeOptions(auth_faults=("no-s256",), approve="auto"))
    assert merged == Settings(frozenset({"step-up", "no-s256"}), "auto", 5)
    with pytest.raises(InspectorError, match="unknown authorization fault"):
        auth_settings(plain, ServeOptions(auth_faults=("bogus",)))
    with pytest.raises(ValueError, match="faults"):
        Scenario.model_validate({"auth": {"faults": ["bogus"]}})
