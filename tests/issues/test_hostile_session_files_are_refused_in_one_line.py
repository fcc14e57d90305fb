"""A hostile session file (a JSON column of the wrong shape, an integer past 64 bits, a HAR date past
2262 or a timing that overflows) is refused with one line naming where, nothing of it stored; rows of
a wrong shape that an older database already holds do not break the API or `show` (issue #33,
finding 10)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from inspector.api.app import create_app
from inspector.cli import app as cli
from inspector.errors import InspectorError
from inspector.store import open_engine

TOKEN = "t" * 32
HEADER = {"format": "mcp-inspector-session", "version": 1}
SESSION = {"type": "session", "ref": 1, "kind": "http-proxy", "started_ns": 10**18, "name": "hostile"}
MESSAGE = {
    "type": "message", "session": 1, "seq": 1, "ts_ns": 10**18 + 1, "direction": "s2c",
    "channel": "http-response", "raw": "{}", "size": 2, "parse_status": "not-jsonrpc", "kind": "http",
    "http_status": 200, "http_headers": [["content-type", "application/json"]],
}  # fmt: skip


def session_file(
    path: Path, session: dict[str, Any] | None = None, message: dict[str, Any] | None = None
) -> Path:
    lines = [HEADER, {**SESSION, **(session or {})}, {**MESSAGE, **(message or {})}]
    path.write_text("".join(json.dumps(v) + "\n" for v in lines))  # json: orjson stops at 64 bits
    return path


def har_file(
    path: Path, started: str = "2025-01-01T00:00:00Z", timings: dict[str, Any] | None = None
) -> Path:
    body = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    entry = {
        "startedDateTime": started, "time": 1,
        "request": {"method": "POST", "url": "http://127.0.0.1:1/mcp", "headers": [],
                    "postData": {"mimeType": "application/json", "text": body}},
        "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json",
                     "text": '{"jsonrpc":"2.0","id":1,"result":{}}'}},
        "timings": timings or {"send": 0, "wait": 1, "receive": 0},
    }  # fmt: skip
    path.write_bytes(orjson.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": [entry]}}))
    return path


def refusal(result: Result) -> str:
    """The one-line error of a refused import (`cli.main` prints an `InspectorError` as one red
    line, exit status 2); anything else would be a traceback."""
    assert result.exit_code != 0 and isinstance(result.exception, InspectorError), result.exception
    message = str(result.exception)
    assert "\n" not in message
    return message


HOSTILE = [
    ("labels", {"labels": "notalist"}, None, "labels"),
    ("labels-items", {"labels": ["ok", 3]}, None, "labels"),
    ("headers", None, {"http_headers": [[1, 2, 3]]}, "http_headers"),
    ("headers-triple", None, {"http_headers": [["a", "b", "c"]]}, "http_headers"),
    ("target", {"target": {"x": 1}}, None, "target"),
    ("started", {"started_ns": 2**63}, None, "started_ns"),
    ("latency", None, {"latency_ns": 2**63}, "latency_ns"),
    ("negative", None, {"ts_ns": -(2**63) - 1}, "ts_ns"),
]


@pytest.mark.parametrize(("case", "session", "message", "field"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_column_of_the_wrong_type_is_one_line_and_nothing_is_stored(
    tmp_path: Path, case: str, session: dict[str, Any] | None, message: dict[str, Any] | None, field: str
) -> None:
    db = tmp_path / "in.db"
    path = session_file(tmp_path / f"{case}.mcp.jsonl", session, message)
    result = CliRunner().invoke(cli, ["import", str(path), "--db", str(db)])
    error = refusal(result)
    assert field in error and f"{path.name}:{2 if session else 3}: " in error
    assert "Traceback" not in result.output
    listed = CliRunner().invoke(cli, ["sessions", "--db", str(db), "--json"])
    assert "hostile" not in listed.output


@pytest.mark.parametrize(
    ("case", "started", "timings", "words"),
    [
        ("date", "9999-12-31T23:59:59Z", None, "startedDateTime"),
        ("early", "1000-01-01T00:00:00Z", None, "startedDateTime"),
        ("timing", None, {"send": 0, "wait": 1e308, "receive": 1e308}, "timings"),
    ],
)
def test_a_har_past_the_clock_range_is_one_line(
    tmp_path: Path, case: str, started: str | None, timings: dict[str, Any] | None, words: str
) -> None:
    db = tmp_path / "in.db"
    path = har_file(tmp_path / f"{case}.har", started or "2025-01-01T00:00:00Z", timings)
    result = CliRunner().invoke(cli, ["import", str(path), "--db", str(db)])
    error = refusal(result)
    assert words in error and "entry 1" in error


@pytest.fixture
def old_rows(tmp_path: Path) -> Iterator[Path]:
    """A database whose rows an older version stored with shapes the importer now refuses."""
    db = tmp_path / "old.db"
    path = session_file(tmp_path / "fine.mcp.jsonl")
    assert CliRunner().invoke(cli, ["import", str(path), "--db", str(db)]).exit_code == 0
    engine = open_engine(db)
    with engine.begin() as c:
        c.execute(text("UPDATE session SET labels = '\"notalist\"', target = '{\"x\": 1}'"))
        c.execute(text("UPDATE message SET http_headers = '[[1, 2, 3]]'"))
    engine.dispose()
    yield db


def test_rows_of_a_wrong_shape_already_stored_are_read_safely(old_rows: Path) -> None:
    shown = CliRunner().invoke(cli, ["show", "1", "--db", str(old_rows)])
    assert shown.exit_code == 0 and shown.exception is None, shown.output

    async def main() -> None:
        engine = open_engine(old_rows)
        asgi = create_app(engine, token=TOKEN, hosts=["127.0.0.1"])
        transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
        headers = {"authorization": f"Bearer {TOKEN}"}
        with anyio.fail_after(30):
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1", headers=headers
            ) as c:
                listed = (await c.get("/api/sessions")).json()["items"][0]
                one = (await c.get("/api/sessions/1")).json()
                detail = (await c.get("/api/sessions/1/messages/1")).json()["message"]
        engine.dispose()
        for s in (listed, one):
            assert s["labels"] is None or all(isinstance(v, str) for v in s["labels"])
            assert s["target"] is None or isinstance(s["target"], str | list)
        assert detail["http_headers"] is None

    anyio.run(main)
