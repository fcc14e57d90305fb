"""The console script's start-up and the cyclic garbage collector (`inspector.entry.main` turns it off
before it imports the CLI; `start_up_over` turns it back on when the command's work begins).

Start-up (Typer, Rich, the command's module) allocates much and frees little: the collector, run
every 700 allocations, would be about a tenth of a read command's CPU. A module of its own, below
the CLI and the commands: `entry` (which imports the CLI), `cli` and the commands' bodies
(`mock.call`) all use it.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress

__all__ = ["console", "exit_now", "leave", "start_up_over", "starting_up"]

console = False  # `main` runs this process: its start-up's objects are frozen when it is over


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
    if not console or not gc.isenabled():
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
    if not console or any(not t.daemon for t in threading.enumerate() if t is not main_thread):
        return
    import atexit

    atexit._run_exitfuncs()
    exit_now(code)


def exit_now(code: int) -> None:
    """End the process with `code` now, what was written to stdout and stderr flushed (no teardown)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a reader gone (a closed pipe): nothing left to say it to
            stream.flush()
    os._exit(code)
