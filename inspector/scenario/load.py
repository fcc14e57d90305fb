"""Reading a scenario file (YAML or JSON) with clear errors, and the built-in default scenario."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from inspector.errors import ScenarioError
from inspector.scenario.models import Scenario

__all__ = ["BUNDLED_SCENARIOS", "DEFAULT_SCENARIO", "load_scenario", "parse_scenario", "scenario_schema"]

DEFAULT_SCENARIO = "default.yaml"
# Scenarios shipped with the package, chosen by name (`serve conformance`): `default` (one tool per
# feature) and `conformance` (the reference server for the official conformance suite). A path
# that exists wins over a name.
BUNDLED_SCENARIOS = ("default", "conformance")


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


# PyYAML quotes what it found (a character, a token, a tag, an alias name). A character or a
# token name says what is wrong; a longer word is the file's content, so it is left out.
_QUOTED = re.compile(r"'((?:\\.|[^'\\])*)'")


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The parser's problem and where it is, without the snippet of the file it normally quotes."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return "not valid YAML/JSON"
    parts = []
    for text, mark in ((exc.context, exc.context_mark), (exc.problem, exc.problem_mark)):
        if text:
            text = _QUOTED.sub(
                lambda m: m[0] if len(m[1]) <= 2 or re.fullmatch(r"<[a-z ]+>", m[1]) else "'…'", text
            )
            parts.append(f"{text}{f' (line {mark.line + 1}, column {mark.column + 1})' if mark else ''}")
    return "not valid YAML/JSON: " + "; ".join(parts)


def _node_at(root: yaml.Node | None, loc: tuple[Any, ...]) -> tuple[yaml.Node | None, bool]:
    """The YAML node a pydantic error's location points at (as deep as it goes), and whether it is the
    last key of `loc` itself (for an unknown field: its key node)."""
    node, key_node = root, None
    for part in loc:
        key_node = None
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if found is None:
                break
            key_node, node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
    return (key_node or node), key_node is not None


def _problem_line(err: Any, root: yaml.Node | None) -> str:
    loc = tuple(err["loc"])
    node, at_key = _node_at(root, loc)
    where = f"line {node.start_mark.line + 1}, column {node.start_mark.column + 1}: " if node else ""
    if err["type"] == "extra_forbidden":
        # The unknown key is the file's own text (a whole line of a file that is not a scenario): its
        # place is named, not its content.
        return f"{where}{_where(loc[:-1])}: a field that is not part of the scenario format"
    return f"{where}{_where(loc)}: {err['msg']}"


def parse_scenario(text: str, source: str) -> Scenario:
    """A scenario from YAML or JSON text (JSON is YAML); errors name `source`, the line and the field.

    Errors never quote the file: a path that is not a scenario (any text file) gets line and
    column numbers, not its lines.
    """
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{source}: {_yaml_problem(exc)}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: a scenario is a mapping (YAML) or an object (JSON)")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: {exc.error_count()} problem(s) in the scenario:"]
        lines += [f"  {_problem_line(err, root)}" for err in exc.errors()]
        raise ScenarioError("\n".join(lines)) from None


def load_scenario(path: str | Path | None) -> Scenario:
    """The scenario in `path`, a bundled one by name (`BUNDLED_SCENARIOS`), or the default for None."""
    if path is None or (str(path) in BUNDLED_SCENARIOS and not Path(path).exists()):
        file = f"{path or 'default'}.yaml"
        text = resources.files("inspector.scenario").joinpath(file).read_text("utf-8")
        return parse_scenario(text, f"built-in {file}")
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as exc:
        raise ScenarioError(f"{p}: cannot read the scenario: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{p}: the scenario is not UTF-8 text") from None
    return read_resource_files(parse_scenario(text, str(p)), p)


def read_resource_files(scenario: Scenario, path: Path) -> Scenario:
    """Resources with a `file`: its text read now (relative to the scenario file), so that a missing
    file is an error at start, not an empty answer later."""
    for res in scenario.resources:
        if res.file is None:
            continue
        where = (path.parent / res.file).resolve()
        try:
            res.text = where.read_text("utf-8")
        except OSError as exc:
            raise ScenarioError(
                f"{path}: resource {res.uri}: cannot read {where}: {exc.strerror or exc}"
            ) from None
        except UnicodeDecodeError:
            raise ScenarioError(f"{path}: resource {res.uri}: {where} is not UTF-8 text") from None
        res.file = None
    return scenario


def scenario_schema() -> str:
    """The JSON Schema of the scenario format, as written to `inspector/scenario/schema.json`."""
    schema = Scenario.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "mcp-inspect serve scenario"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    Path(__file__).with_name("schema.json").write_text(scenario_schema())
