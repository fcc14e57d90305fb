"""Issue 21 (second round): `mcp-inspect diff --json` prints the counts and the exchanges that differ
(each with its index in the whole report); `--all` lists the equal ones too, in JSON and text."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from bench.scale_lint import generate_session
from inspector.cli import app


def _diff(db: Path, *flags: str) -> Result:
    """`mcp-inspect diff a b --db DB FLAGS` in-process."""
    return CliRunner().invoke(app, ["diff", "a", "b", "--db", str(db), *flags])


def test_json_lists_what_differs_and_all_lists_everything(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    generate_session(db, 600, name="a")
    generate_session(db, 600, name="b", changes=frozenset({20, 150}))
    short, whole = _diff(db, "--json"), _diff(db, "--json", "--all")
    assert short.exit_code == whole.exit_code == 1, short.stderr
    doc, full = json.loads(short.stdout), json.loads(whole.stdout)
    assert doc["listed"] == "differing" and full["listed"] == "all"
    assert doc["counts"] == full["counts"] and doc["counts"]["changed"] == 2
    assert [x["status"] for x in doc["exchanges"]] == ["changed", "changed"]
    assert len(full["exchanges"]) == sum(full["counts"][s] for s in ("equal", "changed", "missing", "extra"))
    assert doc["exchanges"] == [full["exchanges"][x["index"]] for x in doc["exchanges"]]
    text, text_all = _diff(db), _diff(db, "--all")
    assert (
        text.stdout.count("\n= equal") == 0 and text_all.stdout.count("\n= equal") == doc["counts"]["equal"]
    )
    help_text = CliRunner().invoke(app, ["diff", "--help"]).stdout
    assert "--all" in help_text and "differ" in help_text
