"""`mcp-inspect test`: every recording of a folder replayed against a server, as a test suite.

For CI outside Python: each `*.mcp.jsonl` under the folder is imported into a
scratch database and replayed (`replay.report.replay_verdict`) against the
command or URL; a line per recording, a summary, and a JUnit XML report
(the Ant JUnit schema most CI systems read: one `testsuite`, a `testcase`
per recording, `failure` for a changed behaviour, `error` for a replay that
could not run).
"""

from __future__ import annotations

import socket
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from rich.console import Console
from rich.markup import escape

from inspector import __version__
from inspector.errors import InspectorError
from inspector.replay.diff import render_text
from inspector.replay.report import replay_verdict
from inspector.share.importer import import_jsonl
from inspector.share.jsonl import SUFFIX
from inspector.store import get_session, open_engine
from inspector.terminal_text import visible

__all__ = ["CaseResult", "junit_xml", "run_suite"]

EXIT_PASSED, EXIT_FAILED, EXIT_BAD = 0, 1, 2


@dataclass
class CaseResult:
    """One recording's outcome: `passed`, `failed` (behaviour changed) or `error` (did not run)."""

    name: str
    path: Path
    outcome: str
    seconds: float
    message: str = ""
    details: str = ""


@dataclass(frozen=True)
class ReplayOptions:
    calibrate: bool = False
    ignore: tuple[str, ...] = ()
    match: str = "strict"
    timeout: float = 30.0


def _case(path: Path, root: Path, target: Sequence[str] | str, options: ReplayOptions) -> CaseResult:
    name = str(path.relative_to(root))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mcp-inspect-test-") as scratch:
        engine = open_engine(Path(scratch) / "replay.db")
        try:
            try:
                with path.open("rb") as f:
                    done = import_jsonl(engine, f, source=str(path))
            except InspectorError as exc:
                return CaseResult(
                    name, path, "error", time.monotonic() - started, "not a session file", str(exc)
                )
            if not done.session_ids:
                return CaseResult(name, path, "error", time.monotonic() - started, "no session in the file")
            verdict = replay_verdict(
                engine,
                get_session(engine, done.session_ids[0]),
                target,
                calibrate=options.calibrate,
                ignore=options.ignore,
                match=options.match,
                timeout=options.timeout,
            )
        finally:
            engine.dispose()
    seconds = time.monotonic() - started
    if verdict.problem is not None or verdict.diff is None:
        return CaseResult(name, path, "error", seconds, "the replay could not run", str(verdict.problem))
    if verdict.exit_status != 0:
        text = render_text(verdict.diff)
        if verdict.timeouts:
            text += f"\nno answer in time to request id(s) {', '.join(verdict.timeouts)}"
        return CaseResult(name, path, "failed", seconds, "the server's behaviour changed", text)
    return CaseResult(name, path, "passed", seconds)


def junit_xml(
    results: Sequence[CaseResult], suite: str, seconds: float, target: Sequence[str] | str
) -> bytes:
    """The results as JUnit XML (Ant's schema: the attributes and elements it requires)."""
    failures = sum(r.outcome == "failed" for r in results)
    errors = sum(r.outcome == "error" for r in results)
    root = ET.Element("testsuites")
    node = ET.SubElement(
        root,
        "testsuite",
        {
            "package": "mcp-inspect",
            "id": "0",
            "name": suite,
            "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
            "hostname": socket.gethostname() or "localhost",
            "tests": str(len(results)),
            "failures": str(failures),
            "errors": str(errors),
            "time": f"{seconds:.3f}",
        },
    )
    properties = ET.SubElement(node, "properties")
    shown = target if isinstance(target, str) else " ".join(target)
    for name, value in (("mcp-inspect.version", __version__), ("mcp-inspect.target", shown)):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    for result in results:
        case = ET.SubElement(
            node,
            "testcase",
            {"name": result.name, "classname": f"mcp-inspect.{suite}", "time": f"{result.seconds:.3f}"},
        )
        if result.outcome in ("failed", "error"):
            tag = "failure" if result.outcome == "failed" else "error"
            problem = ET.SubElement(case, tag, {"message": result.message, "type": tag})
            problem.text = result.details
    ET.SubElement(node, "system-out").text = ""
    ET.SubElement(node, "system-err").text = ""
    # typeshed gives Any for an encoding other than None or "unicode": this one gives bytes.
    return cast(bytes, ET.tostring(root, encoding="utf-8", xml_declaration=True)) + b"\n"


def run_suite(
    folder: Path,
    target: Sequence[str] | str,
    *,
    junit: Path | None,
    calibrate: bool = False,
    ignore: Sequence[str] = (),
    match: str = "strict",
    timeout: float = 30.0,
) -> int:
    """Replay every recording under `folder`; print a line each and a summary; return the exit status."""
    if not folder.is_dir():
        raise InspectorError(f"{folder}: not a folder of recordings")
    paths = sorted(folder.rglob(f"*{SUFFIX}"))
    if not paths:
        raise InspectorError(f"{folder}: no recordings (*{SUFFIX}) in it or below it")
    out = Console(highlight=False, soft_wrap=True)
    options = ReplayOptions(calibrate, tuple(ignore), match, timeout)
    started = time.monotonic()
    results: list[CaseResult] = []
    for i, path in enumerate(paths, start=1):
        result = _case(path, folder, target, options)
        results.append(result)
        style = {"passed": "green", "failed": "red", "error": "yellow"}[result.outcome]
        out.print(
            f"[{i}/{len(paths)}] [{style}]{result.outcome.upper():6}[/{style}] {escape(result.name)}"
            f"  ({result.seconds:.1f} s)"
        )
        if result.outcome != "passed":
            # Folded at the terminal's width (80 columns when not a terminal); never read as markup.
            out.print(f"    {result.message}", markup=False, soft_wrap=False)
            for line in result.details.splitlines()[:40]:  # a server's words: controls shown, not run
                out.print(f"    {visible(line)}", markup=False, soft_wrap=False)
    seconds = time.monotonic() - started
    counts = {k: sum(r.outcome == k for r in results) for k in ("passed", "failed", "error")}
    out.print(
        f"{len(results)} recording{'s' if len(results) != 1 else ''}: {counts['passed']} passed, {counts['failed']} changed, "
        f"{counts['error']} could not run ({seconds:.1f} s)"
    )
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_bytes(junit_xml(results, folder.name or "recordings", seconds, target))
        out.print(f"JUnit XML: {junit}", markup=False, soft_wrap=False)  # a long path folds at the width
    if counts["error"]:
        return EXIT_BAD if counts["error"] == len(results) else EXIT_FAILED
    return EXIT_FAILED if counts["failed"] else EXIT_PASSED
