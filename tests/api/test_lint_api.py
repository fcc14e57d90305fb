"""The lint API: a session's findings (linted when stale) and the message filter by findings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from inspector.lint import RULES
from tests.api.conftest import Api, in_process, new_store
from tests.lint_recordings import violations


@pytest.fixture(scope="module")
def lint_api(
    request: pytest.FixtureRequest, store_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Api, int, dict[str, int]]]:
    db = new_store(request, store_backend, tmp_path_factory.mktemp("lint") / "lint.db")
    sid, seqs = violations(db)
    for api in in_process(db):
        yield api, sid, seqs


def test_findings_lint_when_stale_then_come_from_the_store(lint_api: tuple[Api, int, dict[str, int]]) -> None:
    api, sid, seqs = lint_api
    first = api.json(f"/api/sessions/{sid}/findings")
    assert first["relinted"] is True
    assert {(f["rule"], f["seq"]) for f in first["items"]} == set(seqs.items())
    assert first["summary"] == {"error": 1, "warning": 2, "info": 0}
    for f in first["items"]:
        assert f["severity"] == RULES[f["rule"]].severity
        assert "modelcontextprotocol.io/specification/2025-11-25/" in f["spec_section"]
    second = api.json(f"/api/sessions/{sid}/findings")
    assert second["relinted"] is False and second["items"] == first["items"]
    errors = api.json(f"/api/sessions/{sid}/findings", min_severity="error")
    assert [f["rule"] for f in errors["items"]] == ["unknown-response-id"]


def test_messages_filter_by_findings(lint_api: tuple[Api, int, dict[str, int]]) -> None:
    api, sid, seqs = lint_api
    api.json(f"/api/sessions/{sid}/findings")
    page = api.json(f"/api/sessions/{sid}/messages", findings="error", count="true")
    assert [r["seq"] for r in page["items"]] == [seqs["unknown-response-id"]] and page["total"] == 1
    assert page["items"][0]["lint"] == [{"rule": "unknown-response-id", "severity": "error"}]
    warned = api.json(f"/api/sessions/{sid}/messages", findings="warning")
    assert [r["seq"] for r in warned["items"]] == sorted(seqs.values())
    anything = api.json(f"/api/sessions/{sid}/messages", findings="any")
    assert [r["seq"] for r in anything["items"]] == sorted(seqs.values())
    everything = api.json(f"/api/sessions/{sid}/messages")
    assert len(everything["items"]) > len(seqs)
    clean = [r for r in everything["items"] if r["seq"] not in seqs.values()]
    assert all(r["lint"] is None for r in clean)


def test_bad_lint_queries_are_refused(lint_api: tuple[Api, int, dict[str, int]]) -> None:
    api, sid, _seqs = lint_api
    assert api.get("/api/sessions/999/findings").status_code == 404
    assert api.get(f"/api/sessions/{sid}/findings", min_severity="fatal").status_code == 422
    assert api.get(f"/api/sessions/{sid}/messages", findings="bogus").status_code == 422


def test_findings_of_one_message(lint_api: tuple[Api, int, dict[str, int]]) -> None:
    api, sid, seqs = lint_api
    seq = seqs["list-changed-not-declared"]
    one = api.json(f"/api/sessions/{sid}/findings", seq=seq)
    assert [(f["rule"], f["seq"]) for f in one["items"]] == [("list-changed-not-declared", seq)]
    assert api.json(f"/api/sessions/{sid}/findings", seq=1)["items"] == []
