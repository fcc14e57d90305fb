"""A recorded result nested 256, 1,000 or 100,000 levels deep (a hostile server's, or a session file's)
is diffed, paged by the API and exported to HTML like any other: no traceback, no 500, no truncated
200 (issue #33, finding 9). What nests deeper than `MAX_DEPTH` is compared and shown as its text."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from typer.testing import CliRunner

from inspector.cli import app as cli
from inspector.protocol.json_depth import DEEP_NOTE, MAX_DEPTH, loads
from tests import two_sessions


def _deep(n: int, leaf: str) -> str:
    return "[" * n + orjson.dumps(leaf).decode() + "]" * n


def session_file(depth: int) -> list[bytes]:
    """Two sessions whose one tools/call differs only at the bottom of a `depth`-deep result."""
    request = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n'
    a, b = ('{"jsonrpc":"2.0","id":1,"result":{"v":' + _deep(depth, leaf) + "}}\n" for leaf in "ab")
    return two_sessions.session_file("tools/call", request, (a, b))


@pytest.fixture(scope="module", params=[256, 1000, 100_000])
def deep_db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_sessions.imported(tmp_path_factory.mktemp("deep") / "deep.db", session_file(request.param))


def test_loads_keeps_deep_levels_as_their_text() -> None:
    value = loads(b'{"v":' + _deep(1000, "a").encode() + b"}")
    level = value["v"]  # level 2 (the object is level 1)
    for _ in range(MAX_DEPTH - 1):
        level = level[0]
    assert (
        isinstance(level, str) and level.startswith(DEEP_NOTE + "[[[") and level.endswith('"a"' + "]" * 801)
    )
    assert loads(b'["[[[[", {"a": 1}]') == ["[[[[", {"a": 1}]  # brackets in strings do not count
    with pytest.raises(orjson.JSONDecodeError):
        loads(b"[" * 5000)


def test_cli_diff_and_html_export_of_a_deep_result(deep_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    diffed = runner.invoke(cli, ["diff", "1", "2", "--db", str(deep_db)], env={"COLUMNS": "200"})
    assert diffed.exception is None or isinstance(diffed.exception, SystemExit), diffed.output
    assert diffed.exit_code == 1 and "behaviour changed" in diffed.output, diffed.output
    assert "1 changed" in diffed.output and "nested deeper than" in diffed.output
    out = tmp_path / "deep.html"
    exported = runner.invoke(cli, ["export", "1", "--db", str(deep_db), "--format", "html", "-o", str(out)])
    assert exported.exit_code == 0, exported.output
    assert out.read_text().endswith("</html>\n")


def test_api_diff_and_html_export_of_a_deep_result(deep_db: Path) -> None:
    async def main() -> None:
        with anyio.fail_after(60):
            async for client in two_sessions.api_client(deep_db):
                diff = await client.get("/api/diff", params={"a": "1", "b": "2"})
                assert diff.status_code == 200, diff.text[:300]
                assert diff.json()["counts"]["changed"] == 1
                exported = await client.get("/api/sessions/2/export", params={"format": "html"})
                assert exported.status_code == 200 and exported.text.endswith("</html>\n"), exported.text[
                    -200:
                ]
                report = await client.get("/api/diff/report", params={"a": "1", "b": "2"})
                assert report.status_code == 200 and report.text.endswith("</html>\n"), report.text[-200:]

    anyio.run(main)
