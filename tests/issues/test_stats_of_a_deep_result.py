"""`mcp-inspect stats` of a session whose `tools/call` result nests 100,000 levels deep (stored out
of line, so read in Python for its `isError`) ended in a RecursionError: the stats read such a
body with `json.loads`. They read it with `json_depth.loads` now, as every other reader does; the
diff's runs-compared summary (issue #39 item 5), which takes both sessions' stats, found it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from inspector.cli import app as cli
from tests import two_sessions
from tests.issues.test_deep_json_is_diffed_and_exported import session_file


def test_stats_of_a_deep_result(tmp_path: Path) -> None:
    db = two_sessions.imported(tmp_path / "deep.db", session_file(100_000))
    done = CliRunner().invoke(cli, ["stats", "1", "--json", "--db", str(db)])
    assert done.exit_code == 0, done.output
    (call,) = [r for r in json.loads(done.stdout)["methods"] if r["method"] == "tools/call" and r["name"]]
    assert (call["name"], call["count"], call["errors"]) == ("t", 1, 0)
