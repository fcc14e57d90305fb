"""`mcp-inspect export` and `mcp-inspect import`: files in and out, progress and messages on stderr."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from sqlalchemy import Engine

from inspector.capture.pause import refuse_metadata_only
from inspector.errors import InspectorError
from inspector.private_files import make_private_dirs
from inspector.share.export import jsonl_lines, other_format
from inspector.share.importer import file_kind, import_har, import_jsonl
from inspector.store.models import Session
from inspector.store.queries import get_session
from inspector.terminal_text import markup_safe

__all__ = ["FORMATS", "export_command", "file_kind", "import_command"]

FORMATS = ("jsonl", "har", "html")


def _sessions(engine: Engine, refs: Sequence[str]) -> list[Session]:
    chosen: list[Session] = []
    seen: set[int] = set()
    for ref in refs:
        session = get_session(engine, ref)
        assert session.id is not None
        refuse_metadata_only(session, "exported (its bodies were never stored)")
        if session.id not in seen:
            seen.add(session.id)
            chosen.append(session)
    # A parent before its children, so the file can link them (`parent_ref`); else as given.
    by_id = {s.id: s for s in chosen}
    ordered: list[Session] = []
    placed: set[int | None] = set()

    def place(session: Session) -> None:
        if session.id in placed:
            return
        placed.add(session.id)
        if session.parent_id in by_id:
            place(by_id[session.parent_id])
        ordered.append(session)

    for session in chosen:
        place(session)
    return ordered


def _write(lines: Iterable[bytes], output: str | None) -> int:
    """Write to `output` (a new file replaces the old one only when complete) or stdout; bytes written."""
    written = 0
    if output is None or output == "-":
        if output is None and sys.stdout.isatty():
            raise InspectorError("give -o FILE, or redirect stdout: a session file is not for a terminal")
        out = sys.stdout.buffer
        for line in lines:
            out.write(line)
            written += len(line)
        out.flush()
        return written
    target = Path(output)
    folder = target.parent if str(target.parent) else Path(".")
    try:  # a folder the export creates is the user's only (0700), as recordings/ is; existing ones stay
        make_private_dirs(folder)
    except OSError as exc:
        raise InspectorError(f"-o {output}: cannot create the folder {folder}: {exc.strerror}") from None
    if not folder.is_dir():
        raise InspectorError(f"-o {output}: {folder} is not a folder")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    except OSError as exc:
        raise InspectorError(f"-o {output}: cannot write in {folder}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            for line in lines:
                f.write(line)
                written += len(line)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return written


def export_command(engine: Engine, refs: Sequence[str], *, fmt: str, output: str | None) -> int:
    """Export sessions; return the exit status."""
    if fmt not in FORMATS:
        raise InspectorError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    sessions = _sessions(engine, refs)
    count = 0

    def counted() -> Iterator[bytes]:
        nonlocal count
        for line in jsonl_lines(engine, sessions):
            count += 1
            yield line

    if fmt == "jsonl":
        size = _write(counted(), output)
        messages = count - 1 - len(sessions)
    else:
        chunks, messages = other_format(engine, sessions, fmt)
        size = _write(chunks, output)
    where = output if output not in (None, "-") else "stdout"
    ids = ", ".join(f"#{s.id}" for s in sessions)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    err.print(f"exported {ids} ({messages} messages, {size:,} bytes) to {markup_safe(where)}")
    return 0


def _read_all(f: BinaryIO, advance: Callable[[int], None]) -> bytes:
    chunks: list[bytes] = []
    read = 0
    while chunk := f.read(1 << 20):
        chunks.append(chunk)
        read += len(chunk)
        advance(read // 2)  # reading is the first half of a HAR import, building the rows the second
    return b"".join(chunks)


def _lines(f: BinaryIO) -> Iterator[bytes]:
    yield from f


def import_command(engine: Engine, files: Sequence[str]) -> int:
    """Import session files (`-` reads stdin); return the exit status."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for name in files:
        if name != "-" and not Path(name).is_file():
            raise InspectorError(f"{name}: no such file")
    for name in files:
        source = "stdin" if name == "-" else name
        f: BinaryIO = sys.stdin.buffer if name == "-" else open(name, "rb")  # noqa: SIM115
        try:
            head = f.peek(4096)[:4096] if hasattr(f, "peek") else b""
            kind = file_kind(head, source)
            total = os.fstat(f.fileno()).st_size if name != "-" else None
            with Progress(
                TextColumn("importing {task.description}"),
                BarColumn(),
                DownloadColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
                disable=not err.is_terminal,
            ) as bar:
                task = bar.add_task(Path(source).name, total=total)

                def advance(n: int, bar: Progress = bar, task: TaskID = task) -> None:
                    bar.update(task, completed=n)

                if kind == "har":
                    data = _read_all(f, advance)

                    def second_half(n: int, size: int = len(data)) -> None:
                        advance(size // 2 + n // 2)

                    done = import_har(engine, data, source=source, progress=second_half)
                else:
                    done = import_jsonl(engine, _lines(f), source=source, progress=advance)
        finally:
            if f is not sys.stdin.buffer:
                f.close()
        for session_id in done.session_ids:
            session = get_session(engine, session_id)
            # The file's own names and kinds: shown with their control characters escaped, never as markup.
            label = f" {markup_safe(repr(session.name))}" if session.name else ""
            err.print(
                f"imported session #{session_id}{label} ({markup_safe(session.kind)}, "
                f"{done.messages[session_id]} messages) from {markup_safe(source)}"
            )
        if not done.session_ids:
            what = "no MCP traffic (JSON-RPC bodies, Mcp-Session-Id)" if kind == "har" else "no sessions"
            err.print(f"{markup_safe(source)}: {what} in this file")
    return 0
