"""The store's columns as pydantic checks them: a session file's lines (`share.jsonl`), the API's
schema and its readers of older rows (`api.schemas`, `api.views`).

The bounds and shapes are `Annotated` metadata that pydantic reads when it validates (annotated_types'
`Ge`, `Le`, `Len`); they live here, apart from the records (`store.models`), so that reading the
store (`mcp-inspect sessions`, `show`, `search`) validates nothing and loads none of it.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias

from annotated_types import Ge, Le, Len

from inspector.store.models import SQL_INT_MAX, SQL_INT_MIN

__all__ = [
    "JSON_COLUMN_SHAPES",
    "JSON_COLUMN_TYPES",
    "HeadersColumn",
    "Int64",
    "LabelsColumn",
    "LintColumn",
    "ObjectColumn",
    "TargetColumn",
]

# An integer column's values (ids, seqs, ns timestamps): a signed 64-bit integer (`store.models`).
Int64 = Annotated[int, Ge(SQL_INT_MIN), Le(SQL_INT_MAX)]

# What each JSON column (`store.models.JSON_COLUMNS`) holds (the API's schema types them so, a session
# file is checked against them, and the API's readers fit an older row to them: `api.views`).
TargetColumn: TypeAlias = list[str] | str | None  # argv or URL
LabelsColumn: TypeAlias = list[str] | None
ObjectColumn: TypeAlias = dict[str, Any] | None
LintColumn: TypeAlias = list[Any] | dict[str, Any] | None
# [name, value] pairs as they came (or, in older rows, an object)
HeadersColumn: TypeAlias = dict[str, str] | list[Annotated[list[str], Len(2, 2)]] | None
JSON_COLUMN_TYPES: dict[str, Any] = {
    "target": TargetColumn,
    "labels": LabelsColumn,
    "meta": ObjectColumn,
    "lint": LintColumn,
    "http_headers": HeadersColumn,
    "client_info": ObjectColumn,
    "server_info": ObjectColumn,
    "client_capabilities": ObjectColumn,
    "server_capabilities": ObjectColumn,
    "facts": ObjectColumn,
}
# ... and in words, for the one-line errors of an import.
JSON_COLUMN_SHAPES = {
    "target": "a list of strings or a string",
    "labels": "a list of strings",
    "meta": "an object",
    "lint": "a list or an object",
    "http_headers": "a list of [name, value] string pairs",
    "client_info": "an object",
    "server_info": "an object",
    "client_capabilities": "an object",
    "server_capabilities": "an object",
    "facts": "an object",
}
