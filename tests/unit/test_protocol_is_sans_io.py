"""Guard: nothing under inspector/protocol/ imports an IO library (DESIGN.md, principle 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import inspector.protocol

PROTOCOL_DIR = Path(inspector.protocol.__file__).parent

FORBIDDEN = frozenset(
    {
        "socket",
        "subprocess",
        "os",
        "asyncio",
        "anyio",
        "threading",
        "sqlite3",
        "sqlalchemy",
        "sqlmodel",
        "httpx",
        "time",
        "select",
        "selectors",
        "io",
        "pathlib",
        "signal",
        "urllib",
        "http",
    }
)


def imported_modules(source: str) -> set[str]:
    """Absolute module names a source file imports, wherever the import statement sits."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            names.add(node.args[0].value)
    return names


# Pure modules of forbidden packages: URL parsing does no IO.
ALLOWED = frozenset({"urllib.parse"})


def forbidden_imports(source: str) -> set[str]:
    return {
        name for name in imported_modules(source) if name.split(".")[0] in FORBIDDEN and name not in ALLOWED
    }


PROTOCOL_FILES = sorted(PROTOCOL_DIR.rglob("*.py"))


def test_protocol_package_has_the_expected_modules() -> None:
    names = {p.name for p in PROTOCOL_FILES}
    assert {"__init__.py", "framing.py", "jsonrpc.py", "correlate.py", "versions.py"} <= names


@pytest.mark.parametrize("path", PROTOCOL_FILES, ids=lambda p: p.relative_to(PROTOCOL_DIR).as_posix())
def test_module_imports_no_io_library(path: Path) -> None:
    assert forbidden_imports(path.read_text(encoding="utf-8")) == set()


@pytest.mark.parametrize("path", PROTOCOL_FILES, ids=lambda p: p.relative_to(PROTOCOL_DIR).as_posix())
def test_module_imports_only_protocol_siblings_from_inspector(path: Path) -> None:
    # capture/, store/, transports/ do IO; the core must not reach into them. `inspector.flow`
    # (the Flow and its row meta types) is below the protocol core: it imports nothing of the
    # inspector and does no IO (`test_flow_imports_nothing_of_the_inspector`).
    inspector_imports = {
        n for n in imported_modules(path.read_text(encoding="utf-8")) if n.split(".")[0] == "inspector"
    }
    assert {n for n in inspector_imports if not n.startswith("inspector.protocol")} - {
        "inspector.flow"
    } == set()


def test_flow_imports_nothing_of_the_inspector() -> None:
    flow = PROTOCOL_DIR.parent / "flow.py"
    imported = imported_modules(flow.read_text(encoding="utf-8"))
    assert {n for n in imported if n.split(".")[0] == "inspector"} == set()
    assert forbidden_imports(flow.read_text(encoding="utf-8")) == set()


@pytest.mark.parametrize(
    "source",
    [
        "import os",
        "import os.path",
        "from os import path",
        "import asyncio as aio",
        "from sqlalchemy.orm import Session",
        "from http.client import HTTPConnection",
        "import urllib.request",
        "def f():\n    import subprocess\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pathlib import Path\n",
        "try:\n    import anyio\nexcept ImportError:\n    pass\n",
        "x = __import__('socket')",
        "import importlib\nm = importlib.import_module('time')",
        "import json, threading",
    ],
)
def test_guard_detects_io_imports(source: str) -> None:
    assert forbidden_imports(source) != set()


@pytest.mark.parametrize(
    "source",
    [
        "import json",
        "from dataclasses import dataclass",
        "import orjson",
        "from . import framing",
        "from .io import x",  # a relative module that happens to be called io is ours
        "import osmosis",
        "import timeit_like",
        "from httpcore_like import y",
        "from urllib.parse import urlsplit",
    ],
)
def test_guard_allows_pure_imports(source: str) -> None:
    assert forbidden_imports(source) == set()
