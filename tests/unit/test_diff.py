"""Semantic session diff: exchanges aligned, volatile values ignored, noise calibrated."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.replay.diff import (
    DEFAULT_IGNORE,
    Change,
    PathSet,
    SessionDiff,
    default_ignore,
    diff_json,
    diff_sessions,
    noise_patterns,
    render_text,
)
from inspector.store.models import Message

NO_IGNORE = PathSet([])


def record(
    seq: int,
    direction: str,
    kind: str,
    method: str | None,
    rpc_id: str | None,
    answers_seq: int | None = None,
    payload: Any = None,
    related_seq: int | None = None,
    meta: dict[str, Any] | None = None,
) -> Message:
    """The store's record of one stdio line carrying `payload`, with the recorder's pairing."""
    raw = b"\xff not json\n" if payload is None else orjson.dumps(payload) + b"\n"
    meta = {**(meta or {}), **({"related_seq": related_seq} if related_seq is not None else {})}
    return Message(
        session_id=1, seq=seq, ts_ns=seq, direction=direction, channel="stdout" if direction == "s2c" else "stdin",
        raw=raw, size=len(raw), parse_status="ok", kind=kind, method=method, rpc_id=rpc_id,
        answers_seq=answers_seq, meta=meta or None,
    )  # fmt: skip


class Wire:
    """Builds one session's messages: seq from 1, JSON-RPC ids from `id_base`, pairing like the recorder."""

    def __init__(self, id_base: int = 1) -> None:
        self.msgs: list[Message] = []
        self.next_id = id_base
        self.requests: dict[int, tuple[str, Any, str]] = {}  # seq -> (direction, id, method)

    def _add(self, direction: str, kind: str, payload: Any, **kw: Any) -> int:
        seq = len(self.msgs) + 1
        method = kw.pop("method", payload.get("method") if isinstance(payload, dict) else None)
        rpc_id = json.dumps(payload["id"]) if isinstance(payload, dict) and "id" in payload else None
        self.msgs.append(record(seq, direction, kind, method, rpc_id, payload=payload, **kw))
        return seq

    def request(self, method: str, params: Any = None, *, direction: str = "c2s") -> int:
        rid: Any = self.next_id if direction == "c2s" else f"srv-{self.next_id}"
        self.next_id += 1
        payload: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            payload["params"] = params
        seq = self._add(direction, "request", payload, answers_seq=None)
        self.requests[seq] = (direction, rid, method)
        return seq

    def respond(self, seq: int, result: Any = None, *, error: dict[str, Any] | None = None) -> int:
        direction, rid, method = self.requests[seq]
        back = "s2c" if direction == "c2s" else "c2s"
        payload: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
        if error is not None:
            payload["error"] = error
        else:
            payload["result"] = {} if result is None else result
        return self._add(back, "error" if error else "response", payload, method=method, answers_seq=seq)

    def notify(
        self,
        method: str,
        params: Any = None,
        *,
        direction: str = "s2c",
        related: int | None = None,
        **kw: Any,
    ) -> int:
        payload: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            payload["params"] = params
        return self._add(direction, "notification", payload, answers_seq=None, related_seq=related, **kw)

    def log(self, text: str) -> int:
        return self._add("s2c", "log", None, method=None, answers_seq=None)


TOOLS = {
    "echo": {
        "name": "echo",
        "description": "Echo the text back",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    "weather": {
        "name": "weather",
        "description": "Weather for a city, asks the client's model",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    "add": {
        "name": "add",
        "title": "Add",
        "description": "Add two numbers",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}},
    },
}


def session(
    *,
    id_base: int = 1,
    token: str = "tok-1",
    state: str = "state-abc",
    echo_reply: str = "hello",
    tools: tuple[str, ...] = ("echo", "weather", "add"),
    notes_first: bool = False,
    list_changed_early: bool = True,
    server_version: str = "1.2.0",
    client_meta_version: str = "2026-07-28",
    max_tokens: int = 100,
    progress_steps: int = 2,
    skip_readme: bool = False,
    extra_prompts: bool = False,
) -> list[Message]:
    """A realistic session: handshake, tools/list, calls with progress, sampling, a 2026 input_required."""
    w = Wire(id_base)
    init = w.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {"sampling": {}, "roots": {"listChanged": True}},
            "clientInfo": {"name": "test-client", "version": "1.0"},
        },
    )
    w.log("server starting")
    w.respond(
        init,
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True}, "logging": {}},
            "serverInfo": {"name": "demo-server", "version": server_version},
            "instructions": "A demo server.",
        },
    )
    w.notify("notifications/initialized", direction="c2s")
    if list_changed_early:
        w.notify("notifications/tools/list_changed")
    listing = w.request("tools/list", {})
    w.respond(listing, {"tools": [TOOLS[t] for t in tools]})

    call = w.request(
        "tools/call", {"name": "echo", "arguments": {"text": "hello"}, "_meta": {"progressToken": token}}
    )
    progress = [
        ("notifications/progress", {"progressToken": token, "progress": i, "total": progress_steps})
        for i in range(1, progress_steps + 1)
    ]
    notes = [*progress, ("notifications/message", {"level": "info", "logger": "echo", "data": "echoing"})]
    for method, params in reversed(notes) if notes_first else notes:
        w.notify(method, params, related=call if method == "notifications/progress" else None)
    w.respond(
        call,
        {
            "content": [{"type": "text", "text": echo_reply}],
            "structuredContent": {"text": echo_reply, "length": len(echo_reply)},
            "isError": False,
        },
    )

    weather = w.request("tools/call", {"name": "weather", "arguments": {"city": "Paris"}})
    if "weather" in tools:
        sampling = w.request(
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Weather for Paris?"}}],
                "maxTokens": max_tokens,
            },
            direction="s2c",
        )
        w.respond(
            sampling,
            {"role": "assistant", "content": {"type": "text", "text": "Sunny"}, "model": "test-model"},
        )
        w.respond(weather, {"content": [{"type": "text", "text": "Sunny in Paris"}], "isError": False})
    else:
        w.respond(weather, error={"code": -32602, "message": "Unknown tool: weather"})

    if not list_changed_early:
        w.notify("notifications/tools/list_changed")
    if not skip_readme:
        read = w.request("resources/read", {"uri": "demo://readme"})
        w.respond(
            read, {"contents": [{"uri": "demo://readme", "mimeType": "text/markdown", "text": "# Demo"}]}
        )
    if extra_prompts:
        prompts = w.request("prompts/list", {})
        w.respond(prompts, {"prompts": []})

    meta = {"io.modelcontextprotocol/protocolVersion": client_meta_version}
    deploy = w.request("tools/call", {"name": "deploy", "arguments": {"env": "prod"}, "_meta": meta})
    w.respond(
        deploy,
        {
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {
                    "method": "elicitation/create",
                    "params": {
                        "message": "Deploy to prod?",
                        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                    },
                }
            },
            "requestState": state,
        },
    )
    retry = w.request(
        "tools/call",
        {
            "name": "deploy",
            "arguments": {"env": "prod"},
            "_meta": meta,
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}},
            "requestState": state,
        },
    )
    w.respond(retry, {"resultType": "complete", "content": [{"type": "text", "text": "deployed"}]})
    return w.msgs


def changed_paths(diff: SessionDiff) -> dict[str, list[str]]:
    return {x.summary: [c.path for c in x.changes] for x in diff.exchanges if x.changes}


def statuses(diff: SessionDiff) -> list[tuple[str, str]]:
    return [(x.status, x.summary) for x in diff.exchanges]


# --- whole sessions -----------------------------------------------------------------------------------


def test_identical_sessions_are_equal() -> None:
    d = diff_sessions(session(), session())
    assert not d.changed
    assert d.exit_status == 0
    assert d.counts() == {"equal": 11, "changed": 0, "missing": 0, "extra": 0, "volatile": 0}
    assert all(x.changes == [] for x in d.exchanges)


def test_exchange_list_and_seqs() -> None:
    d = diff_sessions(session(), session())
    assert [(x.summary, x.direction) for x in d.exchanges] == [
        ("initialize", "c2s"),
        ("notifications/initialized", "c2s"),
        ("notifications/tools/list_changed", "s2c"),
        ("tools/list", "c2s"),
        ("tools/call name=echo", "c2s"),
        ("notifications/message", "s2c"),  # arrived during the call, linked by nothing: its own
        ("tools/call name=weather", "c2s"),
        ("sampling/createMessage", "s2c"),
        ("resources/read uri=demo://readme", "c2s"),
        ("tools/call name=deploy · round 1 of 2", "c2s"),  # one conversation, paired round by round
        ("tools/call name=deploy · round 2 of 2", "c2s"),
    ]
    echo = d.exchanges[4]
    assert (echo.original_seq, d.exchanges[5].original_seq) == (8, 11)
    assert [x.original_seq for x in d.exchanges] == [x.replay_seq for x in d.exchanges]
    assert d.exchanges[0].original_seq == 1


def test_ids_interleaving_and_positions_do_not_matter() -> None:
    a = session()
    b = session(id_base=500, notes_first=True, list_changed_early=False)
    assert [m.rpc_id for m in a if m.rpc_id] != [m.rpc_id for m in b if m.rpc_id]
    d = diff_sessions(a, b)
    assert changed_paths(d) == {}
    assert not d.changed
    # The list_changed notification sits elsewhere in the replay, and still pairs.
    moved = [x for x in d.exchanges if x.method == "notifications/tools/list_changed"]
    assert [(x.status, x.original_seq is not None, x.replay_seq is not None) for x in moved] == [
        ("equal", True, True)
    ]


def test_one_changed_tool_result() -> None:
    d = diff_sessions(session(), session(echo_reply="HELLO"))
    changed = [x for x in d.exchanges if x.status != "equal"]
    assert len(changed) == 1
    x = changed[0]
    assert (x.status, x.method, x.summary) == ("changed", "tools/call", "tools/call name=echo")
    assert x.changes == [
        Change("result.content[0].text", "changed", "hello", "HELLO"),
        Change("result.structuredContent.text", "changed", "hello", "HELLO"),
    ]
    assert d.changed and d.exit_status == 1


def test_removed_tool_changes_the_listing_and_the_call() -> None:
    d = diff_sessions(session(), session(tools=("echo", "add")))
    paths = changed_paths(d)
    assert paths["tools/list"] == ["result.tools[name=weather]"]
    listing = next(x for x in d.exchanges if x.summary == "tools/list")
    assert listing.changes[0].kind == "removed"
    assert listing.changes[0].before == TOOLS["weather"]
    call = next(x for x in d.exchanges if x.summary == "tools/call name=weather")
    assert call.status == "changed"
    assert [(c.path, c.kind) for c in call.changes] == [("error", "added"), ("result", "removed")]
    assert call.changes[0].after == {"code": -32602, "message": "Unknown tool: weather"}
    assert ("missing", "sampling/createMessage") in statuses(d)
    assert d.counts() == {"equal": 8, "changed": 2, "missing": 1, "extra": 0, "volatile": 0}


def test_missing_and_extra_exchanges_keep_the_original_order() -> None:
    d = diff_sessions(session(), session(skip_readme=True, extra_prompts=True))
    st_ = statuses(d)
    assert ("missing", "resources/read uri=demo://readme") in st_
    assert ("extra", "prompts/list") in st_
    missing = next(x for x in d.exchanges if x.status == "missing")
    extra = next(x for x in d.exchanges if x.status == "extra")
    assert missing.replay_seq is None and missing.original_seq is not None
    assert extra.original_seq is None and extra.replay_seq is not None
    # The extra prompts/list followed the weather call (and its sampling) in the replay: it comes
    # after them and after the missing read that took its place, as in a unified diff.
    order = [x.summary for x in d.exchanges]
    assert order.index("resources/read uri=demo://readme") == order.index("sampling/createMessage") + 1
    assert order.index("prompts/list") == order.index("resources/read uri=demo://readme") + 1
    assert d.counts() == {"equal": 10, "changed": 0, "missing": 1, "extra": 1, "volatile": 0}


def test_extra_before_everything() -> None:
    a = Wire()
    a.respond(a.request("tools/list", {}), {"tools": []})
    b = Wire()
    b.respond(b.request("ping"), {})
    b.respond(b.request("tools/list", {}), {"tools": []})
    d = diff_sessions(a.msgs, b.msgs)
    assert statuses(d) == [("extra", "ping"), ("equal", "tools/list")]


def test_default_ignores_hide_volatile_values() -> None:
    a = session()
    b = session(token="tok-99", state="state-XYZ", client_meta_version="2026-12-01")
    assert not diff_sessions(a, b).changed
    # Without the default ignores the same sessions differ: the requests carrying a token or a
    # _meta no longer pair at all; the conversation's rounds pair round by round, changed.
    d = diff_sessions(a, b, ignore=NO_IGNORE)
    assert sorted(x for x in statuses(d) if x[0] != "equal") == [
        ("changed", "tools/call name=deploy · round 1 of 2"),
        ("changed", "tools/call name=deploy · round 2 of 2"),
        ("extra", "tools/call name=echo"),
        ("missing", "tools/call name=echo"),
    ]
    # Ignoring only params._meta: the requests pair, and the token and the state show in the answers
    # and in the retry that echoes the state back (round 2 pairs with round 2).
    d = diff_sessions(a, b, ignore=PathSet(["params._meta"]))
    assert changed_paths(d) == {
        "tools/call name=echo": [
            "notifications[notifications/progress].params.progressToken",
            "notifications[notifications/progress].params.progressToken",
        ],
        "tools/call name=deploy · round 1 of 2": ["result.requestState"],
        "tools/call name=deploy · round 2 of 2": ["params.requestState"],
    }


def test_volatile_names_are_compared_inside_tool_definitions() -> None:
    def run(prop_type: str, session_id: str) -> list[Message]:
        w = Wire()
        tool = {
            "name": "resume",
            "inputSchema": {"type": "object", "properties": {"sessionId": {"type": prop_type}}},
        }
        w.respond(w.request("tools/list", {}), {"tools": [tool]})
        w.respond(
            w.request("tools/call", {"name": "resume", "arguments": {"sessionId": "s-1"}}),
            {"content": [], "structuredContent": {"sessionId": session_id, "taskId": session_id}},
        )
        return w.msgs

    assert not diff_sessions(run("string", "a"), run("string", "b")).changed
    d = diff_sessions(run("string", "a"), run("integer", "a"))
    assert changed_paths(d) == {
        "tools/list": ["result.tools[name=resume].inputSchema.properties.sessionId.type"]
    }


def test_progress_token_in_request_meta_breaks_alignment_without_ignore() -> None:
    a = Wire()
    a.respond(a.request("tools/call", {"name": "x", "_meta": {"progressToken": 1}}), {"content": []})
    b = Wire()
    b.respond(b.request("tools/call", {"name": "x", "_meta": {"progressToken": 2}}), {"content": []})
    assert not diff_sessions(a.msgs, b.msgs).changed
    assert statuses(diff_sessions(a.msgs, b.msgs, ignore=NO_IGNORE)) == [
        ("missing", "tools/call name=x"),
        ("extra", "tools/call name=x"),
    ]


def test_request_state_of_input_required_is_ignored_but_the_rest_compared() -> None:
    a = session()
    b = session(state="other")
    assert not diff_sessions(a, b).changed
    c = [dataclasses.replace(m, raw=m.raw.replace(b"to prod?", b"to staging?")) for m in a]
    d = diff_sessions(a, c)
    assert changed_paths(d) == {
        "tools/call name=deploy · round 1 of 2": ["result.inputRequests.confirm.params.message"],
    }


def test_custom_ignore_pattern_hides_a_path() -> None:
    a, b = session(), session(server_version="1.3.0")
    d = diff_sessions(a, b)
    assert changed_paths(d) == {"initialize": ["result.serverInfo.version"]}
    assert d.exchanges[0].changes == [Change("result.serverInfo.version", "changed", "1.2.0", "1.3.0")]
    for pattern in ("result.serverInfo.version", "initialize:result.serverInfo.version", "**.version"):
        assert not diff_sessions(a, b, ignore=default_ignore(pattern)).changed, pattern
    # A pattern scoped to another method does not hide it.
    assert diff_sessions(a, b, ignore=default_ignore("tools/list:result.serverInfo.version")).changed


def test_server_to_client_request_params_are_compared() -> None:
    d = diff_sessions(session(), session(max_tokens=200))
    assert changed_paths(d) == {"sampling/createMessage": ["params.maxTokens"]}
    x = next(x for x in d.exchanges if x.status == "changed")
    assert (x.direction, x.changes[0].before, x.changes[0].after) == ("s2c", 100, 200)


def test_notification_counts_are_compared_as_a_multiset() -> None:
    d = diff_sessions(session(), session(progress_steps=3))
    assert changed_paths(d) == {
        "tools/call name=echo": [
            "notifications[notifications/progress].params.total",
            "notifications[notifications/progress].params.total",
            "notifications[notifications/progress]",
        ]
    }
    count = d.exchanges[4].changes[-1]
    assert (count.kind, count.before, count.after) == ("changed", 2, 3)


def test_added_and_removed_notification_methods() -> None:
    def run(progress: bool) -> list[Message]:
        w = Wire()
        r = w.request("tools/call", {"name": "slow", "_meta": {"progressToken": 7}})
        if progress:
            w.notify("notifications/progress", {"progressToken": 7, "progress": 1}, related=r)
        # A client's progress on the server's request belongs to that request too.
        s = w.request("sampling/createMessage", {"messages": [], "maxTokens": 1}, direction="s2c")
        if not progress:
            w.notify(
                "notifications/progress", {"progressToken": 8, "progress": 1}, direction="c2s", related=s
            )
        w.respond(s, {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})
        w.respond(r, {"content": []})
        return w.msgs

    d = diff_sessions(run(True), run(False))
    assert [(x.summary, x.changes) for x in d.exchanges] == [
        ("tools/call name=slow", [Change("notifications[notifications/progress]", "removed", 1, 0)]),
        ("sampling/createMessage", [Change("notifications[notifications/progress]", "added", 0, 1)]),
    ]


def test_initialize_and_discover_are_compared() -> None:
    def discover(version: str, caps: dict[str, Any], tool_version: str) -> list[Message]:
        w = Wire()
        meta = {"io.modelcontextprotocol/serverInfo": {"name": "demo", "version": version}}
        w.respond(
            w.request(
                "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
            ),
            {"resultType": "complete", "cacheScope": "public", "capabilities": caps, "_meta": meta},
        )
        tmeta = {"io.modelcontextprotocol/serverInfo": {"name": "demo", "version": tool_version}}
        w.respond(w.request("tools/call", {"name": "echo"}), {"content": [], "_meta": tmeta})
        return w.msgs

    d = diff_sessions(
        discover("1.0", {"tools": {}}, "1.0"), discover("2.0", {"tools": {}, "prompts": {}}, "2.0")
    )
    assert changed_paths(d) == {
        "server/discover": [
            'result._meta["io.modelcontextprotocol/serverInfo"].version',
            "result.capabilities.prompts",
        ]
    }


def test_initialize_pairs_even_when_the_client_differs() -> None:
    def init(client: str) -> list[Message]:
        w = Wire()
        w.respond(
            w.request("initialize", {"clientInfo": {"name": client, "version": "1"}}),
            {"serverInfo": {"name": "s", "version": "1"}},
        )
        return w.msgs

    d = diff_sessions(init("a"), init("b"))
    assert statuses(d) == [("changed", "initialize")]
    assert d.exchanges[0].changes == [Change("params.clientInfo.name", "changed", "a", "b")]


def test_errors_compare_code_and_message_only() -> None:
    def failing(code: int, message: str, data: str) -> list[Message]:
        w = Wire()
        r = w.request("tools/call", {"name": "boom"})
        w.respond(r, error={"code": code, "message": message, "data": data})
        return w.msgs

    assert not diff_sessions(failing(-32603, "boom", "trace 1"), failing(-32603, "boom", "trace 2")).changed
    d = diff_sessions(failing(-32603, "boom", "x"), failing(-32000, "bang", "x"))
    assert d.exchanges[0].changes == [
        Change("error.code", "changed", -32603, -32000),
        Change("error.message", "changed", "boom", "bang"),
    ]


def test_unanswered_request_shows_the_response_removed() -> None:
    a = Wire()
    a.respond(a.request("ping"), {})
    b = Wire()
    b.request("ping")
    d = diff_sessions(a.msgs, b.msgs)
    assert d.exchanges[0].changes == [Change("result", "removed", {}, None)]


def test_cancelled_is_its_own_exchange() -> None:
    def run(rid_base: int, reason: str) -> list[Message]:
        w = Wire(rid_base)
        slow = w.request("tools/call", {"name": "slow"})
        w.notify(
            "notifications/cancelled",
            {"requestId": rid_base, "reason": reason},
            direction="c2s",
            related=slow,
        )
        w.respond(w.request("tools/call", {"name": "fast"}), {"content": []})
        return w.msgs

    d = diff_sessions(run(1, "user"), run(40, "user"))
    assert statuses(d) == [
        ("equal", "tools/call name=slow"),
        ("equal", "notifications/cancelled"),
        ("equal", "tools/call name=fast"),
    ]
    d = diff_sessions(run(1, "user"), run(40, "timeout"))
    assert statuses(d) == [
        ("equal", "tools/call name=slow"),
        ("missing", "notifications/cancelled"),
        ("extra", "notifications/cancelled"),
        ("equal", "tools/call name=fast"),
    ]


def test_client_notifications_stay_exchanges_of_their_own() -> None:
    def run(during: bool) -> list[Message]:
        w = Wire()
        sampling = w.request("sampling/createMessage", {"messages": [], "maxTokens": 5}, direction="s2c")
        if during:  # while the server's request is in flight
            w.notify("notifications/roots/list_changed", direction="c2s")
        w.respond(sampling, {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})
        if not during:
            w.notify("notifications/roots/list_changed", direction="c2s")
        return w.msgs

    d = diff_sessions(run(True), run(False))
    assert statuses(d) == [("equal", "sampling/createMessage"), ("equal", "notifications/roots/list_changed")]


def test_unlinked_notifications_pair_wherever_they_arrive() -> None:
    def run(inside: bool, data: str = "tick") -> list[Message]:
        w = Wire()
        call = w.request("tools/call", {"name": "a"})
        if inside:  # a timer log landing while the call is in flight
            w.notify("notifications/message", {"level": "info", "data": data})
        w.respond(call, {"content": []})
        if not inside:
            w.notify("notifications/message", {"level": "info", "data": data})
        w.respond(w.request("tools/call", {"name": "b"}), {"content": []})
        return w.msgs

    d = diff_sessions(run(True), run(False))
    assert not d.changed
    assert statuses(d) == [
        ("equal", "tools/call name=a"),
        ("equal", "notifications/message"),
        ("equal", "tools/call name=b"),
    ]
    # Its content still counts: a different log is one missing and one extra.
    assert [s for s, _ in statuses(diff_sessions(run(True), run(False, "tock")))] == [
        "equal",
        "missing",
        "extra",
        "equal",
    ]


def test_related_seq_links_progress_when_several_requests_fly() -> None:
    def run(total: int) -> list[Message]:
        w = Wire()
        a = w.request("tools/call", {"name": "a", "_meta": {"progressToken": "p"}})
        b = w.request("tools/call", {"name": "b"})
        w.notify("notifications/progress", {"progressToken": "p", "progress": 1, "total": total}, related=a)
        w.respond(b, {"content": []})
        w.respond(a, {"content": []})
        return w.msgs

    d = diff_sessions(run(2), run(3))
    assert statuses(d) == [("changed", "tools/call name=a"), ("equal", "tools/call name=b")]
    assert changed_paths(d) == {"tools/call name=a": ["notifications[notifications/progress].params.total"]}


def test_batches_are_split_into_their_exchanges() -> None:
    def run(base: int, answer: str) -> list[Message]:
        reqs = [
            {"jsonrpc": "2.0", "id": base, "method": "tools/call", "params": {"name": "echo"}},
            {"jsonrpc": "2.0", "id": base + 1, "method": "ping"},
        ]
        resps = [
            {"jsonrpc": "2.0", "id": base + 1, "result": {}},
            {"jsonrpc": "2.0", "id": base, "result": {"content": [{"type": "text", "text": answer}]}},
        ]
        return [
            record(1, "c2s", "batch", None, None, None, reqs),
            # The recorder's pairing of each item (meta.items), as MessageBuilder stores it.
            record(2, "s2c", "batch", None, None, 1, resps, meta={"items": [{"answers_seq": 1}] * 2}),
        ]

    assert statuses(diff_sessions(run(1, "a"), run(9, "a"))) == [
        ("equal", "tools/call name=echo"),
        ("equal", "ping"),
    ]
    assert changed_paths(diff_sessions(run(1, "a"), run(9, "b"))) == {
        "tools/call name=echo": ["result.content[0].text"]
    }


def test_recorder_pairing_wins_over_ids() -> None:
    # Two requests reuse id 1 (duplicate-id), the second is answered first; and an error with id
    # null that the recorder paired through its HTTP exchange.
    def run(answer: str) -> list[Message]:
        req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        return [
            record(1, "c2s", "request", "tools/call", "1", None, {**req, "params": {"name": "a"}}),
            record(2, "c2s", "request", "tools/call", "1", None, {**req, "params": {"name": "b"}}),
            record(3, "s2c", "response", "tools/call", "1", 2, {"jsonrpc": "2.0", "id": 1, "result": {"r": answer}}),
            record(4, "s2c", "response", "tools/call", "1", 1, {"jsonrpc": "2.0", "id": 1, "result": {"r": "a"}}),
            record(5, "c2s", "request", "ping", "2", None, {"jsonrpc": "2.0", "id": 2, "method": "ping"}),
            record(6, "s2c", "error", "ping", "null", 5, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": answer}}),
        ]  # fmt: skip

    assert statuses(diff_sessions(run("b"), run("b"))) == [
        ("equal", "tools/call name=a"),
        ("equal", "tools/call name=b"),
        ("equal", "ping"),
    ]
    assert changed_paths(diff_sessions(run("b"), run("B"))) == {
        "tools/call name=b": ["result.r"],
        "ping": ["error.message"],
    }


def test_keyed_arrays_do_not_order_the_alignment_key() -> None:
    def run(names: list[str]) -> list[Message]:
        w = Wire()
        w.notify("notifications/message", {"level": "info", "data": {"tools": [{"name": n} for n in names]}})
        return w.msgs

    assert statuses(diff_sessions(run(["a", "b"]), run(["b", "a"]))) == [("equal", "notifications/message")]
    assert diff_sessions(run(["a", "b"]), run(["a", "c"])).changed


def test_invalid_and_log_messages() -> None:
    a = Wire()
    a.log("stderr noise")
    a._add("s2c", "invalid", None, method=None, answers_seq=None)
    b = Wire()
    b.log("other stderr noise")
    d = diff_sessions(a.msgs, b.msgs)
    assert statuses(d) == [("missing", "(invalid)")]


def test_orphan_response_is_its_own_exchange() -> None:
    a = [
        record(
            1,
            "s2c",
            "error",
            None,
            "null",
            None,
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
        )
    ]
    assert statuses(diff_sessions(a, a)) == [("equal", "(response)")]
    assert statuses(diff_sessions(a, [])) == [("missing", "(response)")]


# --- noise calibration --------------------------------------------------------------------------------


def clocked(now: str, stamp: str, echo: str = "hello", ticks: int = 1) -> list[Message]:
    """A session whose `clock` tool, its progress and the log lines carry the time of the run."""
    w = Wire()
    w.respond(
        w.request("initialize", {"protocolVersion": "2025-06-18"}),
        {"serverInfo": {"name": "s", "version": "1"}, "capabilities": {}},
    )
    clock = w.request("tools/call", {"name": "clock", "_meta": {"progressToken": 1}})
    w.notify("notifications/message", {"level": "debug", "data": {"msg": "tick", "at": stamp}})
    for _ in range(ticks):
        w.notify(
            "notifications/progress", {"progressToken": 1, "progress": 1, "message": stamp}, related=clock
        )
    w.respond(
        clock, {"content": [{"type": "text", "text": now}], "structuredContent": {"now": now, "tz": "UTC"}}
    )
    echo_ = w.request("tools/call", {"name": "echo", "arguments": {"text": "hello"}})
    w.respond(echo_, {"content": [{"type": "text", "text": echo}]})
    w.notify("notifications/message", {"level": "info", "data": {"msg": "idle", "at": stamp}})
    return w.msgs


def test_noise_patterns_find_exactly_the_paths_that_differ() -> None:
    run_a = clocked("10:00:01", "t1")
    run_b = clocked("10:00:02", "t2")
    patterns = noise_patterns(run_a, run_b)
    assert patterns == [
        "notifications/message:params.data.at",
        "tools/call[name=clock]:notifications[notifications/progress].params.message",
        "tools/call[name=clock]:result.content[0].text",
        "tools/call[name=clock]:result.structuredContent.now",
    ]
    assert diff_sessions(run_a, run_b).changed
    calibrated = default_ignore(*patterns)
    assert not diff_sessions(run_a, run_b, ignore=calibrated).changed
    # Against a third run: the noise stays quiet, a real change still shows.
    candidate = clocked("11:30:00", "t3", echo="HELLO")
    d = diff_sessions(run_a, candidate, ignore=calibrated)
    assert changed_paths(d) == {"tools/call name=echo": ["result.content[0].text"]}


def test_noise_in_notification_counts() -> None:
    run_a, run_b = clocked("1", "t", ticks=1), clocked("1", "t", ticks=3)
    assert noise_patterns(run_a, run_b) == ["tools/call[name=clock]:notifications[notifications/progress]"]
    calibrated = default_ignore(*noise_patterns(run_a, run_b))
    assert not diff_sessions(run_a, clocked("1", "t", ticks=2), ignore=calibrated).changed


def test_noise_patterns_of_identical_runs_are_empty() -> None:
    assert noise_patterns(session(), session(id_base=77, token="t9", state="s9")) == []


def test_noise_patterns_generalise_churning_keys_and_unpaired_messages() -> None:
    def run(key: str, extra_log: bool) -> list[Message]:
        w = Wire()
        r = w.request("tools/call", {"name": "ask"})
        w.respond(r, {"resultType": "input_required", "inputRequests": {key: {"method": "roots/list"}}})
        if extra_log:
            w.notify("notifications/resources/list_changed")
        return w.msgs

    a, b = run("k-1", True), run("k-2", False)
    patterns = noise_patterns(a, b)
    assert patterns == [
        "notifications/resources/list_changed:",
        "tools/call[name=ask]:result.inputRequests.*",
    ]
    assert not diff_sessions(a, b, ignore=default_ignore(*patterns)).changed
    assert not diff_sessions(b, a, ignore=default_ignore(*patterns)).changed


def test_noise_patterns_skip_known_ones() -> None:
    run_a, run_b = clocked("1", "t1"), clocked("2", "t2")
    known = default_ignore("notifications/message:params.data.at")
    assert "notifications/message:params.data.at" not in noise_patterns(run_a, run_b, ignore=known)


# --- reports ------------------------------------------------------------------------------------------


def test_to_json_round_trip() -> None:
    d = diff_sessions(session(), session(tools=("echo", "add"), echo_reply="HELLO", extra_prompts=True))
    doc = d.to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert orjson.loads(orjson.dumps(doc)) == doc
    assert SessionDiff.from_json(json.loads(json.dumps(doc))) == d
    assert doc["changed"] is True
    assert doc["counts"] == d.counts()
    assert doc["ignored"] == list(DEFAULT_IGNORE)
    first_changed = next(x for x in doc["exchanges"] if x["status"] == "changed")
    assert set(first_changed) == {
        "index",
        "status",
        "bucket",
        "method",
        "summary",
        "direction",
        "original_seq",
        "replay_seq",
        "changes",
        "interventions",
    }


def test_render_text_mentions_every_changed_path() -> None:
    d = diff_sessions(session(), session(tools=("echo", "add"), echo_reply="HELLO", server_version="9"))
    text = render_text(d)
    for x in d.exchanges:
        if x.status != "equal":
            assert x.summary in text
        for c in x.changes:
            assert c.path in text
    assert "missing" in text and "sampling/createMessage" in text
    assert '"hello" => "HELLO"' in text
    counted = render_text(diff_sessions(session(), session(progress_steps=3)))
    assert "notifications[notifications/progress]: 2 => 3 received" in counted
    assert "behaviour changed" in text.splitlines()[-1]
    same = diff_sessions(session(), session())
    assert not [ln for ln in render_text(same).splitlines() if "tools/list" in ln and "equal" in ln]
    assert render_text(same).splitlines()[-1] == "behaviour unchanged"
    assert [ln for ln in render_text(same, show_equal=True).splitlines() if ln.startswith("= equal")][3] == (
        "= equal   -> tools/list  (#6 / #6)"
    )


def test_render_text_shortens_long_values() -> None:
    a, b = Wire(), Wire()
    a.respond(a.request("x"), {"text": "a" * 500})
    b.respond(b.request("x"), {"text": "b" * 500})
    line = next(ln for ln in render_text(diff_sessions(a.msgs, b.msgs)).splitlines() if "result.text" in ln)
    assert len(line) < 200 and "..." in line


def test_records_are_read_as_stored() -> None:
    """The diff reads the store's `Message` records: the body from `raw`, progress links from `meta`."""
    req = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}\n'
    )

    def run(progress: int) -> list[Message]:
        note = (
            b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}\n'
            % progress
        )
        return [
            Message(
                session_id=1, seq=1, ts_ns=0, direction="c2s", channel="stdin", raw=req, size=len(req),
                parse_status="ok", kind="request", method="tools/call", rpc_id="1",
            ),
            Message(
                session_id=1, seq=2, ts_ns=0, direction="s2c", channel="stdout", raw=note, size=len(note),
                parse_status="ok", kind="notification", method="notifications/progress",
                meta={"related_seq": 1, "exchange": 7},
            ),
            Message(
                session_id=1, seq=3, ts_ns=0, direction="s2c", channel="stdout", raw=b"\xff{oops\n", size=7,
                parse_status="invalid-utf8", kind="invalid",
            ),
        ]  # fmt: skip

    d = diff_sessions(run(1), run(2))
    assert statuses(d) == [("changed", "tools/call name=a"), ("equal", "(invalid)")]
    assert changed_paths(d) == {
        "tools/call name=a": ["notifications[notifications/progress].params.progress"]
    }


# --- diff_json ----------------------------------------------------------------------------------------


def test_diff_json_basics() -> None:
    assert diff_json({"a": 1, "b": [1, 2]}, {"a": 2, "b": [1], "c": None}, NO_IGNORE) == [
        Change("a", "changed", 1, 2),
        Change("b[1]", "removed", 2, None),
        Change("c", "added", None, None),
    ]
    assert diff_json(1, 1.0, NO_IGNORE) == []
    assert diff_json(True, 1, NO_IGNORE) == [Change("", "changed", True, 1)]
    assert diff_json({"a": [1]}, {"a": {"0": 1}}, NO_IGNORE) == [Change("a", "changed", [1], {"0": 1})]


def test_diff_json_aligns_keyed_arrays() -> None:
    a = {"tools": [{"name": "x", "d": 1}, {"name": "y", "d": 2}]}
    b = {"tools": [{"name": "y", "d": 3}, {"name": "x", "d": 1}, {"name": "z"}]}
    assert diff_json(a, b, NO_IGNORE) == [
        Change("tools[name=y].d", "changed", 2, 3),
        Change("tools[name=z]", "added", None, {"name": "z"}),
    ]
    res = {"contents": [{"uri": "file:///a.txt", "name": "a", "text": "1"}]}
    res2 = {"contents": [{"uri": "file:///a.txt", "name": "a", "text": "2"}]}
    assert [c.path for c in diff_json(res, res2, NO_IGNORE)] == ["contents[uri=file:///a.txt].text"]
    # Content blocks have no key: by index, order matters.
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert [c.path for c in diff_json(blocks, blocks[::-1], NO_IGNORE)] == ["[0].text", "[1].text"]


def test_diff_json_ignores_and_strips() -> None:
    ignore = PathSet(["**.ts", "meta"])
    a = {"x": {"ts": 1, "v": 1}, "meta": 1}
    b = {"x": {"ts": 2, "v": 1}, "meta": 2, "new": {"ts": 5, "k": 1}}
    assert diff_json(a, b, ignore) == [Change("new", "added", None, {"k": 1})]
    assert diff_json(a, b, PathSet(["**"])) == []


# --- properties ---------------------------------------------------------------------------------------

# Messages are stored as bytes and parsed with orjson, which reads 64-bit integers.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "uri", "a", "b", "_meta", "text"]) | st.text(max_size=4),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_diff_json_of_a_value_with_itself_is_empty(x: Any) -> None:
    assert diff_json(x, x, NO_IGNORE) == []
    assert diff_json(x, x, PathSet(DEFAULT_IGNORE)) == []


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_diff_json_is_symmetric(a: Any, b: Any) -> None:
    flip = {"added": "removed", "removed": "added", "changed": "changed"}
    forward = sorted((c.path, flip[c.kind]) for c in diff_json(a, b, NO_IGNORE))
    backward = sorted((c.path, c.kind) for c in diff_json(b, a, NO_IGNORE))
    assert forward == backward
    if json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True):
        assert forward == []


@st.composite
def sessions(draw: st.DrawFn) -> list[Message]:
    """Random traffic: requests of either direction, answered or not, with notifications in between."""
    w = Wire(draw(st.integers(0, 1000)))
    open_: list[int] = []
    for _ in range(draw(st.integers(0, 12))):
        action = draw(
            st.sampled_from(["request", "s2c-request", "respond", "error", "notify", "client-note", "log"])
        )
        params = draw(
            st.none()
            | st.dictionaries(st.sampled_from(["name", "uri", "x", "_meta"]), json_values, max_size=3)
        )
        if action == "request":
            open_.append(w.request(draw(st.sampled_from(["tools/call", "tools/list", "initialize"])), params))
        elif action == "s2c-request":
            open_.append(w.request("sampling/createMessage", params, direction="s2c"))
        elif action in ("respond", "error") and open_:
            seq = open_.pop(draw(st.integers(0, len(open_) - 1)))
            if action == "respond":
                w.respond(seq, {"v": draw(json_values)})
            else:
                w.respond(seq, error={"code": -1, "message": draw(st.text(max_size=5))})
        elif action == "notify":
            w.notify(draw(st.sampled_from(["notifications/message", "notifications/progress"])), params)
        elif action == "client-note":
            w.notify("notifications/initialized", params, direction="c2s")
        else:
            w.log("x")
    return w.msgs


@settings(max_examples=100, deadline=None)
@given(sessions())
def test_a_session_against_itself_has_no_changes(s: list[Message]) -> None:
    for ignore in (None, NO_IGNORE):
        d = diff_sessions(s, s, ignore=ignore)
        assert not d.changed
        assert all(x.changes == [] for x in d.exchanges)
        # New JSON-RPC ids change nothing either.
        assert diff_sessions(s, renumbered(s), ignore=ignore).to_json() == d.to_json()
    assert noise_patterns(s, s) == []


def renumbered(msgs: list[Message]) -> list[Message]:
    """The same traffic with other JSON-RPC ids."""
    out = []
    for m in msgs:
        payload = orjson.loads(m.raw) if m.kind not in ("log", "invalid") else None
        if isinstance(payload, dict) and "id" in payload:
            new_id = f"new-{payload['id']}"
            raw = orjson.dumps({**payload, "id": new_id}) + b"\n"
            m = dataclasses.replace(m, rpc_id=json.dumps(new_id), raw=raw, size=len(raw))
        out.append(m)
    return out


@pytest.mark.parametrize("pattern", ["", "a..b", "a[", "x:y:[", "[name=x"])
def test_bad_ignore_patterns_raise(pattern: str) -> None:
    with pytest.raises(ValueError):
        PathSet([pattern])
