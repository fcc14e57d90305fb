"""`{{ path }}` placeholders in scenario answers. No IO, no code execution.

A placeholder names a dotted path into the context (`arguments.city`,
`answers.0.content.text`, `variables.id`); list items by index. A string
that is exactly one placeholder becomes the value itself (a number stays a
number); otherwise values are inserted as text (JSON for objects and lists).
A path with no value is a `TemplateError` naming it, answered to the client
as a JSON-RPC error rather than as a silently empty string.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from inspector.errors import TemplateError

__all__ = ["render"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_$.\-]+)\s*\}\}")


def _lookup(context: Any, path: str) -> Any:
    value = context
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            raise TemplateError(f"template placeholder {{{{ {path} }}}} has no value (at {part!r})")
    return value


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def render(value: Any, context: dict[str, Any]) -> Any:
    """`value` with every placeholder in its strings (keys left alone) replaced from `context`."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value.strip())
        if whole:
            return _lookup(context, whole.group(1))
        if "{{" not in value:
            return value
        return _PLACEHOLDER.sub(lambda m: _text(_lookup(context, m.group(1))), value)
    if isinstance(value, dict):
        return {k: render(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, context) for v in value]
    return value
