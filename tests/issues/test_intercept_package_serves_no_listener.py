"""The intercept package is the sans-IO side of interception: no module of it serves a listener.

What was wrong (issue #35): `intercept/control.py`, inside the package whose core is sans-IO (match,
rules, engine), bound a socket through `transports/serve.py` and ran uvicorn and Starlette for the
control channel. Now the channel's IO is `inspector/control/` (listener, announcements, clients),
which imports nothing of `inspector.intercept`; what a request does to an interceptor stays in it
(`intercept/commands.py`, `engine.Commands`). Every import counts, a function's or one under
`TYPE_CHECKING` included (read with `ast`, as `tests/unit/test_layers.py` reads them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from tests.unit.test_layers import imports

ROOT = Path(inspector.__file__).parent
LISTENING = (
    "socket",
    "uvicorn",
    "starlette",
    "fastapi",
    "inspector.transports.serve",
    "inspector.control.server",
)
# The package's IO edges that start the channel (a process's composition), not serve it.
STARTERS = {"wrap.py", "proxy.py"}


@pytest.mark.parametrize("path", sorted((ROOT / "intercept").glob("*.py")), ids=lambda p: p.name)
def test_no_intercept_module_serves_a_listener(path: Path) -> None:
    allowed = ("inspector.control.server",) if path.name in STARTERS else ()
    named = {m for _, m in imports(path)}
    serving = {m for m in named if m.startswith(LISTENING) and not m.startswith(allowed)}
    assert serving == set(), f"{path.name} imports {sorted(serving)}"


@pytest.mark.parametrize("path", sorted((ROOT / "control").glob("*.py")), ids=lambda p: p.name)
def test_the_control_channel_imports_nothing_of_intercept(path: Path) -> None:
    named = {m for _, m in imports(path)}
    assert {m for m in named if m.startswith("inspector.intercept")} == set()
