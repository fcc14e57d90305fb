"""Turning store records into the API's JSON documents (plain dicts shaped as `schemas` declares)."""

from __future__ import annotations

from typing import Any

from inspector.store import Message, Session, session_state

__all__ = ["message_detail", "session_out"]


def session_out(s: Session) -> dict[str, Any]:
    """A `SessionOut` document."""
    return {**s.model_dump(), "state": session_state(s)}


def message_detail(m: Message) -> dict[str, Any]:
    """A `MessageDetail` document: the row, its preview, and the raw text (or base64)."""
    out = m.to_json()
    out.setdefault("raw_base64", None)
    out["preview"] = m.raw[:240].decode("utf-8", errors="replace")
    body = m.body
    out["body"] = body.decode("utf-8", errors="replace") if body is not m.raw else None
    return out
