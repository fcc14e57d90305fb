"""`protocol.conversations.derive` on hand-built rows: the cases the real-peer tests do not reach
(a broken round re-issued inside a conversation, two identical conversations in a row, an error
ending one, a request answered after all)."""

from __future__ import annotations

import json
from typing import Any

from inspector.protocol.conversations import derive


class Rows:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def _add(self, **row: Any) -> int:
        seq = len(self.rows) + 1
        self.rows.append({"seq": seq, "channel": "stdout", "meta": None, "answers_seq": None, **row})
        return seq

    def request(self, rpc_id: int, params: dict[str, Any], method: str = "tools/call") -> int:
        raw = json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}).encode()
        return self._add(direction="c2s", kind="request", method=method, rpc_id=str(rpc_id), raw=raw)

    def answer(self, seq: int, result: dict[str, Any] | None = None, error: bool = False) -> int:
        req = self.rows[seq - 1]
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": int(req["rpc_id"])}
        body.update({"error": {"code": -32603, "message": "x"}} if error else {"result": result})
        return self._add(
            direction="s2c", kind="error" if error else "response", method=req["method"],
            rpc_id=req["rpc_id"], answers_seq=seq, raw=json.dumps(body).encode(),
        )  # fmt: skip


ASK = {
    "resultType": "input_required",
    "inputRequests": {"q": {"method": "elicitation/create"}},
    "requestState": "s1",
}
DONE = {"resultType": "complete", "content": []}


def _call(extra: dict[str, Any] | None = None, progress: int = 0) -> dict[str, Any]:
    return {
        "name": "deploy",
        "arguments": {"env": "prod"},
        "_meta": {"progressToken": progress},
        **(extra or {}),
    }


ROUND2 = {"inputResponses": {"q": {"action": "accept"}}, "requestState": "s1"}


def test_a_broken_round_reissued_is_one_round_with_its_attempt() -> None:
    w = Rows()
    first = w.request(1, _call(progress=1))
    w.answer(first, ASK)
    broken = w.request(2, _call(ROUND2, progress=2))  # its answer never came
    again = w.request(3, _call(ROUND2, progress=3))
    final = w.answer(again, DONE)
    d = derive(w.rows)
    assert [(p.original, p.retry) for p in d.retries] == [(broken, again)]
    (conv,) = d.conversations
    assert [(r.n, r.request_seq, r.attempts) for r in conv.rounds] == [(1, first, []), (2, again, [broken])]
    assert conv.outcome == "complete" and conv.final_seq == final
    marks = d.to_json()["by_seq"]
    assert marks[str(broken)]["conversation"]["role"] == "attempt"
    assert marks[str(broken)]["retried_by"] == again and marks[str(again)]["retry_of"] == broken


def test_two_identical_conversations_and_one_ending_in_an_error() -> None:
    w = Rows()
    for rid in (1, 3):
        w.answer(w.request(rid, _call()), ASK)
        w.answer(w.request(rid + 1, _call(ROUND2)), DONE)
    w.answer(w.request(5, _call()), ASK)
    w.answer(w.request(6, _call(ROUND2)), error=True)
    d = derive(w.rows)
    assert [(c.id, len(c.rounds), c.outcome) for c in d.conversations] == [
        (1, 2, "complete"), (5, 2, "complete"), (9, 2, "error")
    ]  # fmt: skip
    assert d.retries == []


def test_plain_calls_and_answered_repeats_are_neither() -> None:
    w = Rows()
    w.answer(w.request(1, _call()), DONE)
    w.answer(w.request(2, _call()), DONE)  # the same call again, answered both times
    late = w.request(3, _call({"arguments": {"env": "dev"}}))  # unanswered, never re-issued
    w.answer(w.request(4, {}, method="tools/list"), {"tools": []})
    d = derive(w.rows)
    assert d.conversations == [] and d.retries == []
    assert str(late) not in d.to_json()["by_seq"]


def test_an_open_conversation_the_client_gave_up() -> None:
    w = Rows()
    w.answer(w.request(1, _call()), ASK)
    (conv,) = derive(w.rows).conversations
    assert conv.outcome == "open" and conv.final_seq is None and len(conv.rounds) == 1
