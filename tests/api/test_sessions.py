"""Session routes (the API in-process): list, filters, pagination, detail, rename/labels, delete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.capture.sessions import create_session
from inspector.store import open_engine, search_messages
from tests.api.conftest import BOTH_BACKENDS, Api, in_process
from tests.api.recordings import generate_session
from tests.sessions import load


def test_list_shows_the_demo_session_with_its_facts(demo_api: Api) -> None:
    page: Any = demo_api.json("/api/sessions")
    assert page["total"] == 1
    (s,) = page["items"]
    assert s["name"] == "demo" and s["kind"] == "stdio-wrap" and s["state"] == "ended"
    assert s["exit_status"] == 0 and s["message_count"] > 30
    assert s["protocol_version"] and s["server_info"]["name"] == "inspector-demo"
    assert "tools" in s["server_capabilities"]
    assert s["target"][-2:] == ["-m", "inspector.demo"]


def test_detail_by_id_and_last(demo_api: Api) -> None:
    by_id: Any = demo_api.json("/api/sessions/1")
    assert demo_api.json("/api/sessions/last") == by_id
    assert by_id["client_info"]["name"] and by_id["facts"] is not None


def test_unknown_session_is_a_404_with_a_message(demo_api: Api) -> None:
    for path in ("/api/sessions/999", "/api/sessions/999/messages", "/api/sessions/999/messages/1"):
        response = demo_api.get(path)
        assert response.status_code == 404, path
        assert response.json() == {"detail": "no session with id 999"}
    bad = demo_api.get("/api/sessions/banana")
    assert bad.status_code == 404 and "not a session id" in bad.json()["detail"]


@BOTH_BACKENDS  # the store's list query (filters, order, pages)
def test_filters_and_pagination(blank_store: Any) -> None:
    db = blank_store
    for i in range(5):
        generate_session(db, 3, name=f"alpha {i}" if i % 2 == 0 else f"beta {i}")
    engine = open_engine(db)
    create_session(
        engine, kind="http-proxy", target="http://x/mcp", name="live one"
    )  # this process: recording
    for api in in_process(db):

        def names(api: Api = api, **q: object) -> list[str]:
            return [s["name"] for s in api.json("/api/sessions", **q)["items"]]  # type: ignore[index]

        assert names(name="ALPHA") == ["alpha 4", "alpha 2", "alpha 0"]
        assert names(kind="http-proxy") == ["live one"]
        assert names(state="recording") == ["live one"]
        assert len(names(state="ended")) == 5 and names(state="interrupted") == []
        assert names(started_after="2100-01-01T00:00:00Z") == []
        assert len(names(started_before="2100-01-01T00:00:00Z")) == 6
        first: Any = api.json("/api/sessions", limit=4)
        rest: Any = api.json("/api/sessions", limit=4, offset=4)
        assert first["total"] == rest["total"] == 6
        ids = [s["id"] for s in first["items"] + rest["items"]]
        assert sorted(ids, reverse=True) == ids and len(set(ids)) == 6
        assert api.get("/api/sessions", state="sleeping").status_code == 422


def test_rename_and_label_then_delete(blank_store: Any) -> None:
    db = blank_store
    sid = generate_session(db, 10, name="before")
    for api in in_process(db):
        patched = api.http.patch(
            f"/api/sessions/{sid}", json={"name": "after", "labels": ["ci", " flaky ", ""]}
        )
        assert patched.status_code == 200, patched.text
        assert api.json(f"/api/sessions/{sid}")["name"] == "after"  # type: ignore[index]
        assert api.json(f"/api/sessions/{sid}")["labels"] == ["ci", "flaky"]  # type: ignore[index]
        assert api.http.patch("/api/sessions/77", json={"name": "x"}).status_code == 404
        assert api.http.delete(f"/api/sessions/{sid}").status_code == 204
        assert api.get(f"/api/sessions/{sid}").status_code == 404
        assert api.json("/api/sessions")["total"] == 0  # type: ignore[index]


def test_a_session_still_recording_is_not_deleted(fresh_api: Api) -> None:
    sid = create_session(open_engine(fresh_api.db), kind="stdio-wrap", target=["x"])
    response = fresh_api.http.delete(f"/api/sessions/{sid}")
    assert response.status_code == 409 and "still recording" in response.json()["detail"]


def test_deleting_the_newest_session_leaves_no_stale_search_hits(tmp_path: Path) -> None:
    # Row ids freed at the end of the table are reused by SQLite; the search index must forget them.
    db = tmp_path / "fts.db"
    generate_session(db, 20, name="kept")
    load(db, "demo", name="doomed")
    engine = open_engine(db)
    assert search_messages(engine, "Lisbon")  # indexes the demo's rows
    for api in in_process(db):
        assert api.http.delete("/api/sessions/2").status_code == 204
    newer = generate_session(db, 200, name="newer")
    assert search_messages(engine, "Lisbon") == []
    hits = search_messages(engine, "tool3")
    assert hits and {m.session_id for m in hits} >= {newer}
