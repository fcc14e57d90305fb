"""`parse_wrap_args`: wrap's fast path reads exactly what Typer would, and hands anything else back."""

from __future__ import annotations

import subprocess
import sys

import pytest

from inspector.wrap import parse_wrap_args


def test_options_then_command() -> None:
    opts = parse_wrap_args(
        ["--db", "x.db", "--name=n", "-q", "--durable", "--grace", "0.5", "--redact", "a", "--redact=b",
         "--redact-path", "p.q", "--keep-secrets", "--", "python", "-m", "srv", "--db", "y"]
    )  # fmt: skip
    assert opts is not None
    assert (opts.db, opts.name, opts.quiet, opts.durable, opts.grace) == ("x.db", "n", True, True, 0.5)
    assert (opts.redact, opts.redact_path, opts.keep_secrets) == (["a", "b"], ["p.q"], True)
    assert opts.command == ["python", "-m", "srv", "--db", "y"]


def test_command_without_double_dash_ends_the_options() -> None:
    opts = parse_wrap_args(["--no-durable", "node", "server.js", "-q"])
    assert opts is not None and opts.command == ["node", "server.js", "-q"] and not opts.quiet


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["--db"],
        ["--grace", "soon", "x"],
        ["--bogus", "x"],
        ["-qx", "x"],
        ["--"],
        ["--quiet=1", "x"],
    ],
)
def test_anything_else_goes_to_the_full_cli(args: list[str]) -> None:
    assert parse_wrap_args(args) is None


def test_help_and_errors_still_come_from_the_full_cli() -> None:
    run = [sys.executable, "-m", "inspector", "wrap"]
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "Wrap a stdio MCP server" in helped.stdout
    bad = subprocess.run([*run, "--grace", "soon", "x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--grace" in bad.stderr
