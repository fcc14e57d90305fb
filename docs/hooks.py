"""mkdocs hook: the reference pages generated from the code, never checked in.

- `reference/cli.md` from the Typer app (`inspector.cli.app`, Click underneath);
- `reference/config.md` from the settings models (`inspector.settings`) and the gateway's
  (`inspector.gateway_config`);
- `reference/api.md` from the API's OpenAPI schema, `web/src/api/openapi.json` (written by
  `python -m inspector.api.openapi_export`; a test fails when it is stale).

mkdocs.yml names this file under `hooks:`; `on_files` adds the pages before the build reads them,
so `mkdocs build --strict` checks their links like any other page.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
OPENAPI = ROOT / "web" / "src" / "api" / "openapi.json"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, render in (
        ("reference/cli.md", cli_page),
        ("reference/config.md", config_page),
        ("reference/api.md", api_page),
    ):
        files.append(File.generated(config, path, content=render()))
    return files


# --- CLI ------------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _is_argument(param: Any) -> bool:
    return bool(param.param_type_name == "argument")


def _param_line(param: Any, ctx: Any) -> str:
    """One option or argument as `--help` shows it (Typer's own help record: names, metavar,
    help text with its default)."""
    record = param.get_help_record(ctx)
    if record is None:
        return ""
    names, text = record
    return f"- `{_cell(names)}`: {_cell(text)}".rstrip(": ")


def _command_section(cmd: Any, path: list[str], ctx: Any, out: list[str]) -> None:
    level = "#" * min(len(path), 4)
    out.append(f"{level} {' '.join(path)}\n")
    sub = cmd.make_context(path[-1], [], parent=ctx, resilient_parsing=True)
    usage = " ".join(cmd.collect_usage_pieces(sub))
    out.append(f"```\n{' '.join(path)} {usage}\n```\n")
    if cmd.help:
        out.append(cmd.help.replace("\b\n", "").strip() + "\n")
    params = [p for p in cmd.params if not getattr(p, "hidden", False) and p.name != "help"]
    arguments = [p for p in params if _is_argument(p)]
    options = [p for p in params if not _is_argument(p)]
    if arguments:
        out.append("**Arguments**\n")
        out.extend(line for p in arguments if (line := _param_line(p, sub)))
        out.append("")
    if options:
        out.append("**Options**\n")
        out.extend(line for p in options if (line := _param_line(p, sub)))
        out.append("")
    if hasattr(cmd, "commands"):  # a group (Typer's own copy of Click's)
        for name, child in cmd.commands.items():
            if not getattr(child, "hidden", False):
                _command_section(child, [*path, name], sub, out)


def cli_page() -> str:
    import typer

    from inspector.cli import app

    group = typer.main.get_command(app)
    ctx = group.make_context("mcp-inspect", [], resilient_parsing=True)
    out = [
        "# Command line\n",
        "Generated from the Typer app (`inspector/cli/`) when the site is built: the same text as "
        "`mcp-inspect COMMAND --help`.\n",
        (group.help or "") + "\n",
    ]
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        if not getattr(cmd, "hidden", False):
            _command_section(cmd, ["mcp-inspect", name], ctx, out)
    return "\n".join(out) + "\n"


# --- Config file ----------------------------------------------------------------------------------


def _type_name(annotation: Any) -> str:
    text = str(annotation)
    if getattr(annotation, "__metadata__", None):  # Annotated[int, BeforeValidator(parse_size)]
        base = typing.get_args(annotation)[0]
        names = " ".join(str(m) for m in annotation.__metadata__)
        if "parse_size" in names:
            return "size (`4KiB`, `200MB`, bytes)"
        if "parse_duration" in names:
            return "duration (`30d`, `12h`, seconds)"
        return _type_name(base)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return " or ".join(_type_name(a) for a in parts)
    if origin is typing.Literal:
        return " \\| ".join(f'`"{a}"`' for a in typing.get_args(annotation))
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        return "table"
    if isinstance(annotation, type):
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(
            annotation.__name__, f"`{annotation.__name__}`"
        )
    return f"`{text}`"


def template_comments(doc: str) -> dict[str, str]:
    """The comments of the commented TOML template in a module's docstring, by dotted key
    (`retention.max_age`, `servers[].match`, `route[].name`): the one place that says what a key
    means is the code's own template."""
    notes: dict[str, str] = {}
    section = ""
    for line in doc.splitlines():
        text = line.strip()
        table = re.match(r"^\[\[?([a-z_]+)\]\]?", text)
        if table:
            name = table.group(1)
            section = f"{name}[]." if text.startswith("[[") else f"{name}."
            continue
        match = re.match(r"^([a-z_]+)\s*=.*?#\s*(.+)$", text)
        if match and line.startswith("    "):
            notes[section + match.group(1)] = match.group(2).strip()
    return notes


def _field_infos(model: Any) -> list[tuple[str, Any, list[Any], bool, Any, str | None]]:
    """(name, annotation, its metadata, required, default, description) of each field of a pydantic
    model (`gateway_config`) or a dataclass (`settings`)."""
    import dataclasses

    if dataclasses.is_dataclass(model):
        hints = typing.get_type_hints(model, include_extras=True)
        rows: list[tuple[str, Any, list[Any], bool, Any, str | None]] = []
        for f in dataclasses.fields(model):
            annotation, metadata = hints[f.name], []
            if typing.get_origin(annotation) is typing.Annotated:
                annotation, *metadata = typing.get_args(annotation)
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            rows.append((f.name, annotation, metadata, required, default, None))
        return rows
    from pydantic_core import PydanticUndefined

    return [
        (
            name,
            info.annotation,
            info.metadata,
            info.default is PydanticUndefined and info.default_factory is None,
            info.get_default(call_default_factory=True),
            info.description,
        )
        for name, info in model.model_fields.items()
    ]


def _fields(model: Any, prefix: str, env: dict[str, str], out: list[str], notes: dict[str, str]) -> None:
    import dataclasses

    from pydantic import BaseModel

    for name, annotation, metadata, required, default, description in _field_infos(model):
        key = f"{prefix}{name}"
        if isinstance(annotation, type) and (
            issubclass(annotation, BaseModel) or dataclasses.is_dataclass(annotation)
        ):
            continue  # a table of its own
        shown = "required" if required else (f"`{json.dumps(default)}`" if default is not None else "none")
        variable = f"`{env[key]}`" if key in env else ""
        description = _cell(description or notes.get(key, ""))
        kind = _type_name(annotation)
        marks = " ".join(str(m) for m in metadata)
        if "parse_size" in marks:
            kind = "size (`4KiB`, `200MB`, bytes)"
        elif "parse_duration" in marks:
            kind = "duration (`30d`, `12h`, seconds)"
        out.append(f"| `{key}` | {kind} | {shown} | {variable} | {description} |")


def _table(
    title: str,
    doc: str | None,
    model: Any,
    prefix: str,
    env: dict[str, str],
    out: list[str],
    notes: dict[str, str],
) -> None:
    out.append(f"## {title}\n")
    if doc:
        out.append(" ".join(doc.split()) + "\n")
    out.append("| key | type | default | variable | |")
    out.append("|---|---|---|---|---|")
    _fields(model, prefix, env, out, notes)
    out.append("")


def config_page() -> str:
    from inspector import gateway_config, settings
    from inspector.gateway_config import GatewayConfig, RouteConfig

    out = [
        "# Config file keys\n",
        "Generated from the models that read the files (`inspector/settings.py`, "
        "`inspector/gateway_config.py`) when the site is built. How the settings are used: "
        "[Always on](../how-to/always-on.md).\n",
        "## The inspector's config file\n",
        "TOML: `$MCP_INSPECTOR_CONFIG`, else `config.toml` in the user's config directory "
        "(`mcp-inspect config path` prints it; `mcp-inspect config init` writes a commented "
        "template). A value comes from, lowest first: the default, the file, the environment "
        "variable, a command's flag; redaction names add up instead. An unknown key is an error "
        "naming the file and the key.\n",
    ]
    env = settings.ENV
    notes = template_comments(settings.__doc__ or "")
    notes.setdefault("servers", "per-server rules, the first match wins: `[[servers]]` below")
    out.append("| key | type | default | variable | |")
    out.append("|---|---|---|---|---|")
    _fields(settings.Settings, "", env, out, notes)
    out.append("")
    _table("`[retention]`", settings.Retention.__doc__, settings.Retention, "retention.", env, out, notes)
    _table("`[storage]`", settings.Storage.__doc__, settings.Storage, "storage.", env, out, notes)
    _table("`[[servers]]`", settings.ServerRule.__doc__, settings.ServerRule, "servers[].", env, out, notes)
    out.append(
        "## Gateway file (`proxy --config`)\n\n"
        "TOML, read with `tomllib`; see [One gateway for several servers]"
        "(../how-to/record-http.md#one-gateway-for-several-servers-proxy-config).\n"
    )
    gateway_notes = template_comments(gateway_config.__doc__ or "")
    gateway_notes.setdefault("route", "the routes: `[[route]]` below")
    out.append("| key | type | default | variable | |")
    out.append("|---|---|---|---|---|")
    _fields(GatewayConfig, "", {}, out, gateway_notes)
    out.append("")
    _table("`[[route]]`", RouteConfig.__doc__, RouteConfig, "route[].", {}, out, gateway_notes)
    return "\n".join(out) + "\n"


# --- HTTP API -------------------------------------------------------------------------------------


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#schema-{name.lower()})"
    if "anyOf" in schema:
        return " or ".join(_schema_type(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    return str(kind or "any")


def api_page() -> str:
    doc = json.loads(OPENAPI.read_text(encoding="utf-8"))
    out = [
        "# HTTP API\n",
        "Generated from the API's OpenAPI schema (`web/src/api/openapi.json`, written by "
        "`python -m inspector.api.openapi_export`) when the site is built. A running "
        "`mcp-inspect ui` serves the same as `/api/openapi.json` and an interactive page at `/docs`.\n",
        doc["info"].get("description", "") + "\n",
    ]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            tag = (op.get("tags") or ["other"])[0]
            by_tag.setdefault(tag, []).append((path, method, op))
    for tag in sorted(by_tag):
        out.append(f"## {tag}\n")
        for path, method, op in by_tag[tag]:
            out.append(f"### `{method.upper()} {path}`\n")
            summary = op.get("summary", "")
            if summary:
                out.append(summary + "\n")
            if op.get("description"):
                out.append(op["description"].strip() + "\n")
            params = op.get("parameters", [])
            if params:
                out.append("| parameter | in | type | |")
                out.append("|---|---|---|---|")
                for p in params:
                    required = " (required)" if p.get("required") else ""
                    out.append(
                        f"| `{p['name']}`{required} | {p['in']} | {_schema_type(p.get('schema', {}))} | "
                        f"{_cell(p.get('description', ''))} |"
                    )
                out.append("")
            body = op.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                out.append(f"Body ({media}): {_schema_type(content.get('schema', {}))}\n")
            answers = []
            for status, response in op.get("responses", {}).items():
                if status == "422":
                    continue
                content = response.get("content", {})
                schema = next(iter(content.values()), {}).get("schema") if content else None
                kind = f": {_schema_type(schema)}" if schema else ""
                answers.append(f"- {status} {_cell(response.get('description', ''))}{kind}")
            if answers:
                out.append("Answers:\n")
                out.extend(answers)
                out.append("")
    out.append("## Schemas\n")
    for name, schema in sorted(doc["components"]["schemas"].items()):
        out.append(f"### {name} {{#schema-{name.lower()}}}\n")
        if schema.get("description"):
            out.append(" ".join(schema["description"].split()) + "\n")
        props = schema.get("properties", {})
        if props:
            required = set(schema.get("required", []))
            out.append("| field | type | |")
            out.append("|---|---|---|")
            for prop, spec in props.items():
                mark = " (required)" if prop in required else ""
                out.append(
                    f"| `{prop}`{mark} | {_schema_type(spec)} | {_cell(spec.get('description', ''))} |"
                )
            out.append("")
        elif "enum" in schema:
            out.append(_schema_type(schema) + "\n")
    return "\n".join(out) + "\n"
