"""The mcp-inspect command line as the hosts' config files hold it: how a host starts mcp-inspect,
and whether an entry's command already runs `mcp-inspect ... wrap`. Read by `install`, the
gateway's own command line and `doctor`."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

__all__ = ["inspector_argv", "is_wrapped_command"]


def inspector_argv() -> list[str]:
    """How a host should start mcp-inspect: the installed script's absolute path, else this Python
    with `-m inspector`."""
    beside = Path(sys.executable).parent / ("mcp-inspect.exe" if os.name == "nt" else "mcp-inspect")
    found = str(beside) if beside.is_file() else shutil.which("mcp-inspect")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "inspector"]


def is_wrapped_command(argv: list[str]) -> bool:
    """Does this command line run `mcp-inspect ... wrap` (also through uvx/uv run/npx-style launchers)
    or `python -m inspector ... wrap`?"""
    for i, word in enumerate(argv):
        base = re.split(r"[\\/]", word)[-1].lower().removesuffix(".exe")
        if base == "mcp-inspect" or (word == "-m" and i + 1 < len(argv) and argv[i + 1] == "inspector"):
            return "wrap" in argv[i + 1 :]
    return False
