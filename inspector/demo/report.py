"""What `inspector.demo.driver.drive_demo` observed, as plain dataclasses.

The report holds texts rather than SDK models so tests (and the CLI summary)
can assert on it without knowing the wire types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolOutcome:
    """One `tools/call` result: joined text content, the error flag, structured content."""

    text: str
    is_error: bool
    structured: dict[str, Any] | None = None


@dataclass(frozen=True)
class ProgressEvent:
    """One `notifications/progress` delivered to a call's progress callback."""

    tool: str
    progress: float
    total: float | None
    message: str | None


@dataclass(frozen=True)
class ServerRequestEvent:
    """One server-to-client request the driver answered (sampling, elicitation, roots).

    `request_id` tells the two delivery paths apart: on a handshake-era connection it is
    the JSON-RPC id of the standalone request; on 2026-07-28 it is the key the request
    had under `inputRequests` in the server's `InputRequiredResult`.
    """

    method: str
    request_id: str | int
    detail: str


@dataclass(frozen=True)
class LogEvent:
    """One `notifications/message` delivered to the logging callback."""

    level: str
    logger: str | None
    data: Any


@dataclass
class DemoReport:
    """Everything one demo run saw, in the order the driver exercised it."""

    mode: str
    protocol_version: str = ""
    server_name: str | None = None
    logging_level_set: bool = False
    tools: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    resource_templates: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    tool_results: dict[str, ToolOutcome] = field(default_factory=dict)
    resource_texts: dict[str, str] = field(default_factory=dict)
    resource_errors: dict[str, str] = field(default_factory=dict)
    prompt_messages: list[str] = field(default_factory=list)
    completions: list[str] = field(default_factory=list)
    progress: list[ProgressEvent] = field(default_factory=list)
    logs: list[LogEvent] = field(default_factory=list)
    server_requests: list[ServerRequestEvent] = field(default_factory=list)

    def requests_for(self, method: str) -> list[ServerRequestEvent]:
        """The answered server-to-client requests with the given method."""
        return [event for event in self.server_requests if event.method == method]

    def summary(self) -> str:
        """A short multi-line human summary (what the driver CLI prints)."""
        lines = [
            f"mode={self.mode} protocol={self.protocol_version} server={self.server_name}",
            f"listed: {len(self.tools)} tools, {len(self.resources)} resources, "
            f"{len(self.resource_templates)} templates, {len(self.prompts)} prompts",
        ]
        for name, outcome in self.tool_results.items():
            flag = " [isError]" if outcome.is_error else ""
            structured = " +structured" if outcome.structured is not None else ""
            lines.append(f"  {name}{flag}{structured}: {_one_line(outcome.text)}")
        for uri, text in self.resource_texts.items():
            lines.append(f"  read {uri}: {_one_line(text)}")
        for uri, error in self.resource_errors.items():
            lines.append(f"  read {uri} failed: {_one_line(error)}")
        lines.append(
            f"progress={len(self.progress)} logs={len(self.logs)} prompt_messages={len(self.prompt_messages)} "
            f"completions={self.completions}"
        )
        for event in self.server_requests:
            lines.append(f"  answered {event.method} (id {event.request_id!r}): {_one_line(event.detail)}")
        return "\n".join(lines)


def _one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
