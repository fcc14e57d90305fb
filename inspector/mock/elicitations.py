"""URL-mode elicitations the mock client knows about, and their state. No IO.

They come from two places: an `elicitation/create` request with `mode: "url"`
(answered through the inbox), and the `data.elicitations` of a -32042
URLElicitationRequiredError answering one of the client's requests (then the
original request is kept so the person can retry it once the out-of-band
step is done). `notifications/elicitation/complete` marks the one with its
`elicitationId` complete; unknown or already completed ids are ignored, as
the spec requires. Nothing here opens or fetches a URL; `openable` tells the
UI whether it may offer to (http and https only: a `javascript:`, `data:` or
`file:` URL is shown as text and refused).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from inspector.protocol.mcp_tables import URL_ELICITATION_REQUIRED

__all__ = ["UrlElicitation", "UrlElicitations"]

COMPLETE = "notifications/elicitation/complete"
KEEP = 100


@dataclass
class UrlElicitation:
    elicitation_id: str
    url: str
    message: str
    source: str  # request | error
    retry: dict[str, Any] | None = None  # {"method", "params"} of the request that failed with -32042
    state: str = "pending"  # pending | accepted | declined | cancelled | complete
    created: float = field(default_factory=time.time)
    completed: float | None = None

    def to_json(self) -> dict[str, Any]:
        # Imported here: the checks of the client's answers are not loaded by a client never asked (start-up).
        from inspector.protocol.client_answers import openable_url

        parts = urlsplit(self.url)
        return {
            "elicitation_id": self.elicitation_id,
            "url": self.url,
            "domain": parts.hostname or "",
            "punycode": "xn--" in (parts.hostname or ""),
            "openable": openable_url(self.url),
            "message": self.message,
            "source": self.source,
            "retry": self.retry,
            "state": self.state,
            "created": self.created,
            "completed": self.completed,
        }


class UrlElicitations:
    def __init__(self) -> None:
        self.items: dict[str, UrlElicitation] = {}

    def _add(self, item: UrlElicitation) -> UrlElicitation:
        self.items.setdefault(item.elicitation_id, item)
        while len(self.items) > KEEP:
            del self.items[next(iter(self.items))]
        return self.items[item.elicitation_id]

    def from_request(self, params: Any) -> UrlElicitation | None:
        """A URL-mode `elicitation/create` arrived."""
        if not isinstance(params, dict) or params.get("mode") != "url":
            return None
        eid = params.get("elicitationId")
        if not isinstance(eid, str):
            return None
        return self._add(
            UrlElicitation(eid, str(params.get("url", "")), str(params.get("message", "")), "request")
        )

    def answered(self, params: Any, answer: dict[str, Any]) -> None:
        """The client answered a URL-mode request: remember what the person chose."""
        eid = params.get("elicitationId") if isinstance(params, dict) else None
        item = self.items.get(eid) if isinstance(eid, str) else None
        if item is None or item.state == "complete":
            return
        action = (answer.get("result") or {}).get("action") if "result" in answer else None
        item.state = {"accept": "accepted", "decline": "declined"}.get(str(action), "cancelled")

    def from_response(self, method: str, params: Any, response: Any) -> list[UrlElicitation]:
        """The elicitations a -32042 error asks for, each with the request to retry afterwards."""
        error = response.get("error") if isinstance(response, dict) else None
        if not isinstance(error, dict) or error.get("code") != URL_ELICITATION_REQUIRED:
            return []
        found = error.get("data")
        data: dict[str, Any] = found if isinstance(found, dict) else {}
        found = []
        for e in data.get("elicitations") or []:
            if isinstance(e, dict) and isinstance(e.get("elicitationId"), str):
                item = UrlElicitation(
                    e["elicitationId"],
                    str(e.get("url", "")),
                    str(e.get("message", "")),
                    "error",
                    retry={"method": method, "params": params},
                )
                found.append(self._add(item))
        return found

    def on_notification(self, notification: dict[str, Any]) -> UrlElicitation | None:
        """Mark complete on `notifications/elicitation/complete`; None when ignored."""
        if notification.get("method") != COMPLETE:
            return None
        params = notification.get("params")
        eid = params.get("elicitationId") if isinstance(params, dict) else None
        item = self.items.get(eid) if isinstance(eid, str) else None
        if item is None or item.state == "complete":
            return None
        item.state, item.completed = "complete", time.time()
        return item

    def to_json(self) -> list[dict[str, Any]]:
        return [item.to_json() for item in self.items.values()]
