"""`replay --rate | --as-recorded | --max`'s terminal side: the progress bar on stderr (a terminal
only, not with --json) and the report, 80 columns wide (the table is `stats`' own) or one JSON
document."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from inspector.terminal_text import visible, visible_json

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from inspector.auth.connect import AuthRequest
    from inspector.replay.load import Load
    from inspector.replay.load_report import LoadReport

__all__ = ["report_lines", "run_load"]


class _Bar:
    """A rich progress bar fed by `replay.load.drive_load` (its `Progress` callbacks)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("load"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("load", total=None)

    def total(self, total: int | None) -> None:
        self._progress.update(self._task, total=total)

    def advance(self) -> None:
        self._progress.advance(self._task)

    def __enter__(self) -> _Bar:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}/s"


def report_lines(report: LoadReport) -> list[str]:
    """The text report: the pace asked and achieved, the counts, then `stats`' table."""
    from inspector.cli.stats import render

    run = report.run
    assert run is not None
    asked = _rate(report.load.rate) if report.load.mode == "rate" else report.load.mode.replace("-", " ")
    lines = [
        f"load: {report.load.describe()}",
        f"sent {run.sent} messages in {run.sending:.2f} s: {_rate(report.achieved_per_s)} (asked: {asked})",
        f"requests {run.requests}: answered {run.answered}, unanswered {report.unanswered}, "
        f"errors {report.errors}; done in {run.elapsed:.2f} s",
        "",
        *render({"methods": report.methods}),
    ]
    return lines


def run_load(
    engine: Engine,
    ref: str,
    target: Sequence[str] | str,
    load: Load,
    *,
    match: str,
    headers: dict[str, str],
    secrets: dict[str, str],
    timeout: float,
    auth: AuthRequest | None,
    json_out: bool,
) -> int:
    """Run the load replay, print its report; the exit status."""
    from inspector.capture.redact import missing_secrets_message
    from inspector.replay.load_report import load_replay

    say = sys.stderr
    say.write(f"[mcp-inspect] replaying session {visible(ref)} as load ({load.describe()}) ...\n")
    say.flush()
    args: dict[str, Any] = dict(match=match, headers=headers, secrets=secrets, timeout=timeout, auth=auth)
    if sys.stderr.isatty() and not json_out:
        with _Bar() as bar:
            report = load_replay(engine, ref, target, load, progress=bar, **args)
    else:
        report = load_replay(engine, ref, target, load, **args)
    if report.missing_secrets:
        say.write(f"[mcp-inspect] warning: {missing_secrets_message(report.missing_secrets)}\n")
    if report.problem is not None:
        say.write(f"[mcp-inspect] the load replay could not run: {visible(report.problem)}\n")
    elif json_out:
        doc = orjson.dumps(report.to_json(), option=orjson.OPT_INDENT_2).decode()
        sys.stdout.write(visible_json(doc) + "\n")
    else:
        sys.stdout.write("\n".join(report_lines(report)) + "\n")
    say.write(f"[mcp-inspect] load replay of session {report.original} recorded as session {report.replay}\n")
    return report.exit_status
