"""`mcp-inspect test`: the "JUnit XML: PATH" line overflowed an 80-column terminal.

Found when the suite first ran in pytest-xdist workers: their temp paths are longer
(`.../popen-gw1/...`) and `test_changed_and_broken` saw an 86-character line. The report's
path was printed unfolded while every other line folds at the terminal's width. Now it folds
like the rest (and a recording's name is never read as Rich markup).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.warm_peers import inspector_argv


def test_every_line_fits_80_columns_however_long_the_paths(tmp_path: Path) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "recordings[red]"
    deep.mkdir(parents=True)
    (deep / "broken[bold].mcp.jsonl").write_text("this is not a session file\n")
    junit = deep / "report" / "junit.xml"
    result = subprocess.run(
        inspector_argv("test", str(deep), "--junit-xml", str(junit), "--", "true"),
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 2, result.stdout + result.stderr  # none could run
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, result.stdout
    assert "broken[bold].mcp.jsonl" in result.stdout  # the name as it is, not styled away
    assert junit.exists()
    assert "JUnit XML:" in result.stdout
