"""The `mcp-inspect` console script: `wrap` on a fast path, every other command through the Typer CLI.

An MCP client starts `mcp-inspect wrap -- SERVER` each time it connects, and
waits for the server's first answer: importing Typer, Rich and the CLI module
costs about 150 ms before anything is forwarded. So when the first argument
is `wrap` and `wrap.parse_wrap_args` reads the rest, the wrap runs
without them; anything else (`--help`, a typo) goes to `cli.main`, which
answers as it always did.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress

__all__ = ["leave", "main", "start_up_over", "starting_up"]

_console = False  # `main` runs this process: its start-up's objects are frozen when it is over


def start_up_over() -> None:
    """The command's work begins: what start-up made is frozen (never scanned again) and the cyclic
    garbage collector, off since `main`, turned on (`cli.LazyGroup.invoke`)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


@contextmanager
def starting_up() -> Iterator[None]:
    """Start-up a command does first in its own body (`call`: the mock client, asyncio), done as the
    console script's: with the collector off, what it made frozen after. Only in the console script's
    process: an in-process caller of the CLI (the tests) keeps its collector as it was."""
    if not _console or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        start_up_over()


def leave(code: int) -> None:
    """A command whose work is done (`call`: its session recorded, its store closed) ends the console
    script's process with `code` at once: the exit handlers run and the output is flushed, the
    interpreter's teardown (freeing every module's objects, ~20 ms of a call's wall time) is skipped.
    Returns (the caller exits as usual) in an in-process caller of the CLI, or while a thread the
    interpreter would wait for still runs (its work would be cut short)."""
    import threading

    main_thread = threading.main_thread()
    if not _console or any(not t.daemon for t in threading.enumerate() if t is not main_thread):
        return
    import atexit

    atexit._run_exitfuncs()
    _exit(code)


def _exit(code: int) -> None:
    """End the process with `code` now, what was written to stdout and stderr flushed."""
    import os

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a reader gone (a closed pipe): nothing left to say it to
            stream.flush()
    os._exit(code)


def main() -> None:
    """Console-script entry (`mcp-inspect`, `python -m inspector`)."""
    if sys.argv[1:2] == ["wrap"]:
        from inspector.wrap import parse_wrap_args, run_wrap

        opts = parse_wrap_args(sys.argv[2:])
        if opts is not None:
            from inspector.errors import InspectorError

            try:
                code = run_wrap(opts)
            except InspectorError as exc:
                from inspector.command_setup import print_error

                print_error(exc)
                sys.exit(2)
            if opts.handed_off:
                # A finishing process records the session: leave with the server, skipping the
                # interpreter's teardown (it waited for the store thread's imports, issue #34).
                _exit(code)
            sys.exit(code)
    # Start-up (Typer, Rich, the command's module) allocates much and frees little: the cyclic garbage
    # collector, run every 700 allocations, is about a tenth of a read command's CPU. It stays off
    # until the command runs (`cli.LazyGroup.invoke` turns it back on; `--help` never needs it).
    global _console
    _console = True
    gc.disable()
    from inspector.cli import main as cli_main

    cli_main()
