"""The intercept flags of `wrap`: read by `parse_wrap_args` as the other options, and nothing of
the interceptor is imported (nor paid for) by a wrap without them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.wrap import parse_wrap_args
from tests.unit.test_protocol_is_sans_io import forbidden_imports

CORE = Path(__file__).resolve().parents[2] / "inspector" / "intercept"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--faults", "r.yaml"], {"faults": "r.yaml"}),
        (["--faults=r.yaml"], {"faults": "r.yaml"}),
        (["--intercept"], {"intercept": True}),
        (["--seed", "3"], {"seed": 3}),
        (["--pause-timeout", "2"], {"pause_timeout": 2.0}),
        (["--pause-default", "drop"], {"pause_default": "drop"}),
    ],
)
def test_intercept_flags_are_read(flags: list[str], expected: dict[str, object]) -> None:
    opts = parse_wrap_args([*flags, "--", "python", "server.py"])
    assert opts is not None and opts.command == ["python", "server.py"]
    assert {key: getattr(opts, key) for key in expected} == expected
    theirs = parse_wrap_args(["--", "python", "server.py", *flags])  # the server's own
    assert theirs is not None and theirs.command == ["python", "server.py", *flags]
    assert (theirs.faults, theirs.intercept, theirs.seed) == (None, False, None)


@pytest.mark.parametrize("name", ["match.py", "engine.py"])
def test_core_is_sans_io(name: str) -> None:
    # A lock and the default clock are all the engine takes from the outside world.
    assert forbidden_imports((CORE / name).read_text(encoding="utf-8")) - {"threading", "time"} == set()


PROBE = """
import sys
sys.argv = ["mcp-inspect", "wrap", "--quiet", "--db", sys.argv[1], "--", sys.executable, "-c", "pass"]
import os
def report(code):
    loaded = sorted(m for m in sys.modules if m.startswith("inspector.intercept"))
    print(code, loaded, file=sys.stderr, flush=True)
leave = os._exit  # a short session handed to a finishing process leaves at once (the OS's exit)
os._exit = lambda code: (report(code), leave(code))
from inspector.entry import main
try:
    main()
except SystemExit as exc:
    report(exc.code)
"""


def test_a_plain_wrap_imports_nothing_of_the_interceptor(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "r.db")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.stderr.strip().splitlines()[-1] == "0 []"


def test_bad_rules_file_is_one_clear_error(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - name: slow\n    action: delay\n")
    run = subprocess.run(
        [sys.executable, "-m", "inspector", "wrap", "--db", str(tmp_path / "r.db"), "--faults", str(rules),
         "--", sys.executable, "-c", "pass"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "rule 'slow' (rules[0]), field ms: action delay needs ms" in run.stderr.replace("\n", " ")
