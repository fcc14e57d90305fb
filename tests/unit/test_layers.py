"""Guard: the packages of inspector/ stand in layers (DESIGN.md, principles 4 and 7; issue #35).

Every module is parsed with `ast`: every import counts, wherever it sits (a function's, one
under `TYPE_CHECKING`). The nodes are the top-level packages and modules of inspector/
(`inspector/capture/`, `inspector/cli/`, ...). The rules:

- no circle between them: each stands above all that it imports;
- the transports import no feature package (principle 7: features are addons over them);
- the sans-IO cores open no sockets, processes or databases;
- every exception class is defined in `inspector/errors.py` (one tree).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import inspector

ROOT = Path(inspector.__file__).parent
MODULES = sorted(
    p for p in ROOT.rglob("*.py") if not {"static", "node_modules", "__pycache__"} & set(p.parts)
)

# Features and their hosts: the transports are below all of them and import none.
FEATURES = frozenset(
    {"intercept", "otel", "store", "lint", "replay", "mock", "api", "share", "apps", "scenario", "versions"}
)

# The sans-IO cores (the protocol package, the OAuth flow's and the interceptor's decisions).
SANS_IO = [ROOT / "protocol", ROOT / "flow.py"] + [
    ROOT / "intercept" / name for name in ("engine.py", "match.py", "rules.py", "commands.py", "__init__.py")
]
IO_LIBRARIES = frozenset(
    {
        "socket",
        "ssl",
        "subprocess",
        "asyncio",
        "anyio",
        "select",
        "selectors",
        "httpx",
        "httpcore",
        "h11",
        "uvicorn",
        "starlette",
        "fastapi",
        "sqlite3",
        "sqlalchemy",
        "sqlmodel",
        "psycopg",
    }
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def tree(path: Path) -> ast.Module:
    """A module of inspector/ parsed (once for every rule here: parsing them all is this file's cost)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def statements(module: ast.Module) -> list[ast.stmt]:
    """Every statement of a module, wherever it sits (a function's, a class's, one in an `if`, `try`,
    `with`, loop or `match` block), in source order: imports and class definitions are statements, so
    their walk skips the expressions that `ast.walk` visits too (most of a module's nodes)."""
    found: list[ast.stmt] = []
    pending: list[Any] = list(reversed(module.body))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        for field in ("cases", "handlers", "finalbody", "orelse", "body"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                pending.extend(reversed(children))
    return found


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import statement of a file, relative ones resolved; an
    `from inspector.x import name` whose name is a module counts as that module."""
    own = module_name(path)
    package = own.split(".") if path.name == "__init__.py" else own.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in statements(tree(path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [
                (node.lineno, f"{module}.{alias.name}")
                for alias in node.names
                if _is_module(f"{module}.{alias.name}")
            ]
    return found


@cache
def _is_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "inspector":
        return False
    path = ROOT.parent.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def node(module: str) -> str | None:
    """The top-level package or module of inspector/ a module belongs to (None: outside, or the root)."""
    parts = module.split(".")
    return (
        parts[1] if parts[0] == "inspector" and len(parts) > 1 and _is_module(".".join(parts[:2])) else None
    )


@cache
def edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) top-level nodes -> where: 'inspector/x/y.py:12 -> inspector.z.w'."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in MODULES:
        here = node(module_name(path))
        if here is None:
            continue
        for line, module in imports(path):
            there = node(module)
            if there is not None and there != here:
                found[(here, there)].append(f"{path.relative_to(ROOT.parent)}:{line} -> {module}")
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            here, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[here] = min(low[here], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[here])
            if low[here] == index[here]:
                part = []
                while True:
                    each = stack.pop()
                    on_stack.discard(each)
                    part.append(each)
                    if each == here:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_no_circle_between_packages() -> None:
    found = edges()
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in found:
        graph[a].add(b)
    parts = circles(graph)
    lines = []
    for part in parts:
        lines.append(" <-> ".join(part))
        lines += [
            f"  {a} -> {b}: {where}"
            for (a, b), wheres in sorted(found.items())
            if a in part and b in part
            for where in wheres
        ]
    assert parts == [], "import circles:\n" + "\n".join(lines)


def test_transports_import_no_feature() -> None:
    found = edges()
    wrong = [
        where
        for (a, b), wheres in sorted(found.items())
        if a == "transports" and b in FEATURES
        for where in wheres
    ]
    assert wrong == []


def _sans_io_files() -> list[Path]:
    return sorted(f for p in SANS_IO for f in (p.rglob("*.py") if p.is_dir() else [p]))


@pytest.mark.parametrize("path", _sans_io_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_sans_io_core_opens_nothing(path: Path) -> None:
    named = {module for _, module in imports(path)}
    assert {m for m in named if m.split(".")[0] in IO_LIBRARIES} == set()
    # nor an inspector module that does IO: only its own package and the pure helpers
    pure = (
        "inspector.protocol",
        "inspector.errors",
        "inspector.terminal_text",
        "inspector.flow",  # the Flow and its row meta types, itself checked here
        module_name(path).rsplit(".", 1)[0],
    )
    assert {m for m in named if m.startswith("inspector") and not m.startswith(pure)} == set()


def _exception_classes(trees: dict[Path, ast.Module]) -> list[tuple[Path, ast.ClassDef]]:
    """The classes deriving (by the names of their bases, transitively) from an exception."""
    classes = [
        (path, c) for path, tree in trees.items() for c in statements(tree) if isinstance(c, ast.ClassDef)
    ]
    found: set[str] = set()
    while True:
        more = {
            c.name
            for _, c in classes
            if any(
                name in found or name.endswith(("Error", "Exception", "Warning"))
                for name in (
                    base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in c.bases
                )
            )
        }
        if more <= found:
            return [(path, c) for path, c in classes if c.name in found]
        found |= more


def test_exceptions_live_in_errors() -> None:
    trees = {path: tree(path) for path in MODULES}
    outside = [
        f"{path.relative_to(ROOT.parent)}:{cls.lineno} {cls.name}"
        for path, cls in _exception_classes(trees)
        if path != ROOT / "errors.py"
    ]
    assert outside == []
    names = [cls.name for path, cls in _exception_classes(trees) if path == ROOT / "errors.py"]
    assert len(names) == len(set(names))  # one class per name
    assert all(
        name in (ROOT / "errors.py").read_text(encoding="utf-8").split('"""')[1] for name in names
    )  # drawn


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_circles_are_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(graph) == expected


def test_every_import_is_read() -> None:
    # a function's import and one under TYPE_CHECKING count like the module's own
    sample = ROOT / "capture" / "redact.py"
    assert "inspector.settings" in {m for _, m in imports(sample)}  # imported inside `file_settings`
