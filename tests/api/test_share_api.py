"""Session files over the API (issue #16): download in each format, upload to import, the diff report.

The API in-process (tests/api/conftest.py); the sessions are written by the recorder's own builder
(`tests/api/recordings.py`). The new routes answer only with the token and this server's Host and
Origin, like every /api route.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import Api, in_process, new_store
from tests.api.recordings import generate_session, http_session
from tests.har_schema import har_validator


@pytest.fixture(scope="module")
def share_api(
    request: pytest.FixtureRequest, store_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    db = new_store(request, store_backend, tmp_path_factory.mktemp("share") / "share.db")
    generate_session(db, 40, name="stdio forty")  # id 1
    http_session(db)  # id 2
    yield from in_process(db)


def _wait(api: Api, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while job["state"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = api.json(f"/api/imports/{job['id']}")  # type: ignore[assignment]
    return job


def _upload(api: Api, data: bytes, filename: str) -> httpx.Response:
    return api.http.post(
        "/api/imports",
        params={"filename": filename},
        content=data,
        headers={"content-type": "application/octet-stream"},
    )


def test_download_each_format(share_api: Api) -> None:
    jsonl = share_api.get("/api/sessions/2/export", format="jsonl")
    assert jsonl.status_code == 200
    assert jsonl.headers["content-disposition"] == 'attachment; filename="session-2.mcp.jsonl"'
    lines = jsonl.content.splitlines()
    assert (
        json.loads(lines[0])["format"] == "mcp-inspector-session" and len(lines) == 2 + 7
    )  # header, session, its rows

    har = share_api.get("/api/sessions/2/export", format="har")
    assert har.status_code == 200 and har.headers["content-disposition"].endswith('.har"')
    doc = har.json()
    har_validator().validate(doc)
    methods = [m.get("method") for e in doc["log"]["entries"] for m in e["_mcp"]["messages"]]
    assert "initialize" in methods and "tools/call" in methods
    assert "s3cret" not in har.text  # the recording holds a placeholder; so does the file

    page = share_api.get("/api/sessions/1/export", format="html")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<h3>Timeline (40 messages)</h3>" in page.text

    refused = share_api.get("/api/sessions/1/export", format="har")
    assert refused.status_code == 400 and "has no HTTP exchanges" in refused.json()["detail"]
    assert share_api.get("/api/sessions/99/export").status_code == 404
    assert share_api.get("/api/sessions/2/export", format="pdf").status_code == 422


def test_upload_imports_a_session_file_and_a_har(share_api: Api) -> None:
    before = share_api.json("/api/sessions")["total"]  # type: ignore[index]
    jsonl = share_api.get("/api/sessions/1/export").content
    started = _upload(share_api, jsonl, "forty.mcp.jsonl")
    assert started.status_code == 202, started.text
    job = _wait(share_api, started.json())
    assert job["state"] == "done" and job["done_bytes"] == job["total_bytes"] == len(jsonl), job
    (new_id,) = job["session_ids"]
    assert job["messages"] == 40
    assert share_api.get(f"/api/sessions/{new_id}/export").content == jsonl  # the round trip is exact

    har = share_api.get("/api/sessions/2/export", format="har").content
    job = _wait(share_api, _upload(share_api, har, "by-hand.har").json())
    assert job["state"] == "done", job
    (har_id,) = job["session_ids"]
    imported = share_api.json(f"/api/sessions/{har_id}")
    assert imported["kind"] == "import" and imported["name"] == "by-hand.har"  # type: ignore[index]
    assert share_api.json("/api/sessions")["total"] == before + 2  # type: ignore[index]


def test_bad_uploads_add_nothing(share_api: Api) -> None:
    before = share_api.json("/api/sessions")["total"]  # type: ignore[index]
    empty = _upload(share_api, b"", "empty")
    assert empty.status_code == 400 and "empty" in empty.json()["detail"]
    other = _upload(share_api, b"just some text\n", "notes.txt")
    assert other.status_code == 400 and "nor a HAR file" in other.json()["detail"]
    jsonl = share_api.get("/api/sessions/1/export").content
    broken = jsonl + b'{"type": "message", "session": 1}\n'
    job = _wait(share_api, _upload(share_api, broken, "broken.mcp.jsonl").json())
    assert job["state"] == "failed" and "broken.mcp.jsonl:43" in job["error"], job
    assert job["session_ids"] == []
    assert share_api.json("/api/sessions")["total"] == before  # type: ignore[index]
    assert share_api.get("/api/imports/nope").status_code == 404


def test_diff_report(share_api: Api) -> None:
    page = share_api.get("/api/diff/report", a="2", b="2")
    assert page.status_code == 200 and page.headers["content-disposition"].endswith('diff-2-2.html"')
    assert "<h2>Diff</h2>" in page.text and "No behaviour change." in page.text


def test_new_routes_need_the_token_and_our_origin(share_api: Api, tmp_path: Path) -> None:
    port = share_api.port
    bearer = {"authorization": f"Bearer {share_api.token}"}
    attempts: list[tuple[dict[str, str], tuple[int, ...]]] = [
        ({}, (401,)),
        ({"authorization": "Bearer wrong"}, (401,)),
        (bearer | {"origin": "http://evil.example"}, (403,)),
        (bearer | {"origin": f"http://127.0.0.1:{port + 1}"}, (403,)),
        (bearer | {"origin": "null"}, (403,)),
        (bearer | {"host": f"rebound.example:{port}"}, (400, 403)),
    ]
    before = share_api.json("/api/sessions")["total"]  # type: ignore[index]
    jsonl = share_api.get("/api/sessions/1/export").content
    with share_api.bare() as bare:
        for headers, statuses in attempts:
            for path in (
                "/api/sessions/1/export",
                "/api/sessions/2/export?format=har",
                "/api/diff/report?a=1&b=2",
            ):
                answer = bare.get(path, headers=headers)
                assert answer.status_code in statuses, (path, headers, answer.status_code)
                assert b"jsonrpc" not in answer.content
            posted = bare.post("/api/imports", content=jsonl, headers=headers)
            assert posted.status_code in statuses, (headers, posted.status_code)
    assert share_api.json("/api/sessions")["total"] == before  # nothing was imported
