"""Lean validators: a quick first pass over a message's shape that can only say "it passes".

Sans-IO. Profile (issue 21, fourth round): validating a `tools/call` result with the
`mcp-types` model took 6-9 us of the ~15 us a 100k lint spends per row, mostly in two things the
lint does not need: the `content` union is a pydantic "smart" union, which tries every content
model (text, image, audio, resource link, embedded resource) and builds an error for each one
that does not fit before it picks the best; and every model level builds a model instance that
the lint throws away. The lint only asks whether the value passes, and, when not, pydantic's
own words for why.

`lean_validator(schema)` copies a core schema with two changes that keep "passes":
- each union tries its choices left to right and stops at the first that fits (a smart union
  passes exactly when one of its choices does: the same verdict, fewer attempts);
- each plain model (no custom `__init__`, no `model_post_init`, not a root model) becomes its
  fields' validator, with the model's own `extra` behaviour written into it: the same checks,
  a tuple of values instead of an instance.
It is made only when every part of the schema is of a kind listed in `_PURE` (validators that
look at the input alone: no function validators, whose callables could see the changed values)
and every model has the same config but for its title and `extra` (as in `mcp-types`);
otherwise None.

Use: when the lean validator passes, the original passes (every lean check is one the original
makes, on the same input); when it fails, call the original, which decides and words the
finding. `tests/unit/test_lint_lean.py` holds both to the same verdict on every result, request
and notification shape of every revision.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import CoreConfig, SchemaValidator

from inspector.errors import NotLean

__all__ = ["lean_validator"]

# Core schema kinds whose validation depends on the input only (their output is not read by any
# other validator of the schema): safe to reshape what they produce.
_PURE = frozenset(
    {
        "any",
        "bool",
        "default",
        "definition-ref",
        "definitions",
        "dict",
        "float",
        "int",
        "list",
        "literal",
        "model",
        "model-field",
        "model-fields",
        "none",
        "nullable",
        "str",
        "tagged-union",
        "union",
    }
)
# A model's config keys besides its title and extra behaviour: all models must share these.
_CONFIG_KEYS = ("extra_fields_behavior", "title")


def lean_validator(schema: Any) -> SchemaValidator | None:
    """A validator that passes only values `schema`'s own validator passes (see the module), or None."""
    configs: list[dict[str, Any]] = []
    try:
        lean = _copy(schema, configs)
    except NotLean:
        return None
    if any(c != configs[0] for c in configs):
        return None  # a model validated under other settings than the rest
    return SchemaValidator(lean, CoreConfig(**configs[0]) if configs else None)  # type: ignore[typeddict-item]


# Where a schema holds other schemas (by kind of holder); every other value is kept as it is.
_ONE = ("schema", "items_schema", "keys_schema", "values_schema", "extras_schema", "extras_keys_schema")


def _copy(node: Any, configs: list[dict[str, Any]]) -> Any:
    """A copy of the schema `node`, reshaped as the module says; NotLean for a part it cannot keep."""
    kind = node.get("type") if isinstance(node, dict) else None
    if kind not in _PURE:
        raise NotLean(kind)
    out = dict(node)
    for key in _ONE:
        if key in node:
            out[key] = _copy(node[key], configs)
    if kind == "definitions":
        out["definitions"] = [_copy(d, configs) for d in node["definitions"]]
    elif kind == "model-fields":
        out["fields"] = {name: _copy(field, configs) for name, field in node["fields"].items()}
    elif kind == "union":
        out["choices"] = [
            (_copy(c[0], configs), c[1]) if isinstance(c, tuple) else _copy(c, configs)
            for c in node["choices"]
        ]
        out["mode"] = "left_to_right"
    elif kind == "tagged-union":
        out["choices"] = {tag: _copy(c, configs) for tag, c in node["choices"].items()}
    elif kind == "model":
        if node.get("custom_init") or node.get("root_model") or node.get("post_init"):
            raise NotLean("a model with its own init")
        own = dict(node.get("config") or {})
        shared = {k: v for k, v in own.items() if k not in _CONFIG_KEYS}
        configs.append(shared)
        inner = out["schema"]
        if inner.get("type") != "model-fields":
            raise NotLean("a model without its fields")
        inner.setdefault("extra_behavior", own.get("extra_fields_behavior", "ignore"))
        if "ref" in node:
            inner["ref"] = node["ref"]
        return inner
    return out
