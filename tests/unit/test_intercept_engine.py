"""The interceptor's decisions, the rules file loader and breakpoints (sans-IO, fake clock)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.errors import RulesError
from inspector.intercept import (
    CloseStream,
    Decision,
    Deliver,
    Disconnect,
    Drip,
    Hold,
    HttpError,
    Interceptor,
    Pending,
    Reply,
    Rule,
    RuleSet,
    Seen,
    check_transport,
    load_rules,
    parse_rules,
)


def line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


CALL = line(
    {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"}},
    }
)
RESULT = line({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "Echo: hi"}]}})
NOTE = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def engine(*rules: dict[str, Any], clock: Clock | None = None, **kw: Any) -> Interceptor:
    rs = parse_rules({"rules": list(rules), **kw.pop("ruleset", {})})
    return Interceptor(rs, seed=kw.pop("seed", 1), now=clock or Clock(), **kw)


def call(ic: Interceptor) -> Seen:
    return Seen.of("c2s", CALL, ic.tracker)


def result(ic: Interceptor) -> Seen:
    return Seen.of("s2c", RESULT, ic.tracker)


def test_no_rule_passes_untouched_and_is_not_active() -> None:
    ic = engine()
    assert not ic.active
    d = ic.decide(call(ic))
    assert d == Decision([Deliver(CALL)]) and d.intervention is None
    assert engine({"name": "p", "action": "pause"}).active is False  # pause without breakpoints
    assert engine({"name": "p", "action": "pause"}, breakpoints=True).active
    assert engine({"name": "d", "action": "drop", "enabled": False}).active is False
    assert engine({"name": "d", "action": "drop"}).active


# Every action: the rule, then (effects, intervention meta) for a tools/call request or its result.
ACTION_CASES: list[tuple[str, dict[str, Any], str, list[Any], dict[str, Any]]] = [
    ("drop", {}, "call", [], {"delivered": False}),
    ("delay", {"ms": 250}, "call", [Deliver(CALL, 0.25)], {"delivered": True, "delay_ms": 250.0}),
    (
        "duplicate",
        {"times": 2},
        "call",
        [Deliver(CALL), Deliver(CALL, injected=True), Deliver(CALL, injected=True)],
        {"delivered": True, "times": 2},
    ),
    ("truncate", {"at": 10}, "call", [Deliver(CALL[:10], injected=True)], {"delivered": False, "at": 10}),
    (
        "truncate",
        {"at": 0.5, "keep_newline": True},
        "call",
        [Deliver(CALL[: (len(CALL) - 1) // 2] + b"\n", injected=True)],
        {"delivered": False},
    ),
    (
        "replace",
        {"result": {"content": [], "isError": True}},
        "result",
        [Deliver(b'{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":true}}\n', injected=True)],
        {"delivered": False},
    ),
    (
        "replace",
        {"error": {"code": -32000, "message": "injected"}},
        "call",
        [Reply(b'{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"injected"}}\n')],
        {"delivered": False},
    ),
    (
        "replace",
        {"error": {"code": -32001, "message": "boom", "data": {"x": 1}}},
        "result",
        [
            Deliver(
                b'{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"boom","data":{"x":1}}}\n',
                injected=True,
            )
        ],
        {"delivered": False},
    ),
    ("disconnect", {}, "call", [Disconnect("disconnected by rule r")], {"delivered": False}),
    (
        "http_error",
        {"status": 429, "body": {"error": "slow down"}, "headers": {"retry-after": "1"}},
        "call",
        [HttpError(429, b'{"error":"slow down"}', {"retry-after": "1", "content-type": "application/json"})],
        {"delivered": False, "status": 429},
    ),
    ("http_error", {"status": 404}, "call", [HttpError(404, b"", {})], {"status": 404}),
    ("drip", {"chunk": 5, "interval_ms": 20}, "call", [Drip(5, 0.02), Deliver(CALL)], {"delivered": True}),
    (
        "close_stream",
        {"events": 2},
        "call",
        [Deliver(CALL), CloseStream(2)],
        {"delivered": True, "events": 2},
    ),
]


@pytest.mark.parametrize(
    ("action", "params", "which", "effects", "meta"),
    ACTION_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(ACTION_CASES)],
)
def test_every_action_decision(
    action: str, params: dict[str, Any], which: str, effects: list[Any], meta: dict[str, Any]
) -> None:
    ic = engine({"name": "r", "action": action, **params})
    c = call(ic)
    d = ic.decide(c) if which == "call" else (ic.decide(c), ic.decide(result(ic)))[1]
    assert d.effects == effects
    assert d.intervention is not None
    m = d.intervention.meta()
    assert m["action"] == action and m["by"] == "rule:r" and m["rule"] == "r"
    assert {k: m[k] for k in meta} == meta
    assert d.intervention.injected_meta() == {"n": m["n"], "action": action, "by": "rule:r"}


def test_corrupt_flips_seeded_bytes_and_keeps_the_line() -> None:
    outs = []
    for _ in range(2):
        ic = engine({"name": "c", "action": "corrupt", "bytes": 3}, seed=9)
        (eff,) = ic.decide(call(ic)).effects
        assert isinstance(eff, Deliver) and eff.injected
        outs.append(eff.raw)
    a = outs[0]
    assert a == outs[1] and len(a) == len(CALL) and a.endswith(b"\n") and a.count(b"\n") == 1
    assert sum(x != y for x, y in zip(a, CALL, strict=True)) == 3


def test_delay_jitter_is_seeded() -> None:
    def delays(seed: int) -> list[float]:
        ic = engine({"name": "j", "action": "delay", "ms": 100, "jitter_ms": 50}, seed=seed)
        out = []
        for _ in range(5):
            (eff,) = ic.decide(call(ic)).effects
            assert isinstance(eff, Deliver)
            out.append(eff.delay_s)
        return out

    assert delays(3) == delays(3) != delays(4)
    assert all(0.1 <= d <= 0.15 for d in delays(3))


def test_replace_leaves_notifications_alone() -> None:
    ic = engine({"name": "r", "action": "replace", "result": {}})
    assert ic.decide(Seen.of("c2s", NOTE)).intervention is None


def test_after_count_and_first_rule_wins() -> None:
    ic = engine(
        {"name": "late", "action": "disconnect", "after": 3},
        {"name": "twice", "action": "drop", "count": 2},
    )
    actions = [
        (d.intervention.action if d.intervention else None) for d in (ic.decide(call(ic)) for _ in range(6))
    ]
    assert actions == ["drop", "drop", None, "disconnect", "disconnect", "disconnect"]
    snap = {r["name"]: (r["matched"], r["hits"]) for r in ic.snapshot()["rules"]}
    assert snap == {"late": (6, 3), "twice": (3, 2)}


def test_reorder_window_releases_in_reverse_and_on_time() -> None:
    clock = Clock()
    ic = engine({"name": "ro", "action": "reorder", "window": 3, "ms": 50}, clock=clock)
    msgs = [line({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}}) for i in range(5)]
    d0 = ic.decide(Seen.of("s2c", msgs[0]))
    d1 = ic.decide(Seen.of("s2c", msgs[1]))
    assert d0.effects == d1.effects == []
    assert d0.intervention is not None and d0.intervention.meta()["delivered"] is True
    d2 = ic.decide(Seen.of("s2c", msgs[2]))
    assert [e.raw for e in d2.effects if isinstance(e, Deliver)] == [msgs[2], msgs[1], msgs[0]]
    ic.decide(Seen.of("s2c", msgs[3]))
    assert ic.due() == []
    assert ic.next_deadline() == pytest.approx(clock.t + 0.05)
    clock.t += 0.06
    assert [e.raw for e in ic.due()] == [msgs[3]]
    ic.decide(Seen.of("s2c", msgs[4]))
    assert [e.raw for e in ic.flush()] == [msgs[4]]


def test_probability_is_seeded_and_repeatable() -> None:
    def run(seed: int) -> list[bool]:
        ic = engine({"name": "p", "action": "drop", "probability": 0.5}, seed=seed)
        return [ic.decide(call(ic)).effects == [] for _ in range(40)]

    assert run(5) == run(5)
    assert run(5) != run(6)
    assert 5 < sum(run(5)) < 35


def test_seed_comes_from_flag_then_file_then_random() -> None:
    assert Interceptor(RuleSet(seed=3), seed=4).seed == 4
    assert Interceptor(RuleSet(seed=3)).seed == 3
    assert isinstance(Interceptor(RuleSet()).seed, int)
    ic = Interceptor(RuleSet(seed=3, rules=[Rule(name="a", action="drop")]), source="f.yaml")
    assert ic.facts() == {"seed": 3, "rules": ["a"], "file": "f.yaml"}


ACTION_FOR = {
    "request": {"name": "r", "action": "drop", "probability": 0.3},
    "note": {"name": "n", "action": "duplicate", "probability": 0.6},
    "delay": {"name": "d", "action": "delay", "ms": 5, "jitter_ms": 10, "probability": 0.5},
}


def _decisions(seed: int, seq: list[int]) -> list[Any]:
    ic = Interceptor(
        parse_rules(
            {
                "rules": [
                    {**ACTION_FOR["request"], "match": {"kind": "request"}},
                    {**ACTION_FOR["note"], "match": {"kind": "notification"}},
                    {**ACTION_FOR["delay"]},
                    {"name": "c", "action": "corrupt", "bytes": 2, "probability": 0.5},
                ]
            }
        ),
        seed=seed,
        now=Clock(),
    )
    out = []
    for i in seq:
        raw = (CALL, NOTE, RESULT)[i % 3]
        d = ic.decide(Seen.of(("c2s", "s2c")[i % 2], raw, ic.tracker))
        iv = d.intervention
        out.append((d.effects, iv and {k: v for k, v in iv.meta().items() if k != "n"}))
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seq=st.lists(st.integers(0, 5), max_size=30))
def test_same_seed_same_messages_same_decisions(seed: int, seq: list[int]) -> None:
    assert _decisions(seed, seq) == _decisions(seed, seq)


def test_adding_a_rule_does_not_shift_another_rules_draws() -> None:
    base = {"name": "p", "action": "drop", "probability": 0.5, "match": {"kind": "request"}}
    a = engine(base, seed=11)
    b = engine(
        {"name": "other", "action": "delay", "ms": 1, "probability": 0.5, "match": {"kind": "notification"}},
        base,
        seed=11,
    )
    for _ in range(20):
        b.decide(Seen.of("s2c", NOTE))
        assert a.decide(call(a)).effects == b.decide(call(b)).effects


# --- breakpoints ---------------------------------------------------------------------------


def test_breakpoint_forward_edit_drop_respond() -> None:
    clock = Clock()
    ic = engine(
        {"name": "bp", "action": "pause", "match": {"method": "tools/call"}}, clock=clock, breakpoints=True
    )
    events: list[str] = []
    ic.subscribe(lambda ev, _d: events.append(ev))

    def hold() -> Pending:
        d = ic.decide(call(ic))
        (eff,) = d.effects
        assert isinstance(eff, Hold) and d.held is eff.pending and d.intervention is None
        return eff.pending

    p = hold()
    assert ic.get_pending(p.id) is p and ic.pending() == [p]
    snap = ic.snapshot()["pending"]
    assert snap[0]["id"] == p.id and snap[0]["method"] == "tools/call" and snap[0]["seconds_left"] == 30
    woke: list[str] = []
    p.on_resolved(lambda q: woke.append(q.id))
    clock.t += 1.5
    out = p.resolve("forward")
    assert woke == [p.id] and out.effects == [Deliver(CALL)]
    assert out.intervention is not None
    assert out.intervention.meta() == {
        "n": out.intervention.n,
        "action": "pause",
        "by": "user",
        "delivered": True,
        "rule": "bp",
        "held_ms": 1500.0,
        "resolved": "forward",
    }
    assert p.resolve("drop") is out  # resolving twice keeps the first outcome
    assert ic.pending() == []

    edited = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bye"}}}'
    out = hold().resolve("edit", edited)
    assert out.effects == [Deliver(edited + b"\n", injected=True)]
    assert out.intervention is not None and out.intervention.meta()["delivered"] is False

    out = hold().resolve("drop")
    assert out.effects == [] and out.intervention is not None and out.intervention.action == "drop"

    answer = b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n'
    out = hold().resolve("respond", answer)
    assert out.effects == [Reply(answer)]
    with pytest.raises(ValueError, match="needs the bytes"):
        hold().resolve("edit")
    assert events.count("pending") == 5 and events.count("resolved") == 4


def test_breakpoint_expires_with_the_default_action() -> None:
    clock = Clock()
    ic = engine(
        {"name": "bp", "action": "pause"},
        clock=clock,
        breakpoints=True,
        ruleset={"pause_timeout_s": 2, "pause_default": "drop"},
    )
    p = ic.decide(call(ic)).held
    assert p is not None and ic.next_deadline() == clock.t + 2
    assert ic.expire() == []
    clock.t += 2
    assert ic.expire() == [p]
    assert p.outcome is not None and p.outcome.effects == []
    assert p.outcome.intervention is not None and p.outcome.intervention.by == "timeout"


def test_breakpoints_off_lets_pause_rules_pass() -> None:
    ic = engine({"name": "bp", "action": "pause"})
    assert ic.decide(call(ic)).intervention is None and ic.decide(call(ic)).held is None
    ic.breakpoints_on(True)
    assert ic.decide(call(ic)).held is not None


def test_resolve_from_another_thread_wakes_the_waiter() -> None:
    ic = engine({"name": "bp", "action": "pause"}, breakpoints=True)
    p = ic.decide(call(ic)).held
    assert p is not None
    woke = threading.Event()
    p.on_resolved(lambda _p: woke.set())
    threading.Thread(target=p.resolve, args=("forward",)).start()
    assert woke.wait(60)


def test_live_rule_changes() -> None:
    ic = engine()
    events: list[tuple[str, dict[str, Any]]] = []
    unsubscribe = ic.subscribe(lambda ev, d: events.append((ev, d)))
    ic.add_rule(Rule(name="d", action="drop"))
    with pytest.raises(RulesError, match="exists already"):
        ic.add_rule(Rule(name="d", action="delay", ms=1))
    assert ic.decide(call(ic)).effects == []
    assert ic.set_enabled("d", False) and ic.decide(call(ic)).intervention is None
    assert not ic.set_enabled("nope", True)
    assert ic.remove_rule("d") and not ic.remove_rule("d") and ic.rules() == []
    unsubscribe()
    ic.breakpoints_on(True)
    assert [e for e, _ in events] == ["rules", "rules", "rules"]


def test_snapshot_is_json() -> None:
    ic = engine({"name": "slow", "action": "delay", "ms": 10, "match": {"method": "tools/*"}})
    ic.decide(call(ic))
    snap = json.loads(json.dumps(ic.snapshot()))
    assert snap["seed"] == 1 and snap["active"] is True and snap["breakpoints"] is False
    assert snap["rules"] == [
        {
            "name": "slow",
            "match": {"method": ["tools/*"]},
            "action": "delay",
            "ms": 10.0,
            "enabled": True,
            "matched": 1,
            "hits": 1,
        }
    ]


# --- rules files ---------------------------------------------------------------------------


def test_load_yaml_and_json(tmp_path: Path) -> None:
    y = tmp_path / "rules.yaml"
    y.write_text(
        "seed: 42\npause_default: drop\nrules:\n"
        "  - name: slow\n    match: {direction: c2s, method: tools/call}\n    action: delay\n    ms: 500\n"
        "  - name: err\n    match: {name: echo, kind: request}\n    action: replace\n"
        "    error: {code: -32000, message: injected}\n"
    )
    rs = load_rules(y)
    assert rs.seed == 42 and rs.pause_default == "drop" and [r.name for r in rs.rules] == ["slow", "err"]
    assert rs.rules[1].error is not None and rs.rules[1].error.code == -32000
    j = tmp_path / "rules.json"
    j.write_text(json.dumps([{"name": "x", "action": "drop"}]))
    assert [r.name for r in load_rules(j).rules] == ["x"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "rules:\n  - name: slow\n    action: delay\n",
            "rule 'slow' (rules[0]), field ms: action delay needs ms",
        ),
        (
            "rules:\n  - name: a\n    action: drop\n    ms: 3\n",
            "rule 'a' (rules[0]), field ms: action drop does not take ms",
        ),
        ("rules:\n  - name: a\n    action: explode\n", "rule 'a' (rules[0]), field action: Input should be"),
        (
            "rules:\n  - name: a\n    action: drop\n    probability: 2\n",
            "rule 'a' (rules[0]), field probability",
        ),
        (
            "rules:\n  - {name: a, action: drop, match: {where: 'x = 1'}}\n",
            "rule 'a' (rules[0]), field match.where",
        ),
        ("rules:\n  - {name: a, action: drop, match: {metod: x}}\n", "field match.metod: Extra inputs"),
        ("rules:\n  - {name: a, action: drop}\n  - {name: a, action: drop}\n", "two rules are named 'a'"),
        ("rules:\n  - {action: drop}\n", "rules[0], field name: Field required"),
        ("rules:\n  - {name: r, action: replace}\n", "needs exactly one of result or error"),
        ("rules:\n  - {name: t, action: truncate, at: 1.5}\n", "fraction below 1"),
        ("rules:\n  - {name: h, action: http_error, status: 200}\n", "field status"),
        ("sed: 1\n", "field sed: Extra inputs"),
        ("rules: [\n", "not valid YAML"),
        ("42\n", "expected a mapping"),
    ],
)
def test_rules_file_errors_name_file_rule_and_field(tmp_path: Path, text: str, says: str) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(RulesError) as exc:
        load_rules(f)
    msg = str(exc.value)
    assert str(f) in msg and says in msg


@pytest.mark.parametrize("case", ACTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ACTION_CASES)])
def test_a_rules_full_dump_validates_again(case: tuple[Any, ...]) -> None:
    # The UI and the control channel send rules back as they got them: defaults included.
    rule = Rule.model_validate(
        {"name": "r", "action": case[0], **case[1], "match": {"where": "params.n > 1"}}
    )
    for dumped in (rule.model_dump(), rule.model_dump(mode="json"), rule.model_dump(exclude_unset=True)):
        again = Rule.model_validate(dumped)
        assert again == rule and again.match.matches(
            Seen.of("c2s", line({"jsonrpc": "2.0", "method": "m", "params": {"n": 2}}))
        )


def test_missing_file_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read the rules file"):
        load_rules(tmp_path / "nope.yaml")
    (tmp_path / "r.json").write_text("{")
    with pytest.raises(RulesError, match="not valid JSON at line 1"):
        load_rules(tmp_path / "r.json")


def test_http_only_actions_are_refused_on_stdio() -> None:
    rs = parse_rules([{"name": "h", "action": "http_error", "status": 500}])
    check_transport(rs, "http")
    with pytest.raises(RulesError, match="rule 'h' .* HTTP only"):
        check_transport(rs, "stdio", "f.yaml")


def test_the_docs_rules_file_example_loads(tmp_path: Path) -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "intercept.md"
    section = page.read_text(encoding="utf-8").split("# Intercept and inject faults", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "rules.yaml").write_text(example)
    rs = load_rules(tmp_path / "rules.yaml")
    assert rs.seed == 42 and len(rs.rules) == 6
    check_transport(rs, "stdio")
