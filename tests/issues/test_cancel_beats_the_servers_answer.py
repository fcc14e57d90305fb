"""Regression: cancelling a request the server answers at once (the SDK server sends -32800
"Request cancelled" as soon as it reads `notifications/cancelled`) ended the request as an
ordinary error response instead of "cancelled" whenever that answer arrived before the cancel
route had stopped the waiter (seen over Streamable HTTP under load: the notification's POST
round trip is slower than the answer on the still-open SSE stream; the scripted peer makes that
ordering certain). The waiter is now stopped before the notification is sent, and the server's
answer is kept as the late response.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, serve
from tests.api.test_client_api import _connect
from tests.api.test_client_features_api import WAIT_S, _call_in_background, _in_flight, _ok, _until
from tests.http_peers import scripted_http_server

ROUNDS = 3


@pytest.fixture
def fresh_api(tmp_path: Path) -> Iterator[Api]:
    yield from serve(tmp_path / "fresh.db")


def test_a_cancelled_call_always_ends_cancelled_and_the_answer_is_late(fresh_api: Api) -> None:
    api = fresh_api
    with scripted_http_server() as base:  # answers -32800 0.5 s before it acknowledges the cancel
        cid = _connect(api, {"url": base + "/cancel-races"}, "2025-11-25")["id"]
        for _ in range(ROUNDS):
            call = _call_in_background(api, cid, "wait", {})
            running = _until(api, cid, _in_flight("tools/call"), "progress on the long call")
            key = running["key"]
            _ok(api.http.post(f"/api/clients/{cid}/requests/{key}/cancel", json={"reason": "race"}))
            answer = call.result(timeout=WAIT_S)
            assert answer.status_code == 409 and "cancelled" in answer.json()["detail"], answer.text
            late = _until(
                api,
                cid,
                lambda a, k=key: next((r for r in a["recent"] if r["key"] == k and r.get("response")), None),
                "the server's late answer",
            )
            assert late["state"] == "cancelled"
            assert late["response"]["error"]["code"] == -32800
