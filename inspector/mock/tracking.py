"""What a mock client knows about its work with the server, as plain state (no IO).

`Activity` is fed the client's outgoing requests, their responses and the
server's notifications, and keeps what the workspace shows:

- requests in flight (method, id, start time, progress, cancelled or not) and
  the last finished ones, including a late response to a cancelled request;
- resource subscriptions with the count and time of `notifications/resources/updated`;
- `notifications/message` log entries and the level last set;
- list-changed hints (`notifications/{tools,prompts,resources}/list_changed`);
- at 2026-07-28 the `subscriptions/listen` streams that carry those (`ListenState`);
- tasks (2025-11-25) as last seen in a `CreateTaskResult`, `tasks/get`,
  `tasks/list`, `tasks/cancel` or `notifications/tasks/status`.

Times are passed in (`now`, seconds since the epoch), so tests need no clock.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from inspector.mock.listen_state import ListenState
from inspector.protocol.listen import ACKNOWLEDGED, LISTEN

__all__ = ["Activity", "InFlight", "ServerFeatures"]

RECENT_REQUESTS = 50
RECENT_LOGS = 500
LIST_CHANGED = (
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
)
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
# The methods whose answer carries a task's state (the result is the Task itself).
_TASK_RESULTS = ("tasks/get", "tasks/cancel")


@dataclass
class InFlight:
    """One request the client sent."""

    key: str  # JSON-RPC id as canonical JSON text
    rpc_id: Any
    method: str
    params: Any
    started: float
    progress_token: str | None = None
    progress: dict[str, Any] | None = None  # the last notifications/progress params
    progress_count: int = 0
    state: str = "pending"  # pending | answered | error | cancelled | timeout
    cancel_reason: str | None = None
    cancelled_at: float | None = None
    cancel_via: str | None = None  # notification | stream-closed
    finished: float | None = None
    response: dict[str, Any] | None = None  # also a late response after a cancel

    def to_json(self, now: float) -> dict[str, Any]:
        end = self.finished if self.finished is not None else now
        return {
            "key": self.key,
            "id": self.rpc_id,
            "method": self.method,
            "params": self.params,
            "started": self.started,
            "elapsed_s": round(end - self.started, 3),
            "progress_token": self.progress_token,
            "progress": self.progress,
            "progress_count": self.progress_count,
            "state": self.state,
            "cancel_reason": self.cancel_reason,
            "cancelled_at": self.cancelled_at,
            "cancel_via": self.cancel_via,
            "finished": self.finished,
            "response": self.response,
        }


@dataclass
class ServerFeatures:
    """What the server declared (its capabilities) and which methods the negotiated revision has."""

    capabilities: dict[str, Any] = field(default_factory=dict)
    methods: frozenset[str] | None = None  # None: an unknown revision, nothing is gated

    def has_method(self, method: str) -> bool:
        return self.methods is None or method in self.methods

    @property
    def tasks_extension(self) -> bool:
        """The server declared the `io.modelcontextprotocol/tasks` extension (2026-07-28)."""
        return self._cap("extensions", TASKS_EXTENSION) is not None

    def _cap(self, *path: str) -> Any:
        node: Any = self.capabilities
        for part in path:
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def to_json(self) -> dict[str, Any]:
        listen = self.has_method(LISTEN) and self.methods is not None
        return {
            "subscribe": bool(self._cap("resources", "subscribe"))
            and (self.has_method("resources/subscribe") or listen),
            "listen": listen,
            "completions": self._cap("completions") is not None and self.has_method("completion/complete"),
            "logging": self._cap("logging") is not None,
            "set_level": self._cap("logging") is not None and self.has_method("logging/setLevel"),
            "tasks": self._cap("tasks") is not None or self.tasks_extension,
            "task_tools": self._cap("tasks", "requests", "tools", "call") is not None,
            "task_list": self._cap("tasks", "list") is not None,
            "task_cancel": self._cap("tasks", "cancel") is not None or self.tasks_extension,
            "task_update": self.tasks_extension,
            "list_changed": {
                kind: bool(self._cap(kind, "listChanged")) for kind in ("tools", "prompts", "resources")
            },
        }


class Activity:
    """The state behind the workspace's in-flight, subscription, log and task panels."""

    def __init__(self) -> None:
        self.features = ServerFeatures()
        self.inflight: dict[str, InFlight] = {}
        self.recent: deque[InFlight] = deque(maxlen=RECENT_REQUESTS)
        self.by_token: dict[str, InFlight] = {}
        self.subscriptions: dict[str, dict[str, Any]] = {}
        self.logs: deque[dict[str, Any]] = deque(maxlen=RECENT_LOGS)
        self.log_level: str | None = None
        self.list_changed: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, dict[str, Any]] = {}
        self.listening = ListenState()
        self._late: dict[str, InFlight] = {}  # cancelled, a response may still come

    # -- requests ---------------------------------------------------------------------------

    def started(self, key: str, rpc_id: Any, method: str, params: Any, now: float) -> InFlight:
        token = None
        if isinstance(params, dict) and isinstance(params.get("_meta"), dict):
            raw = params["_meta"].get("progressToken")
            token = None if raw is None else str(raw)
        item = InFlight(key, rpc_id, method, params, now, progress_token=token)
        self.inflight[key] = item
        if token is not None:
            self.by_token[token] = item
        return item

    def finished(
        self, key: str, response: dict[str, Any] | None, now: float, state: str | None = None
    ) -> InFlight | None:
        """A request got its response (or timed out, `response` None); None when not in flight."""
        item = self.inflight.pop(key, None)
        if item is None:
            return None
        item.finished = now
        item.response = response
        if item.state == "pending":
            item.state = state or ("error" if response is not None and "error" in response else "answered")
        if item.state == "cancelled" and response is None:
            self._late[key] = item
        if item.progress_token is not None and item.state != "cancelled":
            self.by_token.pop(item.progress_token, None)
        self.recent.append(item)
        self._learn_from_result(item.method, item.params, response, now)
        return item

    def cancelled(self, key: str, reason: str | None, via: str, now: float) -> InFlight:
        """Mark a request in flight as cancelled (KeyError when unknown)."""
        item = self.inflight[key]
        item.state = "cancelled"
        item.cancel_reason = reason
        item.cancel_via = via
        item.cancelled_at = now
        return item

    def late_response(self, key: str, response: dict[str, Any], now: float) -> InFlight | None:
        """A response arrived for a request that was cancelled."""
        item = self._late.pop(key, None)
        if item is not None:
            item.response = response
            item.finished = now
            if item.progress_token is not None:
                self.by_token.pop(item.progress_token, None)
        return item

    def get(self, key: str) -> InFlight | None:
        return self.inflight.get(key) or next((r for r in self.recent if r.key == key), None)

    # -- notifications ----------------------------------------------------------------------

    def notification(self, message: dict[str, Any], now: float) -> tuple[str, dict[str, Any]] | None:
        """Take in a server notification; the (kind, payload) worth a live event, or None."""
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        assert isinstance(params, dict)
        if method == "notifications/progress":
            item = self.by_token.get(str(params.get("progressToken")))
            if item is None:
                return "progress", {"request": None, "progress": params}
            item.progress = {k: params.get(k) for k in ("progress", "total", "message") if k in params}
            item.progress_count += 1
            return "progress", {"request": item.to_json(now), "progress": params}
        if method == "notifications/message":
            entry = {
                "time": now,
                "level": params.get("level"),
                "logger": params.get("logger"),
                "data": params.get("data"),
            }
            self.logs.append(entry)
            return "log", entry
        if method == ACKNOWLEDGED:
            stream = self.listening.acknowledged(message, now)
            if stream is None:
                return None
            if stream is self.listening.current:
                self.sync_listen_subscriptions(now)
            return "listen", self.listening.to_json()
        counted = self.listening.stream_of(message)
        if counted is not None:
            counted.notifications += 1
        if method == "notifications/resources/updated":
            uri = str(params.get("uri"))
            sub = self.subscriptions.get(uri)
            if sub is None:  # an update for a URI we did not subscribe to: still worth showing
                sub = self.subscriptions[uri] = {"uri": uri, "subscribed": False, "since": None}
            sub["updates"] = sub.get("updates", 0) + 1
            sub["last_update"] = now
            return "resource_updated", dict(sub)
        if method in LIST_CHANGED:
            hint = self.list_changed.setdefault(str(method), {"method": method, "count": 0})
            hint["count"] += 1
            hint["last"] = now
            return "list_changed", dict(hint)
        if method == "notifications/tasks/status":
            return "task", self._task(params, now)
        return None

    # -- subscriptions, log level -----------------------------------------------------------

    def subscribed(self, uri: str, now: float) -> dict[str, Any]:
        sub = self.subscriptions.setdefault(uri, {"uri": uri, "updates": 0, "last_update": None})
        sub.update(subscribed=True, since=now)
        return dict(sub)

    def unsubscribed(self, uri: str) -> dict[str, Any] | None:
        sub = self.subscriptions.get(uri)
        if sub is None or not sub.get("subscribed"):
            return None
        sub["subscribed"] = False
        return dict(sub)

    def sync_listen_subscriptions(self, now: float) -> None:
        """At 2026-07-28 a URI is subscribed while the current listen stream honors it."""
        honored = set(self.listening.honored_uris())
        for uri in honored:
            if not self.subscriptions.get(uri, {}).get("subscribed"):
                self.subscribed(uri, now)
        for uri in [u for u, sub in self.subscriptions.items() if sub.get("subscribed") and u not in honored]:
            self.unsubscribed(uri)

    # -- tasks ------------------------------------------------------------------------------

    def _task(self, task: dict[str, Any], now: float, **extra: Any) -> dict[str, Any]:
        tid = str(task.get("taskId"))
        known = self.tasks.setdefault(tid, {"taskId": tid, "seen": now})
        known.update({k: v for k, v in task.items() if k != "_meta"}, updated=now, **extra)
        return dict(known)

    def _learn_from_result(
        self, method: str, params: Any, response: dict[str, Any] | None, now: float
    ) -> None:
        result = (response or {}).get("result")
        if not isinstance(result, dict):
            return
        if isinstance(result.get("task"), dict) and isinstance(params, dict) and "task" in params:
            self._task(result["task"], now, method=method, request=params.get("name"))
        elif result.get("resultType") == "task" and "taskId" in result:  # the tasks extension's handle
            name = params.get("name") if isinstance(params, dict) else None
            self._task(
                {k: v for k, v in result.items() if k != "resultType"}, now, method=method, request=name
            )
        elif method in _TASK_RESULTS and "taskId" in result:
            self._task(result, now)
        elif method == "tasks/list":
            for task in result.get("tasks") or []:
                if isinstance(task, dict):
                    self._task(task, now)
        elif method == "tasks/result" and isinstance(params, dict):
            tid = str(params.get("taskId"))
            if tid in self.tasks:
                self.tasks[tid]["result"] = result

    def to_json(self, now: float) -> dict[str, Any]:
        return {
            "features": self.features.to_json(),
            "inflight": [item.to_json(now) for item in self.inflight.values()],
            "recent": [item.to_json(now) for item in reversed(self.recent)],
            "subscriptions": list(self.subscriptions.values()),
            "logs": list(self.logs),
            "log_level": self.log_level,
            "list_changed": list(self.list_changed.values()),
            "listen": self.listening.to_json(),
            "tasks": sorted(self.tasks.values(), key=lambda t: str(t.get("createdAt") or t.get("seen"))),
        }
