"""Guard: the OAuth core (inspector/auth/ but runner, connect, callback, store) does no IO.

The flow yields requests and is sent responses; only `runner` (httpx), `connect`
(runs the runner beside a transport, anyio), `callback` (the listener), `store`
(the file), `guided` (the UI's step-by-step driver, over the runner) and `ui_callback` (the
UI's pending authorizations, anyio events) touch the outside. `tokens` reads the clock
(`time`) to turn `expires_in` into a time, which is allowed here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector.auth
from tests.unit.test_protocol_is_sans_io import forbidden_imports, imported_modules

AUTH_DIR = Path(inspector.auth.__file__).parent
IO_MODULES = {"runner.py", "connect.py", "callback.py", "store.py", "guided.py", "ui_callback.py"}
CORE = sorted(p for p in AUTH_DIR.glob("*.py") if p.name not in IO_MODULES)


def test_core_modules_are_there() -> None:
    assert {"discovery.py", "flow.py", "pkce.py", "registration.py", "tokens.py", "steps.py"} <= {
        p.name for p in CORE
    }


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_module_imports_no_io_library(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert forbidden_imports(source) - {"time"} == set()
    # nor the IO parts of the package itself
    assert not {
        n for n in imported_modules(source) if n.rsplit(".", 1)[-1] in {"runner", "callback", "store"}
    }
