"""Interventions over the real API (issue 17): the `intervened` filter, a message's intervention
rows, the session's intercept facts, the diff's marks and lint, on a session written through the
real recorder (`tests.intervened`), next to a 2,000-message session without any."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.store import open_engine
from inspector.store.interventions import server_side
from inspector.store.pages import MessageFilter, count_messages
from tests.api.conftest import Api, in_process, new_store
from tests.api.recordings import generate_session
from tests.intervened import FACTS, INTERVENED, record_lines


@pytest.fixture(scope="module")
def iv_api(
    request: pytest.FixtureRequest, store_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    db = new_store(request, store_backend, tmp_path_factory.mktemp("iv") / "iv.db")
    generate_session(db, 2000, name="plain")  # session 1: no interventions
    record_lines(db, INTERVENED)  # session 2
    record_lines(db, [(d, raw, None) for d, raw, _ in INTERVENED], name="unmarked", intercept=None)  # 3
    server = [(d, raw, None) for d, raw, meta in INTERVENED if server_side(d, meta)]
    record_lines(db, server, name="as the server lived it", intercept=None)  # 4: a replay of session 2
    yield from in_process(db)


def _seqs(api: Api, sid: int, **q: object) -> list[int]:
    page: Any = api.json(f"/api/sessions/{sid}/messages", **q)
    return [r["seq"] for r in page["items"]]


def test_intervened_filter_lists_marked_rows_only(iv_api: Api) -> None:
    assert _seqs(iv_api, 2, intervened="true") == [4, 6, 7, 10, 11, 12, 13, 14, 16]
    assert _seqs(iv_api, 2, intervened="true", direction="s2c") == [10, 11, 14, 16]
    page: Any = iv_api.json("/api/sessions/2/messages", intervened="true", count="true")
    assert page["total"] == 9
    assert _seqs(iv_api, 1, intervened="true") == []
    assert len(_seqs(iv_api, 2)) == len(INTERVENED)  # off by default
    rows: Any = iv_api.json("/api/sessions/2/messages", intervened="true", limit=3)
    assert rows["items"][0]["meta"]["intercept"] == {
        "n": 1,
        "action": "delay",
        "by": "rule:slow",
        "delivered": True,
        "delay_ms": 200,
    }
    position: Any = iv_api.json("/api/sessions/2/messages/11/position", intervened="true")
    assert position == {"seq": 11, "index": 4, "matches": True}
    assert iv_api.get("/api/sessions/2/messages", intervened="maybe").status_code == 422


def test_message_detail_lists_its_intervention(iv_api: Api) -> None:
    doc: Any = iv_api.json("/api/sessions/2/messages/11")
    assert [r["seq"] for r in doc["intervention"]] == [10, 11]
    assert doc["pair"]["seq"] == 9  # the injected error answers the request the server answered
    edited: Any = iv_api.json("/api/sessions/2/messages/6")
    assert [r["seq"] for r in edited["intervention"]] == [6, 7]
    assert edited["pair"] is None  # the original never reached the server
    copy: Any = iv_api.json("/api/sessions/2/messages/7")
    assert copy["pair"]["seq"] == 8
    plain: Any = iv_api.json("/api/sessions/2/messages/5")
    assert plain["intervention"] == []


def test_session_facts_carry_the_seed_and_rules(iv_api: Api) -> None:
    s: Any = iv_api.json("/api/sessions/2")
    assert s["facts"]["intercept"] == FACTS


def test_diff_marks_intervened_exchanges_and_stays_equal(iv_api: Api) -> None:
    doc: Any = iv_api.json("/api/diff", a=2, b=4)
    assert doc["changed"] is False, doc
    marked = {x["original_seq"]: x["interventions"] for x in doc["exchanges"] if x["interventions"]}
    assert marked[9] == ["replaced by rule fail (not delivered)"]
    assert marked[7] == ["injected by you (edit #2)"]


def test_lint_keeps_interventions_off_the_peers(iv_api: Api) -> None:
    doc: Any = iv_api.json("/api/sessions/2/findings")
    rules = {(f["seq"], f["rule"]) for f in doc["items"]}
    assert not any(r in ("duplicate-request-id", "unknown-response-id") for _, r in rules), rules
    plain: Any = iv_api.json("/api/sessions/3/findings")
    assert any(f["rule"] == "duplicate-request-id" for f in plain["items"])  # the same lines, unmarked


def test_filter_costs_nothing_when_off_and_little_when_on(tmp_path: Path) -> None:
    """The filter reads `meta` only when asked; asked, a 20,000-row session is counted quickly."""
    db = tmp_path / "big.db"
    sid = generate_session(db, 20_000, name="big")
    engine = open_engine(db)
    try:
        start = time.perf_counter()
        assert count_messages(engine, sid, MessageFilter(intervened=True)) == 0
        on = time.perf_counter() - start
        start = time.perf_counter()
        count_messages(engine, sid, MessageFilter(kinds=("request",)))
        off = time.perf_counter() - start
    finally:
        engine.dispose()
    assert on < 0.5, f"intervened filter took {on:.3f} s over 20,000 rows (kind filter: {off:.3f} s)"


def test_odd_intervention_numbers_are_no_500(blank_store: Any) -> None:
    db = blank_store
    odd = [
        (
            "c2s",
            b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
            {"intercept": {"n": 2**62, "delivered": False}},
        ),
        ("c2s", b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n', {"injected": {"n": [2**62], "by": 5}}),
        ("c2s", b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n', {"injected": "yes"}),
    ]
    record_lines(db, odd, intercept=None)
    for api in in_process(db):
        for seq in (1, 2, 3):
            assert api.get(f"/api/sessions/1/messages/{seq}").status_code == 200
        assert _seqs(api, 1, intervened="true") == [1, 2]
