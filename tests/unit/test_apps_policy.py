"""The App view sandbox (inspector.apps.policy), the recording's answers to a view (catalog) and the
single-use view grants: pure functions, no IO."""

from __future__ import annotations

from inspector.apps import ViewGrant, ViewGrants, allow_attribute, build_catalog, view_csp
from inspector.apps.catalog import AppRequest

UI = "http://127.0.0.1:8000"


def directives(policy: str) -> dict[str, str]:
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] for d in policy.split("; ")}


def test_default_view_policy_has_no_network() -> None:
    policy, dropped = view_csp({}, UI)
    d = directives(policy)
    assert d["default-src"] == "'none'" and d["connect-src"] == "'none'"
    assert d["script-src"] == "'unsafe-inline'"  # inline only: no remote script, not even ours
    assert d["img-src"] == "data: blob:" and d["frame-src"] == "'none'" and d["base-uri"] == "'none'"
    assert d["frame-ancestors"] == UI and d["sandbox"] == "allow-scripts"
    assert dropped == []


def test_declared_domains_open_exactly_their_directives() -> None:
    ui = {
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.com"],
            "frameDomains": ["https://www.youtube.com/embed/"],
        }
    }
    d = directives(view_csp(ui, UI)[0])
    assert d["connect-src"] == "https://api.example.com wss://live.example.com:8443"
    assert d["script-src"] == "'unsafe-inline' https://*.cdn.example.com"
    assert d["img-src"] == "data: blob: https://*.cdn.example.com"
    assert d["frame-src"] == "https://www.youtube.com/embed/"
    assert d["base-uri"] == "'none'"


def test_a_declared_source_cannot_inject_a_directive_or_keyword() -> None:
    evil = [
        "https://ok.example.com",
        "https://x.example.com; script-src *",
        "'unsafe-eval'",
        "*",
        "https://a.com https://b.com",
        "data:",
        "javascript:alert(1)",
        42,
    ]
    policy, dropped = view_csp({"csp": {"connectDomains": evil, "resourceDomains": "not a list"}}, UI)
    d = directives(policy)
    assert d["connect-src"] == "https://ok.example.com"
    assert d["script-src"] == "'unsafe-inline'"
    assert len(dropped) == len(evil) - 1 and "'unsafe-eval'" in dropped
    assert policy.count("script-src") == 1


def test_permissions_map_to_allow_only_when_declared_and_granted() -> None:
    assert allow_attribute({}) == ""
    assert allow_attribute({"permissions": {}}) == ""
    both = {"permissions": {"camera": {}, "clipboardWrite": {}}}
    assert allow_attribute(both) == ""  # declared, not granted (issue #33)
    assert allow_attribute(both, {"camera", "clipboardWrite", "geolocation"}) == "camera; clipboard-write"
    assert allow_attribute({"permissions": {"usb": {}, "microphone": None}}, {"usb", "microphone"}) == ""


def _call(seq: int, name: str, args: dict[str, object], text: str | None) -> AppRequest:
    result = {"content": [{"type": "text", "text": text}]} if text is not None else None
    return AppRequest(seq, "tools/call", {"name": name, "arguments": args}, seq + 1 if text else None, result)


def test_catalog_answers_a_view_from_matching_exchanges_only() -> None:
    tools = AppRequest(
        1,
        "tools/list",
        {},
        2,
        {
            "tools": [
                {"name": "show", "_meta": {"ui": {"resourceUri": "ui://v/a.html"}}},
                {"name": "plain"},
                {"name": "web", "_meta": {"ui": {"resourceUri": "https://not-a-view"}}},
            ]
        },
    )
    read = AppRequest(
        3,
        "resources/read",
        {"uri": "ui://v/a.html"},
        4,
        {"contents": [{"uri": "ui://v/a.html", "mimeType": "text/html;profile=mcp-app", "text": "<p>"}]},
    )
    cat = build_catalog(
        [
            tools,
            read,
            _call(5, "show", {"x": 1}, "shown"),
            _call(7, "plain", {"q": "a"}, "old"),
            _call(9, "plain", {"q": "a"}, "new"),
            _call(11, "plain", {"q": "never"}, None),
        ]
    )
    assert list(cat.tools) == ["show"]
    assert [c.seq for c in cat.view_calls()] == [5]
    assert cat.content("ui://v/a.html") == read.result["contents"][0]  # type: ignore[index]
    found = cat.answer("tools/call", {"name": "plain", "arguments": {"q": "a"}})
    assert found is not None and found.seq == 9  # the newest matching exchange
    assert cat.answer("tools/call", {"name": "plain", "arguments": {"q": "b"}}) is None
    assert cat.answer("tools/call", {"name": "plain", "arguments": {"q": "never"}}) is None  # unanswered
    assert cat.answer("resources/read", {"uri": "ui://v/a.html"}) == read
    assert cat.answer("ui/message", {}) is None


def test_view_grants_are_single_use_and_expire() -> None:
    grants = ViewGrants(ttl=60)
    cap = grants.add(ViewGrant("<p>", "default-src 'none'"))
    assert len(cap) >= 32
    assert grants.take("guess") is None
    assert grants.take(cap) is not None
    assert grants.take(cap) is None
    stale = ViewGrants(ttl=-1)  # already expired when taken
    cap = stale.add(ViewGrant("<p>", ""))
    assert stale.take(cap) is None
