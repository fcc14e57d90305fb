"""Scenarios: mock MCP servers described in a file, served by `mcp-inspect serve`."""

from inspector.scenario.load import ScenarioError, load_scenario, parse_scenario, scenario_schema
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
