"""Issue 21: the lint's lean validators (`lint.lean`) pass exactly what `mcp-types`' own pass.

The lint trusts a lean pass (no finding) and asks the original validator otherwise, so a lean
validator must never pass what the original fails; it should also fail only what the original
fails (else it is only slower). Both are checked on every result, request and notification shape
of every known revision, with hand-made values and with values Hypothesis builds out of each
shape's own field names and literal values."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import methods
from pydantic import TypeAdapter, ValidationError
from pydantic_core import SchemaValidator, core_schema

from inspector.lint.lean import lean_validator
from inspector.lint.shapes import _result_hits

_TABLES = {
    "server result": methods.SERVER_RESULTS,
    "client result": methods.CLIENT_RESULTS,
    "client request": methods.CLIENT_REQUESTS,
    "server request": methods.SERVER_REQUESTS,
    "client notification": methods.CLIENT_NOTIFICATIONS,
    "server notification": methods.SERVER_NOTIFICATIONS,
}
SHAPES = sorted({(name, method, revision) for name, table in _TABLES.items() for method, revision in table})


@cache
def _pair(name: str, method: str, revision: str) -> tuple[SchemaValidator, SchemaValidator | None, Any]:
    adapter = TypeAdapter(_TABLES[name][(method, revision)])
    return adapter.validator, lean_validator(adapter.core_schema), adapter.core_schema  # type: ignore[return-value]


def _passes(validator: SchemaValidator, value: Any) -> bool:
    try:
        validator.validate_python(value, by_name=False)
    except ValidationError:
        return False
    return True


@cache
def _json_for(name: str, method: str, revision: str) -> st.SearchStrategy[Any]:
    """Values made of the shape's own field names and literal values (mostly objects, as sent)."""
    names, literals = _names(_pair(name, method, revision)[2])
    leaves = st.sampled_from(_BASIC + literals) | st.integers() | st.text(max_size=5)
    keys = st.sampled_from(names) if names else st.text(max_size=3)
    values = st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=12,
    )
    return st.dictionaries(keys, values, max_size=6) | values


def _names(schema: Any) -> tuple[list[str], list[Any]]:
    """The field names (as sent) and the literal values a schema mentions."""
    names: set[str] = set()
    literals: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "model-fields":
                for name, field in node["fields"].items():
                    alias = field.get("validation_alias")
                    names.add(alias if isinstance(alias, str) else name)
            if node.get("type") == "literal":
                literals.extend(v for v in node["expected"] if v not in literals)
            for value in node.values():
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)

    walk(schema)
    return sorted(names), literals


_BASIC = [None, True, False, 0, 1, -1, 2**63, 1.5, "", "x", "2025-06-18", "file:///a", [], {}]


def test_every_shape_has_a_lean_validator() -> None:
    missing = [s for s in SHAPES if _pair(*s)[1] is None]
    assert not missing
    assert len(SHAPES) > 200


_CONTENT = [
    {"type": "text", "text": "hi"},
    {"type": "image", "data": "aGk=", "mimeType": "image/png"},
    {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
    {"type": "resource_link", "uri": "file:///a", "name": "a"},
    {"type": "resource", "resource": {"uri": "file:///a", "text": "t"}},
    {"type": "resource", "resource": {"uri": "file:///a", "blob": "aGk="}},
    {"type": "text"},
    {"type": "image", "data": "aGk="},
    {"type": "video", "text": "x"},
    {"text": "no type"},
    {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}},
    {"type": "text", "text": "hi", "annotations": {"audience": ["nobody"]}},
    {"type": "text", "text": 5},
    "text",
]


@pytest.mark.parametrize("content", _CONTENT)
def test_tool_results_of_every_content_kind_same_verdict(content: Any) -> None:
    """The union the lean validator tries left to right (content of a tools/call result) gives the
    smart union's verdict, and `_result_hits` the original's findings, in every revision."""
    for name, method, revision in SHAPES:
        if name != "server result" or method != "tools/call":
            continue
        original, lean, _ = _pair(name, method, revision)
        assert lean is not None
        for value in (
            {"content": [content]},
            {"content": [_CONTENT[0], content]},
            {"content": [content] * 2},
        ):
            assert _passes(lean, value) == _passes(original, value), (revision, value)
            if not _passes(original, value):
                assert _result_hits("s2c", method, revision, value)


@given(data=st.data())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_made_up_values_same_verdict_on_every_shape(data: st.DataObject) -> None:
    name, method, revision = data.draw(st.sampled_from(SHAPES))
    original, lean, _ = _pair(name, method, revision)
    assert lean is not None
    for _ in range(6):
        value = data.draw(_json_for(name, method, revision))
        if name.endswith("request") or name.endswith("notification"):
            value = {"jsonrpc": "2.0", "method": method, "id": 1, "params": value}
        lean_ok = _passes(lean, value)
        assert lean_ok == _passes(original, value), (name, method, revision, value)


def test_a_shape_with_a_function_validator_gets_no_lean_validator() -> None:
    """A validator that runs code on what the schema produced could see the lean copy's tuples."""
    schema = core_schema.no_info_after_validator_function(lambda v: v, core_schema.str_schema())
    assert lean_validator(schema) is None
    assert lean_validator(core_schema.list_schema(core_schema.str_schema())) is not None
