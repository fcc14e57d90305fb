"""The command line builds a command (its options, the checks of their values) only when that
command is run or its help shown (issue #36, start-up): `mcp-inspect --help` lists every command
with its summary and builds none, and both list the same commands as the whole app (`app`, for the
docs and tests). Option values a command reads without pydantic (`inspector/cli/values.py`) are
what Typer's pydantic adapter makes of them, and a bad one gets the adapter's own error.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import typer
import typer.main
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param, resolve_type_descriptor
from typer.core import TyperCommand, TyperOption
from typer.models import OptionInfo
from typer.testing import CliRunner

from inspector.cli import app, root_group
from inspector.cli.values import PlainValue, plain_values


def _run(group: typer.core.TyperGroup, *args: str) -> str:
    with CliRunner().isolation(env={"COLUMNS": "80"}) as (out, _err, _output):
        with pytest.raises(SystemExit) as done:
            group.main(list(args), prog_name="mcp-inspect")
        sys.stdout.flush()
        assert done.value.code in (0, None)
        return out.getvalue().decode()


def test_help_lists_every_command_and_builds_none() -> None:
    group = root_group()
    shown = _run(group, "--help")
    assert group.commands == {}
    whole = typer.main.get_command(app)
    assert group.list_commands(Context(group)) == list(whole.commands)  # type: ignore[attr-defined]
    for name in whole.commands:  # type: ignore[attr-defined]
        assert f"\n  {name} " in shown


def test_a_command_is_built_when_its_help_is_shown() -> None:
    group = root_group()
    shown = _run(group, "sessions", "--help")
    assert "--limit" in shown
    assert list(group.commands) == ["sessions"]


def _option(annotation: Any) -> TyperOption:
    desc = resolve_type_descriptor(annotation, OptionInfo())
    option = TyperOption(param_decls=["--x"], type_descriptor=desc, multiple=annotation == list[str])
    return option


def _read(reader: Any, option: TyperOption, value: Any) -> Any:
    try:
        return ("ok", reader.coerce(value, param=option, ctx=None))
    except BadParameter as exc:
        return ("error", exc.message)


@pytest.mark.parametrize(
    ("annotation", "values"),
    [
        (str, ["abc", "", " 5 ", "ü", None]),
        (int, ["5", "0", "007", "-3", " 5", "1_000", "1e3", "5.0", "x", "99999999999999999999", 7, None]),
        (float, ["1.5", "30", "0.1", "-1", "1e3", ".5", "1.", "inf", "nan", "x", 30, 2.5, None]),
        (bool, [True, False, None]),
        (list[str], [("a", "b"), [], ("",), None]),
    ],
)
def test_plain_values_are_what_the_pydantic_adapter_makes_of_them(annotation: Any, values: list[Any]) -> None:
    option = _option(annotation)
    desc = option.type_descriptor
    plain = PlainValue(parameter_info=desc.parameter_info, annotation=desc.annotation)
    adapter = build_runtime_param(desc)
    for value in values:
        got, want = _read(plain, option, value), _read(adapter, option, value)
        assert repr(got) == repr(want) and type(got[1]) is type(want[1]), (value, got, want)


def test_plain_values_cover_the_plain_options_only() -> None:
    command = plain_values(typer.main.get_group(app).commands["sessions"])
    assert isinstance(command, TyperCommand)
    readers = {p.name: type(p._runtime_param).__name__ for p in command.params if isinstance(p, TyperOption)}
    assert readers["limit"] == "PlainValue" and readers["db"] == "PlainValue"
