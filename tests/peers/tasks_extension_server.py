"""An SDK 2.x server offering the `io.modelcontextprotocol/tasks` extension (2026-07-28), over stdio.

    python tests/peers/tasks_extension_server.py

Built on the SDK's own extension interface (`mcp.server.extension`): the
extension declares itself in `capabilities.extensions`, serves `tasks/get`,
`tasks/update` and `tasks/cancel`, and answers a call of the `research` tool
with a task handle (`resultType: "task"`) when the client declared the extension in its
per-request capabilities (else with the plain result). The task first needs input (an
`inputRequests` entry, answered with `tasks/update`), then completes.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolRequestParams, RequestParams
from pydantic import ConfigDict, Field

ASK = "confirm-topic"


class TaskParams(RequestParams):
    model_config = ConfigDict(populate_by_name=True, extra="allow")
    task_id: str = Field(alias="taskId")


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(default_factory=dict, alias="inputResponses")


def _declares_tasks(params: CallToolRequestParams) -> bool:
    meta: Any = params.meta
    found = meta.model_dump(by_alias=True) if hasattr(meta, "model_dump") else dict(meta or {})
    caps = found.get("io.modelcontextprotocol/clientCapabilities") or {}
    return "io.modelcontextprotocol/tasks" in (caps.get("extensions") or {})


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class Tasks(Extension):
    identifier = "io.modelcontextprotocol/tasks"

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskParams, self.cancel),
        ]

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: Any, call_next: Any) -> Any:
        if params.name != "research" or not _declares_tasks(params):
            return await call_next(ctx)  # never a task to a client that did not declare the extension
        tid = str(uuid.uuid4())
        topic = (params.arguments or {}).get("topic", "?")
        ask = {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": f"Research {topic}?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            },
        }
        self.tasks[tid] = {
            "taskId": tid,
            "status": "input_required",
            "createdAt": _now(),
            "lastUpdatedAt": _now(),
            "ttlMs": 60_000,
            "pollIntervalMs": 100,
            "inputRequests": {ASK: ask},
            "topic": topic,
        }
        return {"resultType": "task", **self._public(tid)}

    def _public(self, tid: str) -> dict[str, Any]:
        return {k: v for k, v in self.tasks[tid].items() if k != "topic"}

    async def get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        return {"resultType": "complete", **self._public(params.task_id)}

    async def update(self, ctx: Any, params: UpdateParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        answer = params.input_responses.get(ASK)
        if answer is not None and task["status"] == "input_required":
            task.pop("inputRequests", None)
            task["status"], task["lastUpdatedAt"] = "completed", _now()
            text = f"Research report: {task['topic']}"
            task["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
        return {"resultType": "complete"}

    async def cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        task = self.tasks[params.task_id]
        if task["status"] not in ("completed", "failed"):
            task["status"] = "cancelled"
        return {"resultType": "complete"}


def build() -> MCPServer:
    server = MCPServer("tasks-extension-demo", extensions=[Tasks()])

    @server.tool(structured_output=False, description="Research a topic (answered as a task).")
    def research(topic: str) -> str:
        return f"instant report: {topic}"

    return server


if __name__ == "__main__":
    build().run("stdio")
