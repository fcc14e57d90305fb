"""Reading a scenario file (YAML or JSON) with clear errors, and the built-in default scenario."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from inspector.errors import InspectorError
from inspector.scenario.models import Scenario

__all__ = ["DEFAULT_SCENARIO", "ScenarioError", "load_scenario", "parse_scenario", "scenario_schema"]

DEFAULT_SCENARIO = "default.yaml"


class ScenarioError(InspectorError):
    """A scenario file that cannot be read or does not follow the format."""


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def parse_scenario(text: str, source: str) -> Scenario:
    """A scenario from YAML or JSON text (JSON is YAML); errors name `source` and the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{source}: not valid YAML/JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: a scenario is a mapping (YAML) or an object (JSON)")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: {exc.error_count()} problem(s) in the scenario:"]
        for err in exc.errors():
            lines.append(f"  {_where(tuple(err['loc']))}: {err['msg']}")
        raise ScenarioError("\n".join(lines)) from None


def load_scenario(path: str | Path | None) -> Scenario:
    """The scenario in `path`, or the built-in default one for None."""
    if path is None:
        text = resources.files("inspector.scenario").joinpath(DEFAULT_SCENARIO).read_text("utf-8")
        return parse_scenario(text, f"built-in {DEFAULT_SCENARIO}")
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as exc:
        raise ScenarioError(f"{p}: cannot read the scenario: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{p}: the scenario is not UTF-8 text") from None
    return parse_scenario(text, str(p))


def scenario_schema() -> str:
    """The JSON Schema of the scenario format, as written to `inspector/scenario/schema.json`."""
    schema = Scenario.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "mcp-inspect serve scenario"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    Path(__file__).with_name("schema.json").write_text(scenario_schema())
