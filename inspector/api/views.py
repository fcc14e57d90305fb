"""Turning store records into the API's JSON documents (plain dicts shaped as `schemas` declares)."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from inspector.store import Message, Session, session_state
from inspector.store.column_types import JSON_COLUMN_TYPES

__all__ = ["fit_json_columns", "message_detail", "session_out"]


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    return TypeAdapter(JSON_COLUMN_TYPES[name])


def fit_json_columns(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with each JSON column that does not have its declared shape (a row an older version
    stored, or a database edited by hand) read as null, labels as their strings: a UI that maps over
    `labels` or reads `http_headers` as pairs must not break on one bad row. In place; returned."""
    for name in JSON_COLUMN_TYPES.keys() & doc.keys():
        value = doc[name]
        if value is None:
            continue
        try:
            _adapter(name).validate_python(value, strict=True)
        except ValidationError:
            if name == "labels" and isinstance(value, list):
                doc[name] = [v for v in value if isinstance(v, str)]
            else:
                doc[name] = None
    return doc


def session_out(s: Session) -> dict[str, Any]:
    """A `SessionOut` document."""
    return fit_json_columns({**s.to_json(), "state": session_state(s)})


def message_detail(m: Message) -> dict[str, Any]:
    """A `MessageDetail` document: the row, its preview, and the raw text (or base64)."""
    out = fit_json_columns(m.to_json())
    out.setdefault("raw_base64", None)
    out["preview"] = m.raw[:240].decode("utf-8", errors="replace")
    body = m.body
    out["body"] = body.decode("utf-8", errors="replace") if body is not m.raw else None
    return out
