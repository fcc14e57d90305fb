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
    "Skill",
    "SkillFile",
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


# The Agent Skills naming rules: 1-64 of a-z, 0-9 and -, no leading, trailing or double hyphen.
SKILL_NAME = r"^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$"


class SkillFile(_Model):
    """A file of a skill besides its SKILL.md, served at skill://<skill-path>/<path>."""

    path: str = Field(description="Path inside the skill directory, e.g. references/FORMS.md.")
    text: str | None = Field(None, description="The file's text (UTF-8; served as it is, not templated).")
    blob: str | None = Field(None, description="The file's bytes, base64 (a binary file).")
    file: str | None = Field(
        None, description="Read the bytes from this file (relative to the scenario file)."
    )
    mimeType: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> SkillFile:
        if sum(x is not None for x in (self.text, self.blob, self.file)) != 1:
            raise ValueError("give the file's text, blob or file (exactly one)")
        parts = self.path.split("/")
        if self.path.startswith("/") or any(p in ("", ".", "..") for p in parts) or self.path == "SKILL.md":
            raise ValueError(f"{self.path!r} is not a relative path inside the skill (nor SKILL.md)")
        return self


class Skill(_Model):
    """An agent skill (SEP-2640, extension io.modelcontextprotocol/skills): its SKILL.md is built
    from name, description, frontmatter and body (or given whole as `manifest`); `skills/list`
    carries each file's sha256 digest and size, computed from the bytes served."""

    name: str = Field(
        pattern=SKILL_NAME, description="The skill name: the final skill-path segment and frontmatter name."
    )
    path: str | None = Field(
        None, description="Segments before the name (skill://<path>/<name>/SKILL.md), e.g. acme/billing."
    )
    description: str | None = Field(
        None, description="The frontmatter description (required unless in manifest)."
    )
    frontmatter: dict[str, JSON] = Field(
        default_factory=dict, description="More frontmatter fields (license, metadata, allowed-tools, ...)."
    )
    body: str = Field("", description="The Markdown after the frontmatter.")
    manifest: str | None = Field(
        None, description="The whole SKILL.md as it is (frontmatter block first) instead of the fields above."
    )
    files: list[SkillFile] = Field(default_factory=list)
    tamper: Literal["digest", "size", "frontmatter"] | None = Field(
        None,
        description="Serve a SKILL.md that does not match its listing on purpose (a client MUST refuse it): "
        "other bytes of the same size, more bytes, or another frontmatter (with a matching digest).",
    )

    @model_validator(mode="after")
    def _check(self) -> Skill:
        if "--" in self.name:
            raise ValueError(f"skill name {self.name!r} has a double hyphen")
        if self.manifest is not None and (self.description is not None or self.frontmatter or self.body):
            raise ValueError("give the manifest, or description/frontmatter/body, not both")
        if self.manifest is None and not self.description:
            raise ValueError("a skill needs a description (or a manifest)")
        if self.path is not None and any(p in ("", ".", "..") for p in self.path.split("/")):
            raise ValueError(f"skill path {self.path!r} has an empty or dot segment")
        paths = [f.path for f in self.files]
        dupes = sorted({p for p in paths if paths.count(p) > 1})
        if dupes:
            raise ValueError(f"duplicate skill file(s) {dupes}")
        problem = self._manifest_problem()
        if problem:
            raise ValueError(problem)
        return self

    def manifest_text(self) -> str:
        """The skill's SKILL.md text: its `manifest` as given, or a frontmatter block and the body."""
        if self.manifest is not None:
            return self.manifest
        import yaml

        front = {"name": self.name, "description": self.description, **self.frontmatter}
        block = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1_000_000)
        return f"---\n{block}---\n" + (f"\n{self.body}" if self.body else "")

    def _manifest_problem(self) -> str | None:
        """What is wrong with the SKILL.md (no frontmatter, a name other than the skill's, no
        description), or None."""
        from inspector.protocol.skills import split_manifest

        front, _body = split_manifest(self.manifest_text())
        if front is None:
            return "its SKILL.md does not begin with a YAML frontmatter block (--- ... ---) of JSON values"
        if front.get("name") != self.name:
            return f"its SKILL.md frontmatter name {front.get('name')!r} is not the skill name {self.name!r}"
        if not isinstance(front.get("description"), str) or not front["description"]:
            return "its SKILL.md frontmatter has no description"
        return None


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
    skills: list[Skill] = Field(
        default_factory=list,
        description="Agent skills (SEP-2640): declares io.modelcontextprotocol/skills and answers "
        "skills/list, skills/get, resources/directory/read and resources/read of their files.",
    )
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
            ("skill", [f"{s.path}/{s.name}" if s.path else s.name for s in self.skills]),
        ):
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise ValueError(f"duplicate {kind} {dupes}")
        return self
