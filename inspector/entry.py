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

from inspector import start_up

__all__ = ["main"]


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
                start_up.exit_now(code)
            sys.exit(code)
    # Start-up (Typer, Rich, the command's module) allocates much and frees little: the cyclic garbage
    # collector, run every 700 allocations, is about a tenth of a read command's CPU. It stays off
    # until the command runs (`cli.LazyGroup.invoke` turns it back on; `--help` never needs it).
    start_up.console = True
    gc.disable()
    from inspector.cli import main as cli_main

    cli_main()
