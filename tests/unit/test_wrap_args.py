"""`parse_wrap_args`, the one reader of wrap's arguments: the fast path (`inspector/entry.py`)
and the Typer `wrap` command both use it; Typer only renders --help from the same option list
(`WRAP_OPTIONS`) and answers what the parser hands back (None) in its own words."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from inspector.cli import app
from inspector.errors import InspectorError
from inspector.wrap import WRAP_OPTIONS, parse_wrap_args


def test_options_then_command() -> None:
    opts = parse_wrap_args(
        ["--db", "x.db", "--name=n", "-q", "--durable", "--grace", "0.5", "--redact", "a", "--redact=b",
         "--redact-path", "p.q", "--keep-secrets", "--otlp", "http://c:4318", "--otlp-content",
         "--metadata-only", "--max-record-bytes", "1MiB", "--", "python", "-m", "srv", "--db", "y"]
    )  # fmt: skip
    assert opts is not None
    assert (opts.db, opts.name, opts.quiet, opts.durable, opts.grace) == ("x.db", "n", True, True, 0.5)
    assert (opts.redact, opts.redact_path, opts.keep_secrets) == (["a", "b"], ["p.q"], True)
    assert (opts.otlp, opts.otlp_content, opts.metadata_only) == ("http://c:4318", True, True)
    assert opts.max_record_bytes == "1MiB"
    assert opts.command == ["python", "-m", "srv", "--db", "y"]


def test_defaults() -> None:
    opts = parse_wrap_args(["python", "server.py"])
    assert opts is not None and opts.command == ["python", "server.py"]
    assert (opts.db, opts.name, opts.durable, opts.grace, opts.quiet) == (None, None, False, 2.0, False)
    assert (opts.redact, opts.redact_path, opts.keep_secrets) == ([], [], False)
    assert (opts.faults, opts.intercept, opts.seed, opts.pause_timeout, opts.pause_default) == (
        None, False, None, None, None,
    )  # fmt: skip


def test_command_without_double_dash_ends_the_options() -> None:
    opts = parse_wrap_args(["--no-durable", "node", "server.js", "-q"])
    assert opts is not None and opts.command == ["node", "server.js", "-q"] and not opts.quiet


def test_a_second_double_dash_is_dropped() -> None:
    opts = parse_wrap_args(["--", "--", "node", "server.js"])
    assert opts is not None and opts.command == ["node", "server.js"]


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["--db"],
        ["--grace", "soon", "x"],
        ["--seed", "3.5", "x"],
        ["--bogus", "x"],
        ["-qx", "x"],
        ["--"],
        ["--quiet=1", "x"],
    ],
)
def test_anything_else_is_for_typer_to_answer(args: list[str]) -> None:
    assert parse_wrap_args(args) is None


def test_typer_declares_exactly_the_parsers_options() -> None:
    wrap = typer.main.get_command(app).commands["wrap"]  # type: ignore[attr-defined]
    declared = {name for p in wrap.params for name in (*p.opts, *p.secondary_opts) if name.startswith("-")}
    assert declared == set(WRAP_OPTIONS)


def test_the_typer_command_runs_what_the_parser_read(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    # --durable: the store is opened first, the session ends in this process (not a finishing one)
    args = ["wrap", "--db", str(db), "--name", "typed", "--durable", "-q", "--", sys.executable, "-c", "pass"]
    result = CliRunner().invoke(app, args, input="")
    assert result.exit_code == 0, result.output
    shown = CliRunner().invoke(app, ["sessions", "--db", str(db), "--json"])
    assert '"name": "typed"' in shown.output


def test_what_typer_reads_but_the_parser_refuses_is_one_error_line() -> None:
    result = CliRunner().invoke(app, ["wrap", "-qq", "--", sys.executable, "-c", "pass"])
    assert isinstance(result.exception, InspectorError)  # main() prints it as one line, exit 2
    assert "give each option on its own" in str(result.exception)


def test_help_and_errors_still_come_from_the_full_cli() -> None:
    run = [sys.executable, "-m", "inspector", "wrap"]
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "Wrap a stdio MCP server" in helped.stdout
    bad = subprocess.run([*run, "--grace", "soon", "x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--grace" in bad.stderr
