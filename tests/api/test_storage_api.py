"""The storage view (`GET /api/storage`) and pinning through `PATCH /api/sessions/{id}`, on both
backends, behind the API's guard."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from inspector.store import open_engine
from tests.api.conftest import Api, in_process
from tests.api.recordings import generate_session

DAY = 86_400 * 10**9


@pytest.fixture
def storage_api(blank_store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    """Three sessions: two started 40 and 35 days ago, one now; a policy of 30 days in a config file."""
    for name in ("forty", "thirty-five", "today"):
        generate_session(blank_store, 300, name=name)
    engine = open_engine(blank_store)
    with engine.begin() as conn:
        for name, days in (("forty", 40), ("thirty-five", 35)):
            conn.execute(
                text("UPDATE session SET started_ns = :t WHERE name = :n"),
                {"t": time.time_ns() - days * DAY, "n": name},
            )
    engine.dispose()
    config = tmp_path / "config.toml"
    config.write_text('[retention]\nmax_age = "30d"\n')
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(config))
    yield from in_process(blank_store)


def _ids(api: Api) -> dict[str, int]:
    doc: Any = api.json("/api/sessions")
    return {s["name"]: s["id"] for s in doc["items"]}


def test_the_storage_view_shows_sizes_the_policy_and_what_goes_next(storage_api: Api, tmp_path: Path) -> None:
    ids = _ids(storage_api)
    doc: Any = storage_api.json("/api/storage")
    assert doc["policy_active"] is True and doc["policy_error"] is None
    policy = {p["key"]: p for p in doc["policy"]}
    assert policy["max_age"]["value"] == "30d"
    assert policy["max_age"]["source"] == f"config file {tmp_path / 'config.toml'}"
    assert policy["max_total_size"] == {"key": "max_total_size", "value": None, "source": "default"}
    assert [(n["id"], n["reason"]) for n in doc["next"]] == [
        (ids["forty"], "age"),
        (ids["thirty-five"], "age"),
    ]
    sizes = {s["id"]: s for s in doc["sessions"]}
    assert all(s["bytes"] > 300 * 50 for s in sizes.values())
    assert doc["next_bytes"] == sizes[ids["forty"]]["bytes"] + sizes[ids["thirty-five"]]["bytes"]
    assert doc["file_bytes"] > 0 and doc["used_bytes"] > doc["after_bytes"]
    assert doc["sessions_total"] == 3

    pinned = storage_api.http.patch(f"/api/sessions/{ids['forty']}", json={"pinned": True})
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    doc = storage_api.json("/api/storage")
    assert [n["id"] for n in doc["next"]] == [ids["thirty-five"]]
    forty = next(s for s in doc["sessions"] if s["id"] == ids["forty"])
    assert forty["kept"] == "pinned" and forty["goes"] is None
    unpinned = storage_api.http.patch(f"/api/sessions/{ids['forty']}", json={"pinned": False})
    assert unpinned.json()["pinned"] is False


def test_a_broken_config_file_is_shown_not_a_server_error(
    storage_api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.toml").write_text("[retention]\nmax_age = 'soon'\n")
    doc: Any = storage_api.json("/api/storage")
    assert "max_age" in doc["policy_error"] and doc["policy_active"] is False and doc["next"] == []


def test_the_storage_route_and_pinning_go_through_the_guard(storage_api: Api) -> None:
    sid = _ids(storage_api)["forty"]
    for origin in ("http://evil.example", "null"):
        assert storage_api.http.get("/api/storage", headers={"origin": origin}).status_code == 403
        refused = storage_api.http.patch(
            f"/api/sessions/{sid}", json={"pinned": True}, headers={"origin": origin}
        )
        assert refused.status_code == 403

    with storage_api.bare() as anonymous:
        assert anonymous.get("/api/storage").status_code == 401
    assert storage_api.json(f"/api/sessions/{sid}")["pinned"] is False  # type: ignore[index]
    bad = storage_api.http.patch(f"/api/sessions/{sid}", json={"pinned": "maybe"})
    assert bad.status_code == 422
