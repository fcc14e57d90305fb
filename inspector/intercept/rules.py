"""Intercept rules and rule files: what to do with the messages a `Match` selects.

A rules file (YAML or JSON) is a mapping:

    seed: 42                  # optional: repeat a run's random choices
    pause_timeout_s: 30       # a breakpoint left alone this long ...
    pause_default: forward    # ... gets this action (forward or drop)
    rules:
      - name: slow-tools
        match: {direction: c2s, method: tools/call}
        action: delay
        ms: 500
        jitter_ms: 100
      - name: flaky
        match: {method: "tools/*", kind: response}
        action: drop
        probability: 0.2

or just the list of rules. Each action takes its own parameters (`ms` for
delay, `result`/`error` for replace, ...); a parameter another action takes
is an error, so a typo never silently does nothing. `load_rules` names the
file, the rule and the field of anything wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from inspector.errors import RulesError
from inspector.intercept.match import Match

__all__ = [
    "ACTIONS",
    "HTTP_ONLY_ACTIONS",
    "ErrorSpec",
    "Rule",
    "RuleSet",
    "check_transport",
    "load_rules",
    "parse_rules",
]

Action = Literal[
    "pause",
    "delay",
    "drop",
    "duplicate",
    "reorder",
    "corrupt",
    "truncate",
    "replace",
    "disconnect",
    "http_error",
    "drip",
    "close_stream",
]
ACTIONS: tuple[str, ...] = Action.__args__  # type: ignore[attr-defined]
HTTP_ONLY_ACTIONS = frozenset({"http_error", "drip", "close_stream"})

# The parameters each action takes (any other parameter given is an error).
_PARAMS: dict[str, frozenset[str]] = {
    "pause": frozenset(),
    "delay": frozenset({"ms", "jitter_ms"}),
    "drop": frozenset(),
    "duplicate": frozenset({"times"}),
    "reorder": frozenset({"window", "ms", "order"}),
    "corrupt": frozenset({"bytes"}),
    "truncate": frozenset({"at", "keep_newline"}),
    "replace": frozenset({"result", "error"}),
    "disconnect": frozenset(),
    "http_error": frozenset({"status", "body", "headers"}),
    "drip": frozenset({"chunk", "interval_ms"}),
    "close_stream": frozenset({"events"}),
}
_ALL_PARAMS = frozenset().union(*_PARAMS.values())
_REQUIRED: dict[str, tuple[str, ...]] = {"delay": ("ms",), "truncate": ("at",), "http_error": ("status",)}


class ErrorSpec(BaseModel):
    """A JSON-RPC error object to answer with."""

    model_config = ConfigDict(extra="forbid")

    code: int
    message: str
    data: Any = None


class Rule(BaseModel):
    """One rule: a filter, an action and the action's parameters."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    match: Match = Field(default_factory=Match)
    action: Action
    enabled: bool = True
    probability: float = Field(default=1.0, ge=0.0, le=1.0)
    count: int | None = Field(default=None, ge=0)  # apply at most this many times
    after: int = Field(default=0, ge=0)  # let the first N matching messages pass

    # delay / reorder
    ms: float | None = Field(default=None, ge=0)
    jitter_ms: float = Field(default=0.0, ge=0)
    # duplicate
    times: int = Field(default=1, ge=1)
    # reorder
    window: int = Field(default=2, ge=2)
    order: Literal["reverse", "shuffle"] = "reverse"
    # corrupt
    bytes: int = Field(default=1, ge=1)
    # truncate: a byte count, or a fraction (0 < at < 1) of the message
    at: int | float | None = Field(default=None, ge=0)
    keep_newline: bool = False
    # replace
    result: Any = None
    error: ErrorSpec | None = None
    # http_error
    status: int | None = Field(default=None, ge=400, le=599)
    body: str | dict[str, Any] | list[Any] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # drip
    chunk: int = Field(default=16, ge=1)
    interval_ms: float = Field(default=100.0, ge=0)
    # close_stream
    events: int = Field(default=1, ge=0)

    @model_validator(mode="after")
    def _params_fit_action(self) -> Rule:
        allowed = _PARAMS[self.action]
        fields = type(self).model_fields
        # Another action's parameter at its default is no mistake: a rule's full model_dump()
        # (every field, defaults included) must validate again as the same rule.
        wrong = sorted(
            f
            for f in (self.model_fields_set & _ALL_PARAMS) - allowed
            if getattr(self, f) != fields[f].get_default(call_default_factory=True)
        )
        if wrong:
            takes = ", ".join(sorted(allowed)) or "no parameters"
            raise ValueError(
                f"field {wrong[0]}: action {self.action} does not take {', '.join(wrong)} (it takes {takes})"
            )
        for field in _REQUIRED.get(self.action, ()):
            if field not in self.model_fields_set:
                raise ValueError(f"field {field}: action {self.action} needs {field}")
        if self.action == "replace" and (self.result is None) == (self.error is None):
            raise ValueError("field result: action replace needs exactly one of result or error")
        if self.action == "truncate" and isinstance(self.at, float) and self.at >= 1:
            raise ValueError("field at: a byte count (an integer) or a fraction below 1, e.g. 0.5")
        return self

    def params(self) -> dict[str, Any]:
        """The action's parameters as given (for display)."""
        return {k: v for k, v in self.model_dump(mode="json").items() if k in _PARAMS[self.action]}


class RuleSet(BaseModel):
    """A rules file: the rules, the seed and what an unattended breakpoint does."""

    model_config = ConfigDict(extra="forbid")

    seed: int | None = None
    rules: list[Rule] = Field(default_factory=list)
    pause_timeout_s: float = Field(default=30.0, gt=0)
    pause_default: Literal["forward", "drop"] = "forward"

    @model_validator(mode="after")
    def _unique_names(self) -> RuleSet:
        seen: set[str] = set()
        for rule in self.rules:
            if rule.name in seen:
                raise ValueError(f"two rules are named {rule.name!r}: names must be unique")
            seen.add(rule.name)
        return self


def _where(loc: tuple[Any, ...], data: Any) -> str:
    """`rule 'slow' (rules[0]), field ms` from a pydantic error location."""
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        idx = loc[1]
        rules = data.get("rules") if isinstance(data, dict) else None
        raw = rules[idx] if isinstance(rules, list) and idx < len(rules) else None
        name = raw.get("name") if isinstance(raw, dict) else None
        label = f"rule {name!r} (rules[{idx}])" if isinstance(name, str) else f"rules[{idx}]"
        field = ".".join(str(p) for p in loc[2:])
        return f"{label}, field {field}" if field else label
    return f"field {'.'.join(str(p) for p in loc)}" if loc else "the file"


def parse_rules(data: Any, source: str = "rules") -> RuleSet:
    """A RuleSet from parsed YAML/JSON (a mapping, or a bare list of rules); RulesError names `source`."""
    if data is None:
        data = {}
    if isinstance(data, list):
        data = {"rules": data}
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a mapping with a 'rules' list (or a list of rules)")
    try:
        return RuleSet.model_validate(data)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
            msg = err["msg"].removeprefix("Value error, ")
            where = _where(loc, data)
            sep = ", " if msg.startswith("field ") and "field " not in where else ": "
            lines.append(f"{source}: {where}{sep}{msg}")
        raise RulesError("\n".join(lines)) from None


def load_rules(path: str | Path) -> RuleSet:
    """Read a rules file (YAML, or JSON by its .json suffix); RulesError says file, rule and field."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"{p}: cannot read the rules file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{p}: the rules file is not UTF-8 text") from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"{p}: not valid JSON at line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:  # yaml.YAMLError and its subclasses
        raise RulesError(f"{p}: not valid YAML: {exc}") from None
    return parse_rules(data, str(p))


def check_transport(ruleset: RuleSet, transport: str, source: str = "rules") -> None:
    """Reject rules whose action the transport cannot apply (HTTP-only actions on stdio)."""
    if transport == "stdio":
        for i, rule in enumerate(ruleset.rules):
            if rule.action in HTTP_ONLY_ACTIONS:
                raise RulesError(
                    f"{source}: rule {rule.name!r} (rules[{i}]), field action: "
                    f"{rule.action} applies to HTTP only (proxy), not to a stdio wrap"
                )
