"""Command help that reads well at any terminal width.

Typer keeps the single line breaks inside a docstring's later paragraphs, so
text wrapped in the source at its own width came out in `--help` as ragged
lines (a full line, then three words, then a full line). `unwrap_commands`
gives each command a help text whose paragraphs are single lines; Rich then
wraps them to the terminal. Blank lines still separate paragraphs, and lines
that start with "- " or an indent (lists, examples) keep their own line.

`render_help_later` keeps Typer's help renderer from importing a Markdown parser and a traceback
renderer that no help text of ours uses (`mcp-inspect --help` in about half the time).
"""

from __future__ import annotations

import importlib.machinery
import inspect
import sys
from importlib import import_module
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

import typer

__all__ = ["render_help_later", "unwrap", "unwrap_commands"]


def unwrap(text: str) -> str:
    """`text` with the line breaks inside each paragraph replaced by spaces."""
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines: list[str] = []
        for line in paragraph.split("\n"):
            if lines and not line.startswith(("- ", " ", "\b")) and not lines[-1].startswith("\b"):
                lines[-1] = f"{lines[-1]} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def unwrap_commands(app: typer.Typer) -> None:
    """Give every command of `app` its docstring (or help) unwrapped; call once all are registered."""
    for info in app.registered_commands:
        text = info.help if info.help is not None else inspect.getdoc(info.callback)
        if text:
            info.help = unwrap(text)


class _Deferred(type):
    """A class standing for `module.name` (its `_real`) until used: calling it or reading one of
    its attributes imports the real one and passes the call on."""

    _module: str

    def _real(cls) -> Any:
        return getattr(import_module(cls._module), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, attr: str) -> Any:
        return getattr(cls._real(), attr)


# What typer.rich_utils imports at its top and uses only for Markdown help text (`rich_markup_mode=
# "markdown"`, which ours is not) and for pretty tracebacks (turned off): about half of its import.
_DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


class _RenderHelpLater:
    """Imports `typer.rich_utils` (Typer's renderer of help and usage errors) with stand-ins for
    rich.markdown and rich.traceback (`_Deferred`, the same classes once used): Markdown's parser
    (markdown_it) and Pygments load only if a help text is Markdown or a traceback is pretty."""

    NAME = "typer.rich_utils"

    def __init__(self) -> None:
        self.loader: Any = None

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if fullname != self.NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        self.loader, spec.loader = spec.loader, self  # type: ignore[assignment]  # a Loader in all but name
        return spec

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        placed = [name for name in _DEFERRED if name not in sys.modules]
        for name in placed:
            stand_in = ModuleType(name)
            setattr(stand_in, _DEFERRED[name], _Deferred(_DEFERRED[name], (), {"_module": name}))
            sys.modules[name] = stand_in
        try:
            self.loader.exec_module(module)
        finally:
            for name in placed:  # a later `import rich.markdown` loads the real module
                del sys.modules[name]


def render_help_later() -> None:
    """Have `typer.rich_utils`, when first imported, skip Markdown's parser and the traceback
    renderer (`_RenderHelpLater`). For `mcp-inspect --help` and each command's help: the same
    text, without the imports no help of ours uses."""
    if "typer.rich_utils" in sys.modules or any(isinstance(f, _RenderHelpLater) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _RenderHelpLater())
