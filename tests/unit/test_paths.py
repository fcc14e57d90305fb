"""Diff paths: readable text that reads back, and ignore patterns (wildcards, scopes, negation)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.replay.paths import (
    ANY,
    ANY_DEEP,
    Item,
    PathSet,
    format_path,
    format_scope,
    parse_path,
)


@pytest.mark.parametrize(
    ("text", "segs"),
    [
        ("result.content[0].text", ("result", "content", 0, "text")),
        (
            "result.tools[name=weather].description",
            ("result", "tools", Item("name", "weather"), "description"),
        ),
        (
            "result.contents[uri=file:///a b.txt].text",
            ("result", "contents", Item("uri", "file:///a b.txt"), "text"),
        ),
        ("notifications[notifications/progress]", ("notifications", Item("", "notifications/progress"))),
        (
            'result._meta["io.modelcontextprotocol/serverInfo"]',
            ("result", "_meta", "io.modelcontextprotocol/serverInfo"),
        ),
        ('a["x]y"][k="a]b"][="n=1"]', ("a", "x]y", Item("k", "a]b"), Item("", "n=1"))),
        ('[0][""].0', (0, "", "0")),
        ('a["*"]', ("a", "*")),
        ("", ()),
    ],
)
def test_format_and_parse(text: str, segs: tuple) -> None:
    assert format_path(segs) == text
    assert parse_path(text) == segs


def test_wildcards_only_in_patterns() -> None:
    assert parse_path("**.a.*", wildcards=True) == (ANY_DEEP, "a", ANY)
    assert format_path((ANY_DEEP, "a", ANY)) == "**.a.*"
    with pytest.raises(ValueError, match="only allowed in patterns"):
        parse_path("a.*")


@pytest.mark.parametrize("bad", ["a..b", ".a", "a[", "a[]", "a]b", 'a["x', "a b", "a[0]b"])
def test_bad_paths(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_path(bad, wildcards=True)


def test_format_scope() -> None:
    assert format_scope("tools/call") == "tools/call"
    assert format_scope("tools/call", Item("name", "echo")) == "tools/call[name=echo]"
    assert format_scope("resources/read", Item("uri", "a]b")) == 'resources/read[uri="a]b"]'
    assert format_scope("odd method:x") == '"odd method:x"'
    assert format_scope("!neg") == '"!neg"'


@pytest.mark.parametrize("method", ["odd method", "a:b", "!bang", 'q"uote', "x[y]", "(invalid)", ""])
def test_any_method_can_scope_a_pattern(method: str) -> None:
    for subject in (None, Item("name", "a b]")):
        ps = PathSet([f"{format_scope(method, subject)}:params.x"])
        assert ps.matches(("params", "x"), method, subject)
        assert not ps.matches(("params", "x"), method + "!", subject)


segments = st.one_of(
    st.text(max_size=6),
    st.integers(0, 99),
    st.builds(Item, st.sampled_from(["", "name", "uri", "uriTemplate"]), st.text(max_size=6)),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(segments, max_size=5))
def test_round_trip(segs: list) -> None:
    assert parse_path(format_path(segs)) == tuple(segs)


@settings(max_examples=300, deadline=None)
@given(st.lists(segments, max_size=4), st.text(max_size=6), st.one_of(st.none(), st.text(max_size=6)))
def test_a_path_scoped_to_its_method_matches_itself(segs: list, method: str, subject: str | None) -> None:
    item = Item("name", subject) if subject is not None else None
    pattern = f"{format_scope(method, item)}:{format_path(segs)}"
    ps = PathSet([pattern])
    assert ps.matches(tuple(segs), method, item)
    assert not ps.matches(tuple(segs), method + "x", item)


def test_matching() -> None:
    ps = PathSet(["**.progressToken", "params._meta", "result.tools.*.title", "x.**.y"])
    assert ps.patterns == ["**.progressToken", "params._meta", "result.tools.*.title", "x.**.y"]
    assert ps.matches(("params", "_meta", "progressToken"))
    assert ps.matches(("progressToken",))
    assert ps.matches(("params", "_meta"))
    assert ps.matches(("params", "_meta", "anything", "below"))  # under an ignored path
    assert not ps.matches(("params",))
    assert not ps.matches(("result", "_meta"))
    assert ps.matches(("result", "tools", Item("name", "a"), "title"))
    assert ps.matches(("result", "tools", 3, "title"))
    assert not ps.matches(("result", "tools", "title"))
    assert ps.matches(("x", "y")) and ps.matches(("x", 1, "z", "y"))
    assert not ps.matches(("x", "z"))
    assert not ps.matches(("progressTokens",))


def test_index_and_key_segments_differ() -> None:
    ps = PathSet(["result.content[0]", "result.map.0"])
    assert ps.matches(("result", "content", 0))
    assert not ps.matches(("result", "content", "0"))
    assert ps.matches(("result", "map", "0"))
    assert not ps.matches(("result", "map", 0))
    keyed = PathSet(["result.tools[name=a]"])
    assert keyed.matches(("result", "tools", Item("name", "a"), "x"))
    assert not keyed.matches(("result", "tools", Item("uri", "a")))


def test_scopes() -> None:
    ps = PathSet(["initialize:result.serverInfo.version", "tools/call[name=clock]:result", "ping:"])
    path = ("result", "serverInfo", "version")
    assert ps.matches(path, "initialize")
    assert not ps.matches(path)
    assert not ps.matches(path, "server/discover")
    assert ps.matches(("result", "content"), "tools/call", Item("name", "clock"))
    assert not ps.matches(("result", "content"), "tools/call", Item("name", "echo"))
    assert not ps.matches(("result", "content"), "tools/call")
    assert ps.matches((), "ping") and ps.matches(("result",), "ping")
    assert not ps.matches((), "tools/call", Item("name", "clock"))
    # A colon inside brackets is not a scope.
    uri = PathSet(["result.contents[uri=demo://readme].text"])
    assert uri.matches(("result", "contents", Item("uri", "demo://readme"), "text"))


def test_negation_last_match_wins() -> None:
    info = '["io.modelcontextprotocol/serverInfo"]'
    ps = PathSet([f"result._meta{info}", f"!server/discover:result._meta{info}"])
    path = ("result", "_meta", "io.modelcontextprotocol/serverInfo", "version")
    assert ps.matches(path, "tools/call")
    assert not ps.matches(path, "server/discover")
    # Order matters: a later positive pattern wins again.
    again = ps + ["server/discover:result._meta.**"]
    assert again.matches(path, "server/discover")
    # Like .gitignore: a path under an ignored one cannot be re-included.
    parent = PathSet(["result", "!result.keep"])
    assert parent.matches(("result", "keep"))


def test_cursor_walk_agrees_with_matches() -> None:
    ps = PathSet(["**.ts", "a.b"])
    cur = ps.cursor()
    assert not cur.hit and not cur.dead
    a = cur.child("a")
    assert a.child("b").hit
    assert a.child("c").child("ts").hit
    dead = PathSet(["a.b"]).cursor().child("z")
    assert dead.dead and not dead.hit
    both = PathSet(["m:params.x", "notifications[m].params.y"])
    union = both.cursor("m") | both.cursor().child("notifications").child(Item("", "m"))
    assert union.child("params").child("x").hit and union.child("params").child("y").hit
    assert not union.child("params").child("z").hit


@pytest.mark.parametrize("bad", ["", "  ", "a..b", ":x", "tools call:x", "m[name]:x", "m[name=x]y:z", "a["])
def test_bad_patterns(bad: str) -> None:
    with pytest.raises(ValueError):
        PathSet([bad])
