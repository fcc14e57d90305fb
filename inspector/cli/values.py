"""Command-line values read without pydantic where they are plain.

Typer checks every value of a command through a pydantic `TypeAdapter` built for its parameter,
so any command given an option imported pydantic (about a third of `mcp-inspect sessions`). Most
of ours are plain: `bool`, `str`, `int` and `float` without bounds, and lists of `str`. `plain_values`
gives those parameters a reader (`PlainValue`) that returns what the adapter would for the values
it is sure of (a string for `str`, digits for `int`, a decimal for `float`) and hands anything
else to Typer's own adapter: a bad value gets the same error, worded by pydantic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from typer._coercion import RuntimeParam, build_runtime_param
from typer.core import _TyperParameter

if TYPE_CHECKING:
    from typer._click import Command

__all__ = ["PlainValue", "plain_values"]

_INT = re.compile(r"(?:0|[1-9][0-9]{0,17})")
_FLOAT = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?")
_NOT_PLAIN = object()


def _plain(annotation: Any, value: Any) -> Any:
    """`value` as the pydantic adapter of `annotation` reads it, or `_NOT_PLAIN` when unsure."""
    kind = type(value)
    if annotation is bool and kind is bool:
        return value
    if annotation is str and kind is str:
        return value
    if annotation is int and (kind is int or kind is str and _INT.fullmatch(value)):
        return int(value)
    if annotation is float and (kind in (float, int) or kind is str and _FLOAT.fullmatch(value)):
        return float(value)
    if annotation == list[str] and kind in (list, tuple) and all(type(v) is str for v in value):
        return list(value)
    return _NOT_PLAIN


def _is_plain(param: _TyperParameter) -> bool:
    info = param.type_descriptor.parameter_info
    if info.parser is not None or info.min is not None or info.max is not None:
        return False
    return param.type_descriptor.annotation in (bool, str, int, float) or (
        param.type_descriptor.annotation == list[str]
    )


@dataclass(frozen=True)
class PlainValue(RuntimeParam):
    """A plain parameter's reader: its value directly when sure, else Typer's (pydantic) adapter."""

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Any) -> Any:
        plain = _plain(self.annotation, value)
        if plain is not _NOT_PLAIN:
            return plain
        return build_runtime_param(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)


C = TypeVar("C", bound="Command")


def plain_values(command: C) -> C:
    """Give `command`'s plain parameters (and its sub-commands', for a group) a `PlainValue`: its
    options, arguments and `--help` (made here as Click would make it on first use)."""
    from typer._click import Context

    help_option = command.get_help_option(Context(command))
    for param in [*command.params, *([help_option] if help_option else [])]:
        if isinstance(param, _TyperParameter) and param._runtime_param is None and _is_plain(param):
            desc = param.type_descriptor
            param._runtime_param = PlainValue(parameter_info=desc.parameter_info, annotation=desc.annotation)
    for sub in getattr(command, "commands", {}).values():
        plain_values(sub)
    return command
