"""Which fields a JSON result carries, found by walking it: the "field presence" rows of the matrix.

Sans-IO. Paths are generic, not a hand-picked list: object keys are joined
with `.`, array items become `[]` (or `[type=X]` for items with a string
`type`, so `content[type=resource_link]` and `content[type=resource]` say
which content kinds a result holds). Each path counts how many times it
occurs (`tools[].title: 3` means three tools have a title).

Free-form values are counted but not entered: JSON Schemas (`inputSchema`,
`outputSchema`, any `...Schema`), `structuredContent`, `experimental`, and
below `_meta` only its keys. Their insides belong to one server, not to the
protocol revision.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

__all__ = ["MAX_DEPTH", "field_paths", "flatten_capabilities"]

MAX_DEPTH = 8
_OPAQUE = frozenset({"structuredContent", "experimental"})


def _opaque(key: str) -> bool:
    return key in _OPAQUE or key.endswith("Schema")


def field_paths(value: Any) -> Counter[str]:
    """Every field path in `value` with how often it occurs."""
    found: Counter[str] = Counter()
    _walk(value, "", found, 0)
    return found


def _walk(value: Any, prefix: str, found: Counter[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            found[path] += 1
            if _opaque(key):
                continue
            if key == "_meta" and isinstance(item, dict):
                for meta_key in item:
                    found[f"{path}.{meta_key}"] += 1
                continue
            _walk(item, path, found, depth + 1)
    elif isinstance(value, list):
        for item in value:
            kind = item.get("type") if isinstance(item, dict) else None
            path = f"{prefix}[type={kind}]" if isinstance(kind, str) else f"{prefix}[]"
            found[path] += 1
            _walk(item, path, found, depth + 1)


def flatten_capabilities(caps: Any, prefix: str = "") -> dict[str, str]:
    """Capabilities as `path -> value` (leaves as JSON text; an empty object is `{}`)."""
    out: dict[str, str] = {}
    if not isinstance(caps, dict):
        return out
    for key, value in caps.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value and key != "experimental":
            out.update(flatten_capabilities(value, path))
        elif isinstance(value, dict):
            out[path] = "{}" if not value else "{…}"
        elif isinstance(value, bool):
            out[path] = "true" if value else "false"
        else:
            out[path] = str(value)
    return out
