"""Reading the marks interception leaves on recorded rows (issue 17; no IO).

The intercepting transports record the message as its sender sent it with
`meta.intercept = {n, action, by, delivered, ...}` and each row of bytes the
inspector sent instead or in addition with `meta.injected = {n, action, by}`
(same `n`). Readers (timeline, replay, diff, lint) use these helpers to tell
what each peer actually received from what the peers themselves sent:

- the server received: c2s rows that were delivered, and injected c2s rows;
- the server sent: s2c rows that are not injected, delivered or not.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "describe",
    "injected_of",
    "intervened",
    "is_injected",
    "mark_of",
    "not_delivered",
    "server_received",
    "server_sent",
    "server_side",
    "who",
]

# How an action reads in a sentence: "<verb> by rule x".
_VERBS = {
    "pause": "held",
    "delay": "delayed",
    "drop": "dropped",
    "duplicate": "duplicated",
    "reorder": "reordered",
    "corrupt": "corrupted",
    "truncate": "truncated",
    "replace": "replaced",
    "respond": "answered",
    "edit": "edited",
    "forward": "forwarded",
    "disconnect": "cut off",
    "http_error": "answered with an HTTP error",
    "drip": "dripped",
    "close_stream": "stream closed",
}


def _meta(meta: Any) -> dict[str, Any]:
    return meta if isinstance(meta, dict) else {}


def mark_of(meta: Any) -> dict[str, Any] | None:
    """`meta.intercept` of a row (the sender's message the inspector acted on), or None."""
    mark = _meta(meta).get("intercept")
    return mark if isinstance(mark, dict) else None


def injected_of(meta: Any) -> dict[str, Any] | None:
    """`meta.injected` of a row (bytes the inspector sent, not the sender), or None."""
    mark = _meta(meta).get("injected")
    return mark if isinstance(mark, dict) else None


def not_delivered(meta: Any) -> bool:
    """The row's bytes never reached its peer (dropped, replaced by an edited copy, answered...)."""
    mark = mark_of(meta)
    return mark is not None and mark.get("delivered") is False


def is_injected(meta: Any) -> bool:
    return injected_of(meta) is not None


def intervened(meta: Any) -> bool:
    """The row carries either mark."""
    m = _meta(meta)
    return isinstance(m.get("intercept"), dict) or isinstance(m.get("injected"), dict)


def who(mark: dict[str, Any]) -> str:
    """Who acted: `rule NAME`, `you` (a person at a breakpoint) or `timeout` (a hold that expired)."""
    by = str(mark.get("by") or "")
    if by.startswith("rule:"):
        return f"rule {by[5:]}"
    if by == "user":
        return "you"
    return by or (f"rule {mark['rule']}" if mark.get("rule") else "the inspector")


def describe(meta: Any) -> str | None:
    """One line on what the inspector did to this row, None when nothing.

    e.g. `dropped by rule slow (not delivered)`, `injected by rule fail (replace #3)`,
    `delayed 200 ms by rule slow`."""
    mark = mark_of(meta)
    if mark is not None:
        action = str(mark.get("action") or "changed")
        verb = _VERBS.get(action, action)
        delay = mark.get("delay_ms")
        timing = f" {delay:g} ms" if isinstance(delay, (int, float)) and action == "delay" else ""
        status = f" {mark['status']}" if mark.get("status") is not None and action == "http_error" else ""
        tail = " (not delivered)" if mark.get("delivered") is False else ""
        return f"{verb}{timing}{status} by {who(mark)}{tail}"
    injected = injected_of(meta)
    if injected is not None:
        return (
            f"injected by {who(injected)} ({injected.get('action') or 'intervention'} #{injected.get('n')})"
        )
    return None


def server_received(direction: str, meta: Any) -> bool:
    """A c2s row the server actually received (delivered, or the inspector's injected copy)."""
    return direction == "c2s" and not not_delivered(meta)


def server_sent(direction: str, meta: Any) -> bool:
    """An s2c row the server itself sent (delivered to the client or not; never an injected one)."""
    return direction == "s2c" and not is_injected(meta)


def server_side(direction: str, meta: Any) -> bool:
    """The row belongs to the server's own conversation: what it received or what it sent."""
    return server_received(direction, meta) or server_sent(direction, meta)
