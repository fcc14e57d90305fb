"""The authorization lint rules beyond their one case each (tests/unit/test_lint_rules.py): a good
flow gives nothing, each variant of a rule is caught, revisions gate what they introduced, and
bodies are judged as the client got them."""

from __future__ import annotations

from typing import Any

from inspector.lint import check_rows
from tests.lint_auth_recordings import AS, AUTHORIZE, BASE, PRM, TOKEN, good_flow


def _found(**broken: Any) -> list[tuple[str, int]]:
    flow, _seqs = good_flow(**broken)
    return [(f.rule, f.seq) for f in check_rows(flow.rows)]


def test_a_good_flow_has_no_findings() -> None:
    """Also: the HTTP transport rules leave the OAuth legs alone (no Accept/Content-Type findings)."""
    flow, _seqs = good_flow()
    assert check_rows(flow.rows) == []


def test_each_broken_part_is_named() -> None:
    flow, seqs = good_flow(challenge=None)
    found = [(f.rule, f.seq, f.explanation) for f in check_rows(flow.rows)]
    assert found == [
        (
            "auth-401-without-resource-metadata",
            seqs["unauthorized"],
            "a 401 without a WWW-Authenticate header",
        )
    ]
    _flow, seqs = good_flow()
    plain = {**AUTHORIZE, "code_challenge_method": "plain"}
    assert _found(authorize=plain) == [("auth-no-pkce", seqs["authorize_req"])]
    no_resource = {k: v for k, v in AUTHORIZE.items() if k != "resource"}
    assert _found(authorize=no_resource) == [("auth-no-resource-parameter", seqs["authorize_req"])]
    assert _found(prm=[1, 2]) == [("auth-resource-metadata-incomplete", seqs["prm"])]
    assert _found(as_doc={**AS, "token_endpoint": ""}) == [("auth-server-metadata-incomplete", seqs["as"])]
    wrong_iss = f"http://127.0.0.1:9/callback?code=[redacted]&iss={BASE}/other"
    assert _found(location=wrong_iss) == [("auth-issuer-mismatch", seqs["authorize"])]


def test_issuer_with_a_path_and_the_oidc_forms() -> None:
    tenant = {**AS, "issuer": f"{BASE}/tenant1"}
    assert _found(as_path="/.well-known/oauth-authorization-server/tenant1", as_doc=tenant) == []
    assert _found(as_path="/.well-known/openid-configuration/tenant1", as_doc=tenant) == []
    assert _found(as_path="/tenant1/.well-known/openid-configuration", as_doc=tenant) == []
    _flow, seqs = good_flow()
    assert _found(as_path="/.well-known/oauth-authorization-server/tenant2", as_doc=tenant) == [
        ("auth-issuer-mismatch", seqs["as"])
    ]


def test_rules_of_later_revisions_skip_older_sessions() -> None:
    """A 2025-03-26 session: no resource metadata nor `resource` yet, no S256 advertisement rule."""
    flow, _seqs = good_flow(
        challenge='Bearer error="invalid_token"',
        prm={},
        authorize={k: v for k, v in AUTHORIZE.items() if k != "resource"},
        token={k: v for k, v in TOKEN.items() if k != "resource"},
        as_doc={k: v for k, v in AS.items() if k != "code_challenge_methods_supported"},
    )
    older = []
    for row in flow.rows:  # the legs carry the session's revision in their MCP-Protocol-Version header
        row = dict(row)
        if row["channel"] == "http-request":
            row["http_headers"] = [*row["http_headers"], ["mcp-protocol-version", "2025-03-26"]]
        older.append(row)
    flow.rows[:] = older
    rules = {f.rule for f in check_rows(flow.rows) if f.rule.startswith("auth-")}
    # The handshake says 2025-11-25, but the legs come before it and name 2025-03-26.
    assert rules == set(), rules


def test_legs_before_the_handshake_take_the_sessions_revision() -> None:
    """The mock client's 2025-03-26 flow (no resource metadata, no `resource`): its legs carry no
    revision of their own; the session's initialize names 2025-03-26, so the later rules stay off."""
    older = {
        "challenge": 'Bearer error="invalid_token"',
        "authorize": {k: v for k, v in AUTHORIZE.items() if k != "resource"},
        "token": {k: v for k, v in TOKEN.items() if k != "resource"},
        "as_doc": {k: v for k, v in AS.items() if k != "code_challenge_methods_supported"},
    }
    flow, _seqs = good_flow("2025-03-26", **older)
    assert check_rows(flow.rows) == []
    flow, _seqs = good_flow("2025-11-25", **older)
    assert {f.rule for f in check_rows(flow.rows)} == {
        "auth-401-without-resource-metadata",
        "auth-no-resource-parameter",
        "auth-server-metadata-incomplete",
    }


def test_the_body_the_client_got_is_judged() -> None:
    """The recording proxy keeps the server's bytes and puts what the client got in meta.rewritten_to."""
    flow, seqs = good_flow(prm={"resource": f"{BASE}/mcp"})
    row = next(r for r in flow.rows if r["seq"] == seqs["prm"])
    assert [(f.rule, f.seq) for f in check_rows(flow.rows)] == [
        ("auth-resource-metadata-incomplete", seqs["prm"])
    ]
    row["meta"] = {
        **row["meta"],
        "rewritten_to": {"body": '{"resource": "x", "authorization_servers": ["y"]}'},
    }
    assert check_rows(flow.rows) == []


def test_unlabelled_legs_are_recognised() -> None:
    """A recording without meta.auth_step (another tool's file): legs known by path, query and form."""
    flow, seqs = good_flow(authorize={k: v for k, v in AUTHORIZE.items() if k != "code_challenge"})
    for row in flow.rows:
        meta = dict(row.get("meta") or {})
        meta.pop("auth_step", None)
        row["meta"] = meta
    assert ("auth-no-pkce", seqs["authorize_req"]) in [(f.rule, f.seq) for f in check_rows(flow.rows)]
    assert PRM  # the shared documents stay unchanged by the cases
