"""The redaction step and its JSON span scanner, without IO: rows in, rows out."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.capture.json_spans import value_spans
from inspector.capture.redact import Redaction, Secrets, placeholder

USER = Redaction.from_config(["note"], ["params.arguments.api_key"], environ={})


def _row(raw: bytes = b"", **extra: Any) -> dict[str, Any]:
    row = {"session_id": 1, "raw": raw, "size": len(raw), "kind": "request", "channel": "stdin"}
    return {**row, "http_headers": None, "http_path": None, "meta": None, **extra}


def test_spans_skip_escapes_nesting_and_empty_containers() -> None:
    doc = b' {"a" : {"b": [ {}, [], {"c": "x\\"}y"} ], "d" : "v\\u00e9"}, "e": {"d": 1}} '
    spans = value_spans(doc, lambda p: ("/".join(p), False) if p[-1] in ("c", "d") else None, 1)
    assert [(doc[s:e], name) for s, e, name in spans] == [
        (b'"x\\"}y"', "a/b/c"),  # arrays are transparent in paths
        (b'"v\\u00e9"', "a/d"),
        (b"1", "e/d"),
    ]


def test_a_wanted_container_is_one_span_and_depth_is_no_limit() -> None:
    deep = b'{"k":' + b"[" * 5000 + b"]" * 5000 + b',"z":{"y":[1,{"k":2}]}}'
    spans = value_spans(deep, lambda p: ("k", False) if p[-1] in ("k", "z") else None)
    assert [(s, e) for s, e, _ in spans] == [(5, 10005), (deep.index(b'{"y"'), len(deep) - 1)]


def test_strings_only_leaves_numbers_alone() -> None:
    doc = b'{"code": -32601, "x": {"code": "abc"}}'
    assert [doc[s:e] for s, e, _ in value_spans(doc, lambda p: ("c", True) if p[-1] == "code" else None)] == [
        b'"abc"'
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "note", 'é"\\']), inner, max_size=4)
    ),
    max_leaves=20,
)


def _replace(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "[secret:body.note]" if k == "note" else _replace(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans())
def test_a_redacted_body_is_valid_json_equal_but_for_the_secrets(value: Any, pretty: bool) -> None:
    raw = json.dumps(value, indent=1 if pretty else None).encode()
    row = _row(raw)
    USER.row(row)
    assert json.loads(row["raw"]) == _replace(value)
    if row["raw"] == raw:
        assert row["meta"] is None


def test_headers_query_and_placeholders() -> None:
    row = _row(
        kind="http",
        channel="http-request",
        http_path="/mcp?api_key=K1&x=1&sessionId=s&KEY=K2",
        http_headers=[
            ["Authorization", "Bearer T"],
            ["Proxy-Authorization", "Basic B"],
            ["X-Goog-Api-Key", "G"],
            ["X-Note", "N"],
            ["note", "n"],
            ["Mcp-Session-Id", "s"],
            ["Set-Cookie", "Sid=V; Path=/; Secure"],
        ],
    )
    USER.row(row)
    assert row["http_path"] == "/mcp?api_key=[secret:query.api_key]&x=1&sessionId=s&KEY=[secret:query.key]"
    assert dict(row["http_headers"]) == {
        "Authorization": "Bearer [secret:authorization]",
        "Proxy-Authorization": "Basic [secret:proxy-authorization]",
        "X-Goog-Api-Key": "[secret:x-goog-api-key]",
        "X-Note": "N",  # a user name is matched whole, not as a pattern
        "note": "[secret:note]",
        "Mcp-Session-Id": "s",
        "Set-Cookie": "Sid=[secret:set-cookie.sid]; Path=/; Secure",
    }
    again = dict(row)
    USER.row(again)  # redacting a stored row again changes nothing
    assert again["http_headers"] == row["http_headers"] and again["http_path"] == row["http_path"]
    assert placeholder("X Weird/Name") == "[secret:x_weird_name]"


def test_oauth_keys_only_outside_json_rpc_and_keep_secrets_is_off() -> None:
    oauth = b'{"access_token":"A","code":"C"}'
    rpc = b'{"jsonrpc":"2.0","id":1,"result":{"code":"print(1)","access_token":"tool output"}}'
    http_row, rpc_row = _row(oauth, kind="invalid", channel="http-response"), _row(rpc, kind="response")
    Redaction().row(http_row)
    Redaction().row(rpc_row)
    assert http_row["raw"] == b'{"access_token":"[secret:body.access_token]","code":"[secret:body.code]"}'
    assert rpc_row["raw"] == rpc and rpc_row["meta"] is None
    kept = _row(oauth, kind="invalid", channel="http-response", http_headers=[["Cookie", "c"]])
    Redaction(keep=True).row(kept)
    assert kept["raw"] == oauth and kept["http_headers"] == [["Cookie", "c"]]
    form = _row(b"grant_type=password&username=u&password=p%26q", kind="invalid", channel="http-request")
    Redaction().row(form)
    assert form["raw"] == b"grant_type=password&username=u&password=[secret:body.password]"


def test_targets_and_secrets_put_back() -> None:
    rules = Redaction()
    assert (
        rules.target("https://u:pw@h/mcp?token=T#f")
        == "https://u:[secret:url.password]@h/mcp?token=[secret:query.token]#f"
    )
    assert rules.target(["npx", "srv", "http://h/?key=K"]) == [
        "npx",
        "srv",
        "http://h/?key=[secret:query.key]",
    ]
    assert Redaction(keep=True).target("http://h/?key=K") == "http://h/?key=K"
    secrets = Secrets({"query.token": "T"}, {"MCP_INSPECTOR_SECRET_BODY_NOTE": "N"})
    assert (
        secrets.text("/mcp?token=[secret:query.token]&x=[secret:query.x]")
        == "/mcp?token=T&x=[secret:query.x]"
    )
    assert secrets.bytes(b'{"note":"[secret:body.note]"}') == b'{"note":"N"}'
    assert secrets.used == {"query.token": "T", "body.note": "N"} and secrets.missing == ["query.x"]
    replayed = rules.with_values(secrets.used)
    row = _row(b'{"note":"N!","t":"T"}')  # too short to be taken for a secret: "T", "N" (under 4 characters)
    replayed.row(row)
    assert row["raw"] == b'{"note":"N!","t":"T"}'
    long = Redaction().with_values({"authorization": "Bearer-Secret"})
    row = _row(b'{"echo":"Bearer-Secret"}', http_path="/mcp", http_headers=[["X", "Bearer-Secret"]])
    long.row(row)
    assert row["raw"] == b'{"echo":"[secret:authorization]"}' and row["http_headers"] == [
        ["X", "[secret:authorization]"]
    ]


def test_command_line_secrets() -> None:
    rules = Redaction.from_config(["mykey"], environ={})
    typed = [
        "srv", "--api-key", "K1", "--token=K2", "-e", "GITHUB_TOKEN=K3", "--password", "K4",
        "--header", "Authorization: Bearer K5", "--mykey", "K6", "http://h/?api_key=K7",
    ]  # fmt: skip
    assert rules.target(typed) == [
        "srv", "--api-key", "[secret:arg.api-key]", "--token=[secret:arg.token]", "-e",
        "GITHUB_TOKEN=[secret:arg.github_token]", "--password", "[secret:arg.password]", "--header",
        "Authorization: Bearer [secret:authorization]", "--mykey", "[secret:arg.mykey]",
        "http://h/?api_key=[secret:query.api_key]",
    ]  # fmt: skip
    # Names that say where a secret is, how many tokens, or switch something: kept; never a flag.
    plain = [
        "mcp-inspect", "wrap", "--keep-secrets", "--", "srv", "--max-tokens", "100", "--token-file",
        "/run/t", "--no-token", "--verbose", "--no-auth", "/srv/data", "-e", "HOME=/h",
    ]  # fmt: skip
    assert rules.target(plain) == plain
    assert Redaction(keep=True).target(typed) == typed
    assert Redaction().with_values({"arg.x": "LongSecret"}).target(["srv", "a=LongSecret"]) == [
        "srv",
        "a=[secret:arg.x]",
    ]
    secrets = Secrets({"arg.api-key": "K1"}, {"MCP_INSPECTOR_SECRET_ARG_TOKEN": "K2"})
    stored = rules.target(typed)
    assert secrets.unknown(stored) == [
        "arg.github_token", "arg.password", "authorization", "arg.mykey", "query.api_key"
    ]  # fmt: skip
    assert [secrets.text(w) for w in stored][1:4] == ["--api-key", "K1", "--token=K2"]
