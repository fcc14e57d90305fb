"""The console script's start-up and the cyclic garbage collector (`inspector.entry.main` turns it off
before it imports the CLI; `start_up_over` turns it back on when the command's work begins).

Start-up (Typer, Rich, the command's module) allocates much and frees little: the collector, run
every 700 allocations, would be about a tenth of a read command's CPU. A module of its own, below
the CLI and the commands: `entry` (which imports the CLI), `cli` and the commands' bodies
(`mock.call`) all use it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["console", "start_up_over", "starting_up"]

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
