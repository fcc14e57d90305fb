"""Scenarios: mock MCP servers described in a file, served by `mcp-inspect serve`."""

from inspector.errors import ScenarioError
from inspector.scenario.load import load_scenario, parse_scenario, scenario_schema
from inspector.scenario.models import Scenario
from inspector.scenario.script import ScenarioScript

__all__ = [
    "Scenario",
    "ScenarioError",
    "ScenarioScript",
    "load_scenario",
    "parse_scenario",
    "scenario_schema",
]
