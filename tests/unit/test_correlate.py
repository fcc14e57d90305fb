"""Correlator: responses paired to requests per direction, cancels and progress linked."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.protocol.correlate import Correlator, Pairing, Pending, opposite
from inspector.protocol.jsonrpc import classify


class Wire:
    """Feeds messages to one Correlator with seq counting up from 1 and ts = 1000 * seq unless given."""

    def __init__(self) -> None:
        self.corr = Correlator()
        self.seq = 0

    def send(self, direction: str, obj: Any, ts: int | None = None) -> Pairing:
        self.seq += 1
        msg = classify(json.dumps(obj).encode())
        return self.corr.observe(self.seq, 1000 * self.seq if ts is None else ts, direction, msg)


def req(id_: Any, method: str = "tools/call", **params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params:
        out["params"] = params
    return out


def res(id_: Any, result: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": {} if result is None else result}


def err(id_: Any, code: int = -32603) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": "x"}}


def note(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def test_opposite() -> None:
    assert opposite("c2s") == "s2c"
    assert opposite("s2c") == "c2s"


def test_request_then_response() -> None:
    w = Wire()
    p1 = w.send("c2s", req(1, "tools/list"), ts=100)
    assert p1 == Pairing()
    assert w.corr.unanswered()[0].method == "tools/list"
    p2 = w.send("s2c", res(1), ts=350)
    assert p2.answers_seq == 1
    assert p2.request_method == "tools/list"
    assert p2.latency_ns == 250
    assert p2.flags == []
    assert w.corr.unanswered() == []


def test_error_response_pairs_too() -> None:
    w = Wire()
    w.send("c2s", req("a", "server/discover"), ts=10)
    p = w.send("s2c", err("a", -32601), ts=15)
    assert p.answers_seq == 1
    assert p.request_method == "server/discover"
    assert p.latency_ns == 5


def test_error_with_bad_code_still_pairs() -> None:
    w = Wire()
    w.send("c2s", req(1))
    p = w.send("s2c", {"jsonrpc": "2.0", "id": 1, "error": {"message": "no code"}})
    assert p.answers_seq == 1


@pytest.mark.parametrize("method", ["sampling/createMessage", "roots/list", "elicitation/create", "ping"])
def test_c2s_response_answers_s2c_request(method: str) -> None:
    w = Wire()
    w.send("s2c", req(0, method))
    p = w.send("c2s", res(0))
    assert p.answers_seq == 1
    assert p.request_method == method
    assert p.flags == []


def test_response_in_the_same_direction_as_request_is_orphan() -> None:
    w = Wire()
    w.send("c2s", req(1))
    p = w.send("c2s", res(1))
    assert p.flags == ["orphan-response"]
    assert p.answers_seq is None
    assert [u.seq for u in w.corr.unanswered()] == [1]


def test_same_id_in_both_directions_pairs_each_with_its_own() -> None:
    w = Wire()
    w.send("c2s", req(1, "tools/call"))  # seq 1
    w.send("s2c", req(1, "sampling/createMessage"))  # seq 2, same id, other direction
    assert w.send("c2s", res(1)).answers_seq == 2  # client answers the server's request
    p = w.send("s2c", res(1))
    assert p.answers_seq == 1
    assert p.request_method == "tools/call"
    assert p.flags == []


def test_string_and_integer_ids_with_same_text_do_not_cross_pair() -> None:
    w = Wire()
    w.send("c2s", req(1, "a"))  # seq 1
    w.send("c2s", req("1", "b"))  # seq 2
    pb = w.send("s2c", res("1"))
    assert pb.answers_seq == 2 and pb.request_method == "b"
    pa = w.send("s2c", res(1))
    assert pa.answers_seq == 1 and pa.request_method == "a"
    assert w.send("s2c", res("1")).flags == ["orphan-response"]


def test_string_id_response_to_int_request_is_orphan() -> None:
    w = Wire()
    w.send("c2s", req(7))
    assert w.send("s2c", res("7")).flags == ["orphan-response"]
    assert [u.rpc_id for u in w.corr.unanswered()] == ["7"]


def test_duplicate_id_flagged_and_paired_fifo() -> None:
    w = Wire()
    assert w.send("c2s", req(5, "first")).flags == []
    dup = w.send("c2s", req(5, "second"))
    assert dup.flags == ["duplicate-id"]
    r1 = w.send("s2c", res(5))
    r2 = w.send("s2c", res(5))
    assert (r1.answers_seq, r1.request_method) == (1, "first")
    assert (r2.answers_seq, r2.request_method) == (2, "second")
    assert w.send("s2c", res(5)).flags == ["orphan-response"]


def test_id_reused_after_answer_is_not_duplicate() -> None:
    w = Wire()
    w.send("c2s", req(1))
    w.send("s2c", res(1))
    assert w.send("c2s", req(1)).flags == []
    assert w.send("s2c", res(1)).answers_seq == 3


def test_same_id_other_direction_is_not_duplicate() -> None:
    w = Wire()
    w.send("c2s", req(1))
    assert w.send("s2c", req(1, "roots/list")).flags == []


def test_orphan_response() -> None:
    w = Wire()
    p = w.send("s2c", res(99))
    assert p.flags == ["orphan-response"]
    assert p.answers_seq is None and p.request_method is None and p.latency_ns is None
    assert w.send("s2c", err(None, -32700)).flags == ["orphan-response"]


def test_unanswered_in_seq_order() -> None:
    w = Wire()
    w.send("c2s", req(3, "a"))
    w.send("s2c", req(1, "b"))
    w.send("c2s", req(2, "c"))
    w.send("c2s", req(3, "d"))  # duplicate of seq 1
    w.send("s2c", res(2))  # answers seq 3
    pending = w.corr.unanswered()
    assert [p.seq for p in pending] == [1, 2, 4]
    assert all(isinstance(p, Pending) for p in pending)
    assert [(p.direction, p.rpc_id, p.method) for p in pending] == [
        ("c2s", "3", "a"),
        ("s2c", "1", "b"),
        ("c2s", "3", "d"),
    ]


def test_notifications_and_invalid_get_an_empty_pairing() -> None:
    w = Wire()
    assert w.send("c2s", note("notifications/initialized")) == Pairing()
    assert w.send("s2c", note("notifications/message", level="info")) == Pairing()
    assert w.corr.observe(3, 0, "c2s", classify(b"{nope")) == Pairing()
    assert w.corr.unanswered() == []


# --- cancellation -----------------------------------------------------------------


def test_cancel_links_to_request_and_late_response_is_flagged() -> None:
    w = Wire()
    w.send("c2s", req(4, "tools/call"), ts=100)
    cancel = w.send("c2s", note("notifications/cancelled", requestId=4, reason="user"))
    assert cancel.related_seq == 1
    assert cancel.request_method == "tools/call"
    assert cancel.flags == []
    late = w.send("s2c", res(4), ts=900)
    assert late.answers_seq == 1
    assert late.latency_ns == 800
    assert late.flags == ["late-after-cancel"]


def test_cancel_of_server_request_travels_s2c() -> None:
    w = Wire()
    w.send("s2c", req(0, "sampling/createMessage"))
    assert w.send("s2c", note("notifications/cancelled", requestId=0)).related_seq == 1
    assert w.send("c2s", res(0)).flags == ["late-after-cancel"]


def test_cancel_in_the_wrong_direction_is_unknown() -> None:
    w = Wire()
    w.send("c2s", req(4))
    assert w.send("s2c", note("notifications/cancelled", requestId=4)).flags == ["unknown-cancel"]
    assert w.send("s2c", res(4)).flags == []


def test_unknown_cancel() -> None:
    w = Wire()
    p = w.send("c2s", note("notifications/cancelled", requestId=42))
    assert p.flags == ["unknown-cancel"]
    assert p.related_seq is None
    assert w.send("c2s", note("notifications/cancelled")).flags == ["unknown-cancel"]


def test_cancel_after_the_answer_is_unknown() -> None:
    w = Wire()
    w.send("c2s", req(1))
    w.send("s2c", res(1))
    assert w.send("c2s", note("notifications/cancelled", requestId=1)).flags == ["unknown-cancel"]


def test_cancel_id_type_matters() -> None:
    w = Wire()
    w.send("c2s", req(1))
    assert w.send("c2s", note("notifications/cancelled", requestId="1")).flags == ["unknown-cancel"]
    assert w.send("s2c", res(1)).flags == []


def test_cancel_with_duplicate_ids_marks_the_newest() -> None:
    w = Wire()
    w.send("c2s", req(1, "old"))
    w.send("c2s", req(1, "new"))
    assert w.send("c2s", note("notifications/cancelled", requestId=1)).related_seq == 2
    assert w.send("s2c", res(1)).flags == []  # answers seq 1, not cancelled
    assert w.send("s2c", res(1)).flags == ["late-after-cancel"]


# --- progress ---------------------------------------------------------------------


def test_progress_linked_by_token() -> None:
    w = Wire()
    w.send("c2s", req(1, "tools/call", name="slow", _meta={"progressToken": "tok"}))
    assert w.corr.unanswered()[0].progress_token == '"tok"'
    p = w.send("s2c", note("notifications/progress", progressToken="tok", progress=1, total=2))
    assert p.related_seq == 1
    assert p.request_method == "tools/call"
    assert p.flags == []


def test_integer_progress_token() -> None:
    w = Wire()
    w.send("c2s", req(1, _meta={"progressToken": 7}))
    assert w.send("s2c", note("notifications/progress", progressToken=7, progress=1)).related_seq == 1
    assert w.send("s2c", note("notifications/progress", progressToken="7", progress=1)).flags == [
        "unknown-progress"
    ]


def test_progress_from_the_client_for_a_server_request() -> None:
    w = Wire()
    w.send("s2c", req(0, "sampling/createMessage", _meta={"progressToken": "p"}))
    assert w.send("c2s", note("notifications/progress", progressToken="p", progress=1)).related_seq == 1
    # the same token in the request's own direction is not a progress for it
    assert w.send("s2c", note("notifications/progress", progressToken="p", progress=1)).flags == [
        "unknown-progress"
    ]


def test_unknown_progress() -> None:
    w = Wire()
    assert w.send("s2c", note("notifications/progress", progressToken="x", progress=1)).flags == [
        "unknown-progress"
    ]
    assert w.send("s2c", note("notifications/progress", progress=1)).flags == ["unknown-progress"]


def test_progress_token_outside_meta_is_not_registered() -> None:
    w = Wire()
    w.send("c2s", req(1, progressToken="tok"))
    assert w.send("s2c", note("notifications/progress", progressToken="tok")).flags == ["unknown-progress"]


def test_progress_after_the_response_is_unknown() -> None:
    w = Wire()
    w.send("c2s", req(1, _meta={"progressToken": "tok"}))
    w.send("s2c", res(1))
    assert w.send("s2c", note("notifications/progress", progressToken="tok")).flags == ["unknown-progress"]


# --- batches ----------------------------------------------------------------------


def test_batch_requests_and_batch_responses() -> None:
    w = Wire()
    p = w.send("c2s", [req(1, "a"), req(2, "b"), note("notifications/x")], ts=100)
    assert len(p.items) == 3
    assert all(item.answers_seq is None for item in p.items)
    assert p.answers_seq is None
    assert [u.seq for u in w.corr.unanswered()] == [1, 1]

    r = w.send("s2c", [res(2), res(1), res(3)], ts=160)
    assert [i.answers_seq for i in r.items] == [1, 1, None]
    assert [i.request_method for i in r.items] == ["b", "a", None]
    assert [i.latency_ns for i in r.items] == [60, 60, None]
    assert r.items[2].flags == ["orphan-response"]
    # the batch row itself carries the first answered item's pairing
    assert (r.answers_seq, r.request_method, r.latency_ns) == (1, "b", 60)
    assert r.flags == []
    assert w.corr.unanswered() == []


def test_batch_responses_to_separate_requests() -> None:
    w = Wire()
    w.send("c2s", req(1, "a"), ts=10)
    w.send("c2s", req(2, "b"), ts=20)
    r = w.send("s2c", [res(1), err(2)], ts=50)
    assert [(i.answers_seq, i.latency_ns) for i in r.items] == [(1, 40), (2, 30)]


def test_batch_with_orphan_first_takes_first_answered() -> None:
    w = Wire()
    w.send("c2s", req(2, "b"))
    r = w.send("s2c", [res(9), res(2)])
    assert r.answers_seq == 1
    assert r.request_method == "b"


def test_batch_with_duplicate_ids_inside() -> None:
    w = Wire()
    p = w.send("c2s", [req(1), req(1)])
    assert [i.flags for i in p.items] == [[], ["duplicate-id"]]


# --- to_meta ----------------------------------------------------------------------


def test_to_meta_empty() -> None:
    assert Pairing().to_meta() == {}
    # answers_seq/latency live in their own columns, not in meta
    assert Pairing(answers_seq=1, request_method="x", latency_ns=5).to_meta() == {}


def test_to_meta_flags_and_related() -> None:
    assert Pairing(flags=["orphan-response"]).to_meta() == {"flags": ["orphan-response"]}
    assert Pairing(related_seq=3, request_method="tools/call").to_meta() == {"related_seq": 3}


def test_to_meta_items_drop_empty_fields() -> None:
    w = Wire()
    w.send("c2s", req(1, "a"), ts=0)
    w.send("c2s", note("notifications/progress", progressToken="nope"))  # seq 2
    r = w.send("s2c", [res(1), res(5)], ts=30)
    meta = r.to_meta()
    assert meta == {
        "items": [
            {"answers_seq": 1, "request_method": "a", "latency_ns": 30},
            {"flags": ["orphan-response"]},
        ]
    }
    assert json.loads(json.dumps(meta)) == meta


def test_to_meta_of_request_batch_has_empty_items() -> None:
    w = Wire()
    assert w.send("c2s", [req(1), note("n")]).to_meta() == {"items": [{}, {}]}


# --- property: every response answers at most one request, FIFO per id ------------


@settings(max_examples=150, deadline=None)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["req", "res"]), st.sampled_from(["c2s", "s2c"]), st.sampled_from([1, 2, "1"])
        ),
        max_size=30,
    )
)
def test_model_of_pairing(ops: list[tuple[str, str, Any]]) -> None:
    w = Wire()
    model: dict[tuple[str, str], list[int]] = {}
    for op, direction, id_ in ops:
        if op == "req":
            p = w.send(direction, req(id_))
            key = (direction, json.dumps(id_))
            assert p.flags == (["duplicate-id"] if model.get(key) else [])
            model.setdefault(key, []).append(w.seq)
        else:
            p = w.send(direction, res(id_))
            queue = model.get((opposite(direction), json.dumps(id_)))
            if queue:
                expected = queue.pop(0)
                assert p.answers_seq == expected
                assert p.latency_ns == 1000 * (w.seq - expected)
                assert p.flags == []
            else:
                assert p.flags == ["orphan-response"]
    assert [u.seq for u in w.corr.unanswered()] == sorted(s for q in model.values() for s in q)
