"""A scenario as a source of reactions for `MockSession` (next to a recording). No IO.

`ScenarioScript.react(message)` answers one client message: version
negotiation (`initialize`, `server/discover`, the per-request 2026-07-28
`_meta` version), lists and lookups from the `Offer`, the steps of a tool
call, deliberate faults, and timers (started by `notifications/initialized`;
under 2026-07-28 by each `subscriptions/listen` stream, on that stream).
Strings are rendered just before each action is played, with the request's
`arguments`/`params` and the client's `answers` to earlier steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import UnionType
from typing import Any, get_args

import mcp_types
from mcp_types import methods as _methods

from inspector.errors import TemplateError
from inspector.mock.script import Action, Reaction, RecordedScript
from inspector.mock.session import is_modern
from inspector.protocol.listen import LISTEN, honored_filter
from inspector.protocol.versions import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from inspector.replay.matching import Miss
from inspector.scenario import models as m
from inspector.scenario.features import Offer
from inspector.scenario.template import render

__all__ = ["UNSUPPORTED_VERSION", "ScenarioScript", "step_actions"]

UNSUPPORTED_VERSION = -32022
_PV_KEY = "io.modelcontextprotocol/protocolVersion"
_SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
_IF_ACCEPTED = "_mcpInspectIfAccepted"
# Methods whose 2026-07-28 results must carry the caching fields (ttlMs, cacheScope).
CACHEABLE_METHODS = frozenset(
    method
    for method, row in _methods.MONOLITH_RESULTS.items()
    if any(
        isinstance(arm, type) and issubclass(arm, mcp_types.CacheableResult)
        for arm in (get_args(row) if isinstance(row, UnionType) else (row,))
    )
)
# Methods of the handshake revisions that 2026-07-28 removed: a per-request (2026-07-28) call of
# one is -32601 (Method not found), as the revision asks.
REMOVED_IN_MODERN = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)
_EMPTY_RESULT_METHODS = frozenset(
    {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
)


def _error(code: int, message: str, data: Any = None) -> Action:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return Action("respond", {"error": error})


def _notify(method: str, params: dict[str, Any] | None = None) -> Action:
    return Action("notify", {"method": method, **({"params": params} if params is not None else {})})


def step_actions(steps: Sequence[m.Step], progress_token: Any = None) -> list[Action]:
    """The actions of scenario steps (progress is skipped when the request asked for none)."""
    out: list[Action] = []
    for step in steps:
        ask = (
            {"key": step.key, "optional": step.optional}
            if isinstance(step, m._InputStep) and (step.key is not None or step.optional)
            else None
        )
        if isinstance(step, m.SampleStep):
            out.append(
                Action("request", {"method": "sampling/createMessage", "params": step.params}, input=ask)
            )
        elif isinstance(step, m.ElicitStep):
            out.append(Action("request", {"method": "elicitation/create", "params": step.params}, input=ask))
            if step.params.get("mode") == "url" and step.complete:
                done = {"elicitationId": step.params.get("elicitationId"), _IF_ACCEPTED: True}
                out.append(_notify("notifications/elicitation/complete", done))
        elif isinstance(step, m.RootsStep):
            out.append(Action("request", {"method": "roots/list"}, input=ask))
        elif isinstance(step, m.PingStep):
            out.append(Action("request", {"method": "ping"}))
        elif isinstance(step, m.ProgressStep):
            if progress_token is not None:
                params = {"progressToken": progress_token, "progress": step.progress}
                params.update(
                    {k: v for k, v in (("total", step.total), ("message", step.message)) if v is not None}
                )
                out.append(_notify("notifications/progress", params))
        elif isinstance(step, m.LogStep):
            log = {"level": step.level, "data": step.data}
            if step.logger:
                log["logger"] = step.logger
            out.append(_notify("notifications/message", log))
        elif isinstance(step, m.ListChangedStep):
            out.append(_notify(f"notifications/{step.what}/list_changed"))
        elif isinstance(step, m.ResourceUpdatedStep):
            out.append(_notify("notifications/resources/updated", {"uri": step.uri}))
        elif isinstance(step, m.RequestStep | m.NotifyStep):
            payload: dict[str, Any] = {"method": step.method}
            if step.params is not None:
                payload["params"] = step.params
            if isinstance(step, m.RequestStep):
                out.append(Action("request", payload, input=ask))
            else:
                out.append(Action("notify", payload))
        elif isinstance(step, m.SleepStep):
            out.append(Action("sleep", {"seconds": step.seconds}))
        elif isinstance(step, m.RawStep):
            out.append(Action("raw", {"data": step.data}))
    return out


def _fault_actions(fault: m.Fault | None) -> tuple[list[Action], bool]:
    """Actions that replace or delay the answer, and whether the answer is replaced."""
    if fault is None:
        return [], False
    out = [Action("sleep", {"seconds": fault.delay})] if fault.delay else []
    if fault.never:
        return [*out, Action("hang", {})], True
    if fault.error is not None:
        return [*out, Action("respond", {"error": fault.error})], True
    if fault.malformed is not None:
        return [*out, Action("raw", {"data": fault.malformed})], True
    return out, False


def timer_actions(timers: Sequence[m.Timer]) -> list[Action]:
    """All timers merged into one timeline: sleeps between the firings, in time order."""
    firings: list[tuple[float, int, m.Timer]] = []
    for n, timer in enumerate(timers):
        period = timer.every or 0
        firings += [(timer.after + k * period, n, timer) for k in range(timer.repeat if period else 1)]
    firings.sort(key=lambda f: (f[0], f[1]))
    out: list[Action] = []
    now = 0.0
    for at, _n, timer in firings:
        if at > now:
            out.append(Action("sleep", {"seconds": at - now}))
            now = at
        out += step_actions(timer.steps)
    return out


class ScenarioScript:
    """Reactions of a scenario for one client connection (its tools may change while it runs)."""

    def __init__(self, scenario: m.Scenario, recordings: dict[str, RecordedScript] | None = None) -> None:
        self.scenario = scenario
        self.offer = Offer(scenario)
        self.recordings = recordings or {}
        self.version: str | None = None
        self.client: dict[str, Any] = {}  # clientInfo, capabilities, protocolVersion as the client sent them

    @property
    def versions(self) -> list[str]:
        return self.scenario.protocolVersions

    def react(self, message: dict[str, Any]) -> tuple[Reaction | None, Miss | None]:
        method = message.get("method", "")
        found = message.get("params")
        params: dict[str, Any] = found if isinstance(found, dict) else {}
        if "id" not in message:
            if method == "notifications/initialized" and self.scenario.timers:
                return self._reaction(timer_actions(self.scenario.timers), message, {}), None
            return None, None
        modern = is_modern(message)
        if modern:
            self._learn_modern(params)
        requested = (
            (params.get("_meta") or {}).get(_PV_KEY) if isinstance(params.get("_meta"), dict) else None
        )
        if requested is not None and requested not in self.versions:
            return Reaction([self._unsupported(requested, modern_request=True)]), None
        if modern and method in REMOVED_IN_MODERN:
            return Reaction([_error(-32601, f"Method not found: {method} (removed in {self.version})")]), None
        actions = self._answer(method, params, message)
        if actions is None:
            return self._fallback(message)
        return self._reaction(actions, message, self._context(params)), None

    def _learn_modern(self, params: dict[str, Any]) -> None:
        meta = params.get("_meta") or {}
        self.version = meta.get(_PV_KEY)
        client = {
            "protocolVersion": self.version,
            "clientInfo": meta.get("io.modelcontextprotocol/clientInfo"),
            "capabilities": meta.get("io.modelcontextprotocol/clientCapabilities"),
        }
        self.client = client

    def _unsupported(self, requested: Any, *, modern_request: bool = False) -> Action:
        """UnsupportedProtocolVersionError. To a per-request (2026-07-28) version: the per-request
        revisions it allows (those server/discover lists), or all when it allows none of them."""
        modern = [v for v in self.versions if v in MODERN_PROTOCOL_VERSIONS]
        supported = modern if modern_request and modern else self.versions
        return _error(
            UNSUPPORTED_VERSION,
            f"Unsupported protocol version {requested}",
            {"supported": supported, "requested": requested},
        )

    def _fallback(self, message: dict[str, Any]) -> tuple[Reaction | None, Miss | None]:
        if self.scenario.recording and self.scenario.recording in self.recordings:
            return self.recordings[self.scenario.recording].react(message)
        method = message.get("method")
        return Reaction([_error(-32601, f"Method not found: {method}")]), None

    def _context(self, params: dict[str, Any]) -> dict[str, Any]:
        context = {"params": params, "arguments": params.get("arguments") or {}}
        if isinstance(params.get("uri"), str):
            context["uri"] = params["uri"]
            context["variables"] = self.offer.resource(params["uri"])[1]
        return context

    def _reaction(self, actions: list[Action], message: dict[str, Any], context: dict[str, Any]) -> Reaction:
        modern = "id" in message and is_modern(message)
        info = self.offer.server_info()

        def fill(action: Action, answers: list[Any]) -> Action | None:
            payload = dict(action.payload)
            if payload.pop(_IF_ACCEPTED, None) or (payload.get("params") or {}).get(_IF_ACCEPTED):
                payload["params"] = {k: v for k, v in payload["params"].items() if k != _IF_ACCEPTED}
                last = answers[-1] if answers else None
                if not (isinstance(last, dict) and last.get("action") == "accept"):
                    return None
            try:
                payload = render(payload, {**context, "answers": answers})
            except TemplateError as exc:
                if action.kind != "respond":
                    return Action(
                        "notify",
                        {"method": "notifications/message", "params": {"level": "error", "data": str(exc)}},
                    )
                return _error(-32603, str(exc))
            if action.kind == "respond" and modern and isinstance(payload.get("result"), dict):
                result = {"resultType": "complete", **payload["result"]}
                if message.get("method") in CACHEABLE_METHODS:
                    result = {"ttlMs": 0, "cacheScope": "private", **result}
                result["_meta"] = {**(result.get("_meta") or {}), _SERVER_INFO_KEY: info}
                payload["result"] = result
            return Action(action.kind, payload, input=action.input)

        return Reaction(actions, render=fill)

    def _answer(self, method: str, params: dict[str, Any], message: dict[str, Any]) -> list[Action] | None:
        if method == "initialize":
            return [self._initialize(params)]
        if method == "server/discover":
            modern = [v for v in self.versions if v in MODERN_PROTOCOL_VERSIONS]
            if not modern:
                return [_error(-32601, "Method not found: server/discover")]
            result = {"supportedVersions": modern, "capabilities": self.offer.capabilities()}
            if self.scenario.instructions:
                result["instructions"] = self.scenario.instructions
            return [Action("respond", {"result": result})]
        if method == LISTEN:
            return self._listen(params, message)
        if method in _EMPTY_RESULT_METHODS:
            return [Action("respond", {"result": {}})]
        listed = self.offer.list_result(method)
        if listed is not None:
            return [Action("respond", {"result": listed})]
        if method == "completion/complete":
            return [Action("respond", {"result": self.offer.complete(params)})]
        if method == "tools/call":
            return self._tool_call(params, message)
        if method == "resources/read":
            return self._read(params, message)
        if method == "prompts/get":
            return self._prompt(params, message)
        return None

    def _listen(self, params: dict[str, Any], message: dict[str, Any]) -> list[Action]:
        """2026-07-28 `subscriptions/listen`: the honored filter, then the timers on that stream
        (their notifications; a server request cannot travel on it)."""
        if not is_modern(message):
            return [_error(-32601, f"Method not found: {LISTEN} (a 2026-07-28 method)")]
        try:
            honored = honored_filter(params.get("notifications"), self.offer.capabilities())
        except ValueError as exc:
            return [_error(-32602, str(exc))]
        found = params.get("_meta")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        listen = Action(
            "listen", {"notifications": honored, "logLevel": meta.get(mcp_types.LOG_LEVEL_META_KEY)}
        )
        timers = [a for a in timer_actions(self.scenario.timers) if a.kind in ("notify", "sleep")]
        return [listen, *timers]

    def _initialize(self, params: dict[str, Any]) -> Action:
        requested = params.get("protocolVersion")
        handshake = [v for v in self.versions if v in HANDSHAKE_PROTOCOL_VERSIONS]
        if not handshake:
            return self._unsupported(requested)
        self.version = requested if requested in handshake else handshake[-1]
        self.client = {
            "protocolVersion": requested,
            "clientInfo": params.get("clientInfo"),
            "capabilities": params.get("capabilities"),
        }
        result: dict[str, Any] = {
            "protocolVersion": self.version,
            "capabilities": self.offer.capabilities(),
            "serverInfo": self.offer.server_info(),
        }
        if self.scenario.instructions:
            result["instructions"] = self.scenario.instructions
        return Action("respond", {"result": result})

    def _recorded(self, item: m.Answer, message: dict[str, Any]) -> list[Action] | None:
        if not item.recording:
            return None
        reaction, miss = self.recordings[item.recording].react(message)
        if reaction is None:
            text = miss.message() if miss else f"no recorded answer in {item.recording}"
            return [_error(-32050, text, miss.data() if miss else None)]
        return list(reaction.actions)

    def _finish(self, item: m.Answer, result: dict[str, Any], message: dict[str, Any]) -> list[Action]:
        recorded = self._recorded(item, message)
        if recorded is not None:
            return recorded
        faults, replaced = _fault_actions(item.fault)
        return faults if replaced else [*faults, Action("respond", {"result": item.result or result})]

    def _tool_call(self, params: dict[str, Any], message: dict[str, Any]) -> list[Action]:
        name = params.get("name")
        tool = self.offer.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            return [_error(-32602, f"Unknown tool: {name}")]
        token = (
            (params.get("_meta") or {}).get("progressToken")
            if isinstance(params.get("_meta"), dict)
            else None
        )
        default = {"content": [{"type": "text", "text": f"{tool.name} done"}]}
        return [
            *step_actions(tool.steps, token),
            *self._finish(tool, default, message),
            *step_actions(tool.after, token),
        ]

    def _read(self, params: dict[str, Any], message: dict[str, Any]) -> list[Action]:
        uri = str(params.get("uri", ""))
        item, _variables = self.offer.resource(uri)
        if item is None:  # 2026-07-28 renumbered it to -32602 (Invalid params)
            code = -32602 if is_modern(message) else -32002
            return [_error(code, f"Resource not found: {uri}", {"uri": uri})]
        content: dict[str, Any] = {"uri": uri, "text": item.text if item.text is not None else ""}
        if item.mimeType:
            content["mimeType"] = item.mimeType
        if isinstance(item, m.Resource) and item.meta:
            content["_meta"] = item.meta
        return self._finish(item, {"contents": [content]}, message)

    def _prompt(self, params: dict[str, Any], message: dict[str, Any]) -> list[Action]:
        name = params.get("name")
        prompt = self.offer.prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            return [_error(-32602, f"Unknown prompt: {name}")]
        result: dict[str, Any] = {"messages": prompt.messages or []}
        if prompt.description:
            result["description"] = prompt.description
        return [*step_actions(prompt.steps), *self._finish(prompt, result, message)]
