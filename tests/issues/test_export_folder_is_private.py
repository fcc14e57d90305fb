"""Regression (issue 33, finding 14): `export -o newdir/file` created the folder with the umask.

Under umask 000 the new folder came out 0777: any local user could list it and, by planting names
in it, race the export. Recordings and session files carry traffic, so a folder the export creates
is 0700, as the recordings folder is (`inspector.private_files`); the file is 0600.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from inspector.cli import app
from inspector.errors import InspectorError

T0 = 1_700_000_000_000_000_000


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def _db(tmp_path: Path) -> Path:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n"
    lines = [
        {"format": "mcp-inspector-session", "version": 1},
        {"type": "session", "ref": 1, "name": "one", "kind": "stdio-wrap", "started_ns": T0, "message_count": 1},
        {"type": "message", "session": 1, "seq": 1, "ts_ns": T0, "direction": "c2s", "channel": "stdin",
         "raw": body, "size": len(body), "parse_status": "ok", "kind": "request", "method": "tools/list",
         "rpc_id": "1"},
    ]  # fmt: skip
    source = tmp_path / "one.mcp.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "rec.db"
    done = CliRunner().invoke(app, ["import", str(source), "--db", str(db)])
    assert done.exit_code == 0, done.output
    return db


@pytest.mark.parametrize("fmt", ["jsonl", "html"])
def test_export_into_a_new_folder_under_umask_000(tmp_path: Path, open_umask: None, fmt: str) -> None:
    db = _db(tmp_path)
    target = tmp_path / "shared" / "deeper" / f"out.{fmt}"
    done = CliRunner().invoke(app, ["export", "1", "--db", str(db), "--format", fmt, "-o", str(target)])
    assert done.exit_code == 0, done.output
    for folder in (tmp_path / "shared", tmp_path / "shared" / "deeper"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_an_existing_folder_is_left_as_it_is(tmp_path: Path, open_umask: None) -> None:
    db = _db(tmp_path)
    shared = tmp_path / "mine"
    shared.mkdir(mode=0o755)
    done = CliRunner().invoke(app, ["export", "1", "--db", str(db), "-o", str(shared / "out.mcp.jsonl")])
    assert done.exit_code == 0, done.output
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755


def test_a_file_where_the_folder_should_be_is_one_clear_error(tmp_path: Path) -> None:
    db = _db(tmp_path)
    (tmp_path / "afile").write_text("")
    done = CliRunner().invoke(
        app, ["export", "1", "--db", str(db), "-o", str(tmp_path / "afile" / "x.jsonl")]
    )
    assert isinstance(done.exception, InspectorError) and "is not a folder" in str(done.exception)
