"""What a scenario offers, as MCP wire objects: lists, capabilities, lookups. No IO.

`Offer` holds the scenario's tools (a dict the UI may change while a client
is connected), resources, templates, prompts and completions, and answers
the questions the request handlers ask: which item does this request name,
what does a list look like, which values complete this argument.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.scenario.models import Completion, Prompt, Resource, ResourceTemplate, Scenario, Tool
from inspector.scenario.skills import SKILLS_EXTENSION, SkillSet

__all__ = ["APPS_EXTENSION", "Offer", "match_template", "offers_apps", "wire_tool"]

_WIRE_TOOL = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
_WIRE_RESOURCE = ("uri", "name", "title", "description", "mimeType")
_WIRE_TEMPLATE = ("uriTemplate", "name", "title", "description", "mimeType")
_WIRE_PROMPT = ("name", "title", "description", "arguments")


def _wire(model: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    data = model.model_dump(include=set(fields), exclude_none=True, by_alias=True)
    return {k: data[k] for k in fields if k in data}


APPS_EXTENSION = "io.modelcontextprotocol/ui"


def wire_tool(tool: Tool) -> dict[str, Any]:
    """A scenario tool as `tools/list` shows it."""
    return _with_meta(_wire(tool, _WIRE_TOOL), tool.meta)


def _with_meta(wire: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    return {**wire, "_meta": meta} if meta else wire


def offers_apps(scenario: Scenario) -> bool:
    """Whether the scenario serves an MCP App view (a ui:// resource or a tool naming one)."""
    return any(r.uri.startswith("ui://") for r in scenario.resources) or any(
        isinstance((t.meta or {}).get("ui"), dict) for t in scenario.tools
    )


def match_template(template: str, uri: str) -> dict[str, str] | None:
    """The variables of `uri` under an RFC 6570 level-1 template (`{x}` is one segment), or None."""
    pattern = ""
    for part in re.split(r"(\{[A-Za-z0-9_]+\})", template):
        if part.startswith("{") and part.endswith("}"):
            pattern += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            pattern += re.escape(part)
    found = re.fullmatch(pattern, uri)
    return found.groupdict() if found else None


class Offer:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.tools: dict[str, Tool] = {t.name: t for t in scenario.tools}
        self.resources: dict[str, Resource] = {r.uri: r for r in scenario.resources}
        self.prompts: dict[str, Prompt] = {p.name: p for p in scenario.prompts}
        self.skills = SkillSet(scenario.skills)

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {"logging": {}, "tools": {"listChanged": True}}
        if self.resources or self.scenario.resourceTemplates or self.scenario.skills:
            caps["resources"] = {"subscribe": True, "listChanged": True}
        if self.prompts:
            caps["prompts"] = {"listChanged": True}
        if self.scenario.completions:
            caps["completions"] = {}
        if offers_apps(self.scenario):
            caps["extensions"] = {APPS_EXTENSION: {}}
        if self.scenario.skills:  # skill files are served through resources/read
            caps.setdefault("extensions", {})[SKILLS_EXTENSION] = {"directoryRead": True}
        return caps

    def server_info(self) -> dict[str, Any]:
        return self.scenario.serverInfo.model_dump(exclude_none=True)

    def list_result(self, method: str) -> dict[str, Any] | None:
        if method == "tools/list":
            return {"tools": [wire_tool(t) for t in self.tools.values()]}
        if method == "resources/list":
            return {
                "resources": [_with_meta(_wire(r, _WIRE_RESOURCE), r.meta) for r in self.resources.values()]
                + self.skills.listed
            }
        if method == "resources/templates/list":
            return {"resourceTemplates": [_wire(t, _WIRE_TEMPLATE) for t in self.scenario.resourceTemplates]}
        if method == "prompts/list":
            return {"prompts": [_wire(p, _WIRE_PROMPT) for p in self.prompts.values()]}
        return None

    def resource(self, uri: str) -> tuple[Resource | ResourceTemplate | None, dict[str, str]]:
        """The resource (or the first template matching) `uri`, and the template's variables."""
        if uri in self.resources:
            return self.resources[uri], {}
        for template in self.scenario.resourceTemplates:
            variables = match_template(template.uriTemplate, uri)
            if variables is not None:
                return template, variables
        return None, {}

    def complete(self, params: dict[str, Any]) -> dict[str, Any]:
        ref = params.get("ref") or {}
        argument = params.get("argument") or {}
        typed = str(argument.get("value", ""))
        found: Completion | None = next(
            (
                c
                for c in self.scenario.completions
                if c.argument == argument.get("name")
                and c.ref.get("type") == ref.get("type")
                and all(ref.get(k) == v for k, v in c.ref.items())
            ),
            None,
        )
        values = [v for v in (found.values if found else []) if v.startswith(typed)]
        return {"completion": {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}}
