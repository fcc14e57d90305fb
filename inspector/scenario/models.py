"""The scenario file format of `mcp-inspect serve`, as pydantic models (also the source of schema.json).

A scenario says what a mock MCP server offers (server info, protocol
versions, tools, resources, resource templates, prompts, completions), how
each request is answered (fixed, templated from the request, or taken from a
recorded session; optionally delayed or failed on purpose) and what the
server does on its own (`steps` during a tool call, `after` it, `timers`).
Strings in answers and steps may hold `{{ path }}` placeholders
(`inspector.scenario.template`). Field names follow the MCP wire names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from inspector.protocol.versions import KNOWN_PROTOCOL_VERSIONS as KNOWN_VERSIONS

__all__ = [
    "Answer",
    "Authorization",
    "Completion",
    "Fault",
    "Prompt",
    "Resource",
    "ResourceTemplate",
    "Scenario",
    "Step",
    "Timer",
    "Tool",
]

JSON = Any


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Fault(_Model):
    """Ways to answer badly on purpose; checked in this order: delay, then never / error / malformed."""

    delay: float = Field(0, ge=0, le=3600, description="Seconds to wait before answering.")
    never: bool = Field(False, description="Never answer (the client's timeout path).")
    error: dict[str, JSON] | None = Field(
        None, description="Answer with this JSON-RPC error object ({code, message, data?})."
    )
    malformed: str | None = Field(
        None, description="Send these bytes instead of an answer (not valid JSON-RPC on purpose)."
    )

    @model_validator(mode="after")
    def _one_failure(self) -> Fault:
        if sum([self.never, self.error is not None, self.malformed is not None]) > 1:
            raise ValueError("choose at most one of never, error, malformed")
        if self.error is not None and not isinstance(self.error.get("code"), int):
            raise ValueError("error needs an integer code")
        return self


class _StepBase(_Model):
    pass


class _InputStep(_StepBase):
    """A server-to-client request; under 2026-07-28 one entry of an `input_required` result."""

    key: str | None = Field(
        None,
        description="2026-07-28: its key in the input_required result's inputRequests (and the key "
        "of the client's inputResponses); default: generated from its position.",
    )
    optional: bool = Field(
        False,
        description="2026-07-28: skip it (its answer is null) when the client did not declare the "
        "capability it needs in _meta clientCapabilities; otherwise the request fails with "
        "MissingRequiredClientCapabilityError (-32021).",
    )


class SampleStep(_InputStep):
    do: Literal["sample"]
    params: dict[str, JSON] = Field(
        description="sampling/createMessage params (messages, maxTokens, tools, ...)."
    )


class ElicitStep(_InputStep):
    do: Literal["elicit"]
    params: dict[str, JSON] = Field(
        description="elicitation/create params: form mode (message, requestedSchema) or URL mode "
        "(mode: url, message, url, elicitationId)."
    )
    complete: bool = Field(
        True, description="URL mode: send notifications/elicitation/complete after the client accepted."
    )


class RootsStep(_InputStep):
    do: Literal["roots"]


class PingStep(_StepBase):
    do: Literal["ping"]


class ProgressStep(_StepBase):
    do: Literal["progress"]
    progress: float
    total: float | None = None
    message: str | None = None


class LogStep(_StepBase):
    do: Literal["log"]
    level: Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] = "info"
    data: JSON = None
    logger: str | None = None


class ListChangedStep(_StepBase):
    do: Literal["list_changed"]
    what: Literal["tools", "resources", "prompts", "roots"] = "tools"


class ResourceUpdatedStep(_StepBase):
    do: Literal["resource_updated"]
    uri: str


class RequestStep(_InputStep):
    do: Literal["request"]
    method: str
    params: dict[str, JSON] | None = None


class NotifyStep(_StepBase):
    do: Literal["notify"]
    method: str
    params: dict[str, JSON] | None = None


class SleepStep(_StepBase):
    do: Literal["sleep"]
    seconds: float = Field(ge=0, le=3600)


class RawStep(_StepBase):
    do: Literal["raw"]
    data: str = Field(description="Bytes sent as they are (a malformed message on purpose).")


Step = Annotated[
    SampleStep
    | ElicitStep
    | RootsStep
    | PingStep
    | ProgressStep
    | LogStep
    | ListChangedStep
    | ResourceUpdatedStep
    | RequestStep
    | NotifyStep
    | SleepStep
    | RawStep,
    Field(discriminator="do"),
]


class Answer(_Model):
    """How a request is answered: `result` (fixed or templated) or a `recording` to take it from."""

    result: dict[str, JSON] | None = Field(
        None, description="The result object; strings may hold {{ placeholders }}."
    )
    recording: str | None = Field(
        None, description="Take the answer (and its notifications/requests) from this recorded session."
    )
    fault: Fault | None = None


class Tool(Answer):
    name: str
    title: str | None = None
    description: str | None = None
    inputSchema: dict[str, JSON] = Field(default_factory=lambda: {"type": "object"})
    outputSchema: dict[str, JSON] | None = None
    annotations: dict[str, JSON] | None = None
    meta: dict[str, JSON] | None = Field(
        None,
        alias="_meta",
        description="The tool's _meta; an MCP App view: {ui: {resourceUri: 'ui://...'}}.",
    )
    steps: list[Step] = Field(default_factory=list, description="Done during the call, before the answer.")
    after: list[Step] = Field(default_factory=list, description="Done after the answer was sent.")


class Resource(Answer):
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = Field(
        None, description="A ui:// resource (an MCP App view) defaults to text/html;profile=mcp-app."
    )
    text: str | None = Field(None, description="Shortcut for a text result (templated).")
    file: str | None = Field(
        None, description="Read the text from this file (relative to the scenario file), e.g. an App's HTML."
    )
    meta: dict[str, JSON] | None = Field(
        None,
        alias="_meta",
        description="The resource's _meta (listed and read); an App view: {ui: {csp: {...}, permissions: {...}}}.",
    )

    @model_validator(mode="after")
    def _app_view(self) -> Resource:
        if self.text is not None and self.file is not None:
            raise ValueError("give the resource's text or its file, not both")
        if self.uri.startswith("ui://") and self.mimeType is None:
            self.mimeType = "text/html;profile=mcp-app"
        return self


class ResourceTemplate(Answer):
    uriTemplate: str = Field(description="RFC 6570 level 1: {name} matches one path segment.")
    name: str
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    text: str | None = Field(None, description="Text of a matching resource; {{ variables.name }} available.")


class Prompt(Answer):
    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[dict[str, JSON]] = Field(default_factory=list)
    messages: list[dict[str, JSON]] | None = Field(None, description="Shortcut for the result's messages.")
    steps: list[Step] = Field(
        default_factory=list,
        description="Done during prompts/get, before the answer (e.g. an elicitation whose answer the "
        "messages use).",
    )


class Completion(_Model):
    ref: dict[str, JSON] = Field(description='{"type": "ref/prompt", "name": ...} or ref/resource with uri.')
    argument: str
    values: list[str] = Field(description="Candidates; those starting with the typed value are returned.")


class Timer(_Model):
    after: float = Field(0, ge=0, le=86400, description="Seconds after the client is initialized.")
    every: float | None = Field(None, gt=0, le=86400, description="Repeat with this period.")
    repeat: int = Field(1, ge=1, le=10000, description="How many times in all.")
    steps: list[Step]


class ServerInfo(_Model):
    name: str = "mcp-inspect-mock"
    version: str = "1.0.0"
    title: str | None = None


class Authorization(_Model):
    """Require OAuth authorization (Streamable HTTP only): a built-in authorization server on the
    same origin (`serve --auth`), with faults clients must survive or refuse (`--auth-fault`)."""

    approve: Literal["auto", "ui"] = Field(
        "auto", description="auto: approve every authorization request at once; ui: ask on an approval page."
    )
    faults: list[Literal["wrong-issuer", "resource-mismatch", "no-s256", "expired-token", "step-up"]] = Field(
        default_factory=list, description="Faults of the authorization server (see `serve --help`)."
    )
    tokenLifetime: int = Field(3600, ge=1, le=30 * 86400, description="Seconds an access token lives.")


class Scenario(_Model):
    """A mock MCP server."""

    schema_: str | None = Field(None, alias="$schema")
    serverInfo: ServerInfo = Field(default_factory=ServerInfo)
    instructions: str | None = None
    protocolVersions: list[str] = Field(
        default_factory=lambda: list(KNOWN_VERSIONS),
        description="Revisions the server negotiates (newest handshake one is the counter-offer).",
    )
    answerTimeout: float = Field(60, gt=0, le=3600, description="Seconds to wait for a client's answer.")
    tools: list[Tool] = Field(default_factory=list)
    resources: list[Resource] = Field(default_factory=list)
    resourceTemplates: list[ResourceTemplate] = Field(default_factory=list)
    prompts: list[Prompt] = Field(default_factory=list)
    completions: list[Completion] = Field(default_factory=list)
    timers: list[Timer] = Field(default_factory=list)
    recording: str | None = Field(
        None, description="Answer requests the scenario does not know from this session."
    )
    auth: Authorization | None = Field(None, description="Require OAuth authorization (HTTP only).")

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        unknown = [v for v in self.protocolVersions if v not in KNOWN_VERSIONS]
        if unknown:
            raise ValueError(f"unknown protocol version(s) {unknown}; known: {list(KNOWN_VERSIONS)}")
        if not self.protocolVersions:
            raise ValueError("protocolVersions needs at least one revision")
        for kind, names in (
            ("tool", [t.name for t in self.tools]),
            ("resource", [r.uri for r in self.resources]),
            ("prompt", [p.name for p in self.prompts]),
        ):
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"duplicate {kind} {dupes}")
        return self
