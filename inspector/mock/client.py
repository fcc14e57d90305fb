"""The inspector as an MCP client under the user's hands (mock client), for the API and `mcp-inspect call`.

Connects to a command or URL (recorded as a session of kind `mock-client`),
performs the handshake the chosen revision needs (`initialize` +
`notifications/initialized` for 2024-11-05 .. 2025-11-25 or a custom
string; `server/discover` and the per-request `_meta` envelope for
2026-07-28), then sends what the user asks.

Server-to-client requests (sampling, roots, elicitation, ping) land in an
inbox. Each method has a responder (`mock/responders.py`): `manual` (a person
answers through the API, with a live timer and its own timeout), `fixed`,
`reject` or `recorded` (the answer from a recorded session). Answered and
timed-out items stay in `history` (the answer, who gave it, the latency). The
workspace keeps a roots list (answers `roots/list`; editing it sends
`notifications/roots/list_changed` when `roots.listChanged` was declared) and
the URL-mode elicitations it has seen (`mock/elicitations.py`). Under
2026-07-28 the same requests arrive inside `input_required` results; the
client answers them through the same inbox and re-sends the original request
with `inputResponses` and the echoed `requestState`, as one exchange.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from inspector import __version__
from inspector.capture import Recorder, Tap
from inspector.capture.redact import Secrets, active, missing_command_secrets_message
from inspector.capture.sessions import open_session
from inspector.endpoint import Endpoint
from inspector.errors import MissingSecretsError, RequestError
from inspector.mock.elicitations import UrlElicitations
from inspector.mock.inflight import Requests
from inspector.mock.listen import Listens
from inspector.mock.responders import Responder, automatic_answer
from inspector.mock.tracking import TASKS_EXTENSION, Activity, InFlight
from inspector.protocol import id_key, mcp_tables
from inspector.protocol.mcp_tables import CLIENT_REQUESTS, MODERN_PROTOCOL_VERSIONS
from inspector.store import StoreWriter
from inspector.transports.connect import Connection, StdioConnection, open_connection

if TYPE_CHECKING:
    import httpx

    from inspector.store.db import Store

__all__ = ["ClientConfig", "InboxItem", "MockClient", "Responder"]

DEFAULT_CAPABILITIES: dict[str, Any] = {
    "roots": {"listChanged": True},
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
}
INPUT_ROUNDS = 8  # input_required rounds before giving up (a server that never finishes)
RELIST_PAGES = (
    20  # the tools/list walk after a HeaderMismatch: a paginator that never ends cannot hang a call
)
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022
HISTORY = 200  # answered / timed-out inbox items kept


@dataclass
class ClientConfig:
    target: Sequence[str] | str
    protocol_version: str = "2025-11-25"
    client_info: dict[str, Any] = field(
        default_factory=lambda: {"name": "mcp-inspector", "version": __version__}
    )
    capabilities: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_CAPABILITIES))
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    responders: dict[str, Responder] = field(default_factory=dict)
    name: str | None = None
    inbox_timeout: float | None = None  # how long an inbox item waits for a person (default: `timeout`)
    roots: list[dict[str, Any]] | None = None  # the workspace's roots; None: roots/list goes to the inbox
    # OAuth for an HTTP target: given the session's tap, the httpx.Auth to connect with
    # (inspector/auth/runner.py); None: no authorization beyond `headers`.
    auth: Callable[[Tap], httpx.Auth] | None = None

    @property
    def stateless(self) -> bool:
        return self.protocol_version in MODERN_PROTOCOL_VERSIONS


@dataclass
class InboxItem:
    """A server-to-client request waiting for an answer."""

    key: str  # JSON-RPC id text, or `input:<request id>:<key>` inside an input_required result
    method: str
    params: Any
    received: float = field(default_factory=time.time)
    done: anyio.Event = field(default_factory=anyio.Event)
    answer: dict[str, Any] | None = None  # {"result": ...} or {"error": ...}
    problems: list[str] = field(default_factory=list)  # what the server's request breaks in the spec
    by: str | None = None  # who answered: person, fixed, reject, recorded (...), auto (...), timeout
    answered_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        end = self.answered_at or time.time()
        return {
            "key": self.key,
            "method": self.method,
            "params": self.params,
            "received": self.received,
            "waiting_s": round(end - self.received, 3),
            "answered": self.answer is not None and self.by != "timeout",
            "problems": self.problems,
        }

    def settle(self, by: str, answer: dict[str, Any] | None) -> None:
        self.by, self.answer, self.answered_at = by, answer, time.time()

    def history_json(self) -> dict[str, Any]:
        return {**self.to_json(), "by": self.by, "answer": self.answer, "answered_at": self.answered_at}


Listener = Callable[[str, dict[str, Any]], Awaitable[None]]


class MockClient:
    """One connection of the mock client; use inside `async with` or call `start`/`close`."""

    def __init__(
        self,
        engine: Store,
        config: ClientConfig,
        *,
        listener: Listener | None = None,
        secrets: Secrets | None = None,
    ) -> None:
        self.engine = engine
        self.config = config
        self.listener = listener
        # What fills `[secret:NAME]` placeholders (default: the environment); the values it has
        # put back, here or in messages its owner filled before `start`, are redacted again.
        self.secrets = secrets
        self.session_id: int | None = None
        self.server_result: dict[str, Any] | None = None  # initialize or discover result
        self.inbox: dict[str, InboxItem] = {}
        self.notifications: list[dict[str, Any]] = []
        self.history: deque[InboxItem] = deque(maxlen=HISTORY)
        self.elicitations = UrlElicitations()
        self.endpoint: Endpoint | None = None
        self._recorder: Recorder | None = None
        self._writer: StoreWriter | None = None  # the recorder's connection, closed after it stops
        self._tap: Tap | None = None
        self._conn: Connection | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._progress = itertools.count(1)
        self.activity = Activity()
        self.requests: Requests | None = None  # requests in flight, cancel
        self.listens = Listens(self)  # 2026-07-28 subscriptions/listen

    async def start(self, tg: anyio.abc.TaskGroup) -> dict[str, Any]:
        """Connect and perform the handshake; return the server's initialize/discover response.

        A target or header copied from a recording may hold `[secret:NAME]` placeholders: they are
        filled from `MCP_INSPECTOR_SECRET_<NAME>`, and the values put back are redacted again. A
        command whose placeholders are not all known is not started (`MissingSecretsError`)."""
        secrets = self.secrets or Secrets({}, os.environ)
        raw_target = self.config.target
        if not isinstance(raw_target, str) and (unknown := secrets.unknown(raw_target)):
            # A server started with a placeholder for its key fails in confusing ways: say so instead.
            raise MissingSecretsError(missing_command_secrets_message(unknown))
        target = (
            secrets.text(raw_target) if isinstance(raw_target, str) else [secrets.text(t) for t in raw_target]
        )
        headers = {k: secrets.text(v) for k, v in (self.config.headers or {}).items()}
        redaction = active().with_values(secrets.used)
        self._writer = StoreWriter(self.engine)
        self._recorder = Recorder([self._writer], redaction=redaction).start()
        self._tap = open_session(
            self._recorder, self.engine, kind="mock-client", target=target, name=self.config.name
        )
        self.session_id = self._tap.session_id
        self._tg = tg
        auth = self.config.auth(self._tap) if self.config.auth and isinstance(target, str) else None
        self._conn = await open_connection(target, self._tap, tg, headers=headers, auth=auth)
        self.endpoint = Endpoint(
            self._conn, on_request=self._on_server_request, on_notification=self._on_notification
        )
        await tg.start(self.endpoint.serve)
        self.requests = Requests(
            self.endpoint, self._conn, self.activity, self._emit, tg, stateless=self.config.stateless
        )
        return await self._handshake()

    async def exit_note(self) -> str | None:
        """How a stdio server that went away ended ("exited with status 3; ..."), else None."""
        if isinstance(self._conn, StdioConnection):
            return (await self._conn.exit_note())[1]
        return None

    async def close(self, reason: str = "closed") -> None:
        status = None
        if self._conn is not None:
            status = await self._conn.aclose()
        if self._tap is not None:
            self._tap.end(status, reason)
        if self._recorder is not None:
            self._recorder.stop()
        if self._writer is not None:  # everything written: close it now, not when collected
            self._writer.close()
            self._writer = None

    async def _handshake(self) -> dict[str, Any]:
        assert self.endpoint is not None
        if self.config.stateless:
            response = await self.endpoint.request(
                "server/discover", self._envelope({}), timeout=self.config.timeout
            )
            if (retry := _supported_instead(response, self.config.protocol_version)) is not None:
                # UnsupportedProtocolVersion names the revisions the server speaks: retry once with
                # one we speak too (basic/versioning, "Version Negotiation").
                self.config.protocol_version = retry
                response = await self.endpoint.request(
                    "server/discover", self._envelope({}), timeout=self.config.timeout
                )
        else:
            params = {
                "protocolVersion": self.config.protocol_version,
                "capabilities": self.config.capabilities,
                "clientInfo": self.config.client_info,
            }
            response = await self.endpoint.request("initialize", params, timeout=self.config.timeout)
            version = (response.get("result") or {}).get("protocolVersion")
            if isinstance(version, str) and hasattr(self._conn, "learn_protocol_version"):
                self._conn.learn_protocol_version(version)  # type: ignore[union-attr]
            if "result" in response:
                await self.endpoint.notify("notifications/initialized")
        self.server_result = response
        self._learn_features(response)
        return response

    def _learn_features(self, response: dict[str, Any]) -> None:
        result = response.get("result") if isinstance(response.get("result"), dict) else {}
        assert isinstance(result, dict)
        caps = result.get("capabilities")
        self.activity.features.capabilities = caps if isinstance(caps, dict) else {}
        version = self.negotiated_version
        methods = frozenset(m for (m, v) in CLIENT_REQUESTS if v == version)
        self.activity.features.methods = methods or None

    @property
    def negotiated_version(self) -> str:
        """The revision in use: the server's answer to initialize, else the one offered."""
        result = (self.server_result or {}).get("result")
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        return (
            version
            if isinstance(version, str) and not self.config.stateless
            else self.config.protocol_version
        )

    def _capabilities(self) -> dict[str, Any]:
        """The per-request client capabilities: with the tasks extension once the server offered it
        (a server returns task handles only to a client that declared the extension)."""
        caps = self.config.capabilities
        if not self.activity.features.tasks_extension or TASKS_EXTENSION in (caps.get("extensions") or {}):
            return caps
        return {**caps, "extensions": {**(caps.get("extensions") or {}), TASKS_EXTENSION: {}}}

    def _envelope(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """Add the 2026-07-28 per-request `_meta` (protocol version, client info, capabilities)."""
        out = dict(params or {})
        meta = dict(out.get("_meta") or {})
        meta.setdefault(mcp_tables.PROTOCOL_VERSION_META_KEY, self.config.protocol_version)
        meta.setdefault(mcp_tables.CLIENT_INFO_META_KEY, self.config.client_info)
        meta.setdefault(mcp_tables.CLIENT_CAPABILITIES_META_KEY, self._capabilities())
        if self.activity.log_level is not None:  # 2026-07-28: log delivery is opted in to per request
            meta.setdefault(mcp_tables.LOG_LEVEL_META_KEY, self.activity.log_level)
        out["_meta"] = meta
        return out

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        progress: bool = False,
        timeout: float | None = None,
        rpc_id: Any = None,
    ) -> dict[str, Any]:
        """Send a request; follow `input_required` rounds; return the final response message."""
        assert self.requests is not None
        params = dict(params or {})
        if progress:
            params.setdefault("_meta", {})["progressToken"] = f"p{next(self._progress)}"
        if self.config.stateless:
            params = self._envelope(params)
        response = await self.requests.send(method, params, timeout or self.config.timeout, rpc_id)
        if method == "tools/call" and self.config.stateless and _header_mismatch(response):
            # 2026-07-28 Client Behavior: the tool's x-mcp-header arguments were not known (or have
            # changed): list the tools again (the connection learns their schemas), then retry once.
            await self._relist_tools(timeout or self.config.timeout)
            response = await self.requests.send(method, params, timeout or self.config.timeout)
        for _round in range(INPUT_ROUNDS):
            result = response.get("result")
            if not isinstance(result, dict) or result.get("resultType") != "input_required":
                return response
            answers = await self._answer_input_requests(
                str(response.get("id")), result.get("inputRequests") or {}
            )
            retry = {**params, "inputResponses": answers}
            if "requestState" in result:
                retry["requestState"] = result["requestState"]
            response = await self.requests.send(method, retry, timeout or self.config.timeout)
        return response

    async def _relist_tools(self, timeout: float) -> None:
        """Walk tools/list (at most RELIST_PAGES pages): the HTTP connection learns each tool's schema."""
        assert self.requests is not None
        cursor: str | None = None
        for _page in range(RELIST_PAGES):
            params = self._envelope({"cursor": cursor} if cursor else {})
            answer = await self.requests.send("tools/list", params, timeout)
            result = answer.get("result")
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str):
                return

    async def cancel(self, key: str, reason: str | None = None) -> InFlight:
        """Cancel a request in flight (see `Requests.cancel`)."""
        assert self.requests is not None
        return await self.requests.cancel(key, reason)

    async def _answer_input_requests(self, rid: str, requests: dict[str, Any]) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        for key, request in requests.items():
            if not isinstance(request, dict):
                continue
            item = InboxItem(f"input:{rid}:{key}", str(request.get("method")), request.get("params"))
            answer = await self._resolve(item)
            # An input response carries the result itself; a refusal has no standard shape, send the error.
            answers[key] = answer.get("result") if "result" in answer else {"error": answer.get("error")}
        return answers

    async def _on_server_request(self, request: dict[str, Any]) -> Any:
        item = InboxItem(id_key(request.get("id")), str(request.get("method")), request.get("params"))
        answer = await self._resolve(item)
        if "error" in answer:
            err = answer["error"] or {}
            raise RequestError(err.get("code", -1), err.get("message", "rejected"), err.get("data"))
        return answer.get("result")

    async def _resolve(self, item: InboxItem) -> dict[str, Any]:
        """Answer a server request with its responder, or wait for a person (at most `inbox_timeout`)."""
        # Imported here: a call whose server asks the client nothing never checks a request (start-up).
        from inspector.protocol.client_answers import check_request

        item.problems = [
            f.describe() for f in check_request(item.method, item.params, self.config.capabilities)
        ]
        if item.method == "elicitation/create":
            self.elicitations.from_request(item.params)
        responder = self.config.responders.get(item.method)
        auto = automatic_answer(self.engine, responder, item.method, item.params, self.config.roots)
        if auto is not None:
            item.settle(*auto)
        else:
            self.inbox[item.key] = item
            await self._emit("inbox", item.to_json())
            with anyio.move_on_after(self.config.inbox_timeout or self.config.timeout):
                await item.done.wait()
            self.inbox.pop(item.key, None)
            if item.answer is None:
                item.settle("timeout", {"error": {"code": -32001, "message": "nobody answered in time"}})
                await self._emit("inbox-timeout", item.to_json())
        assert item.answer is not None
        if item.method == "elicitation/create":
            self.elicitations.answered(item.params, item.answer)
        self.history.append(item)
        if item.by not in ("person", "timeout"):
            await self._emit("inbox-auto", item.history_json())
        return item.answer

    def answer(self, key: str, *, result: Any = None, error: dict[str, Any] | None = None) -> bool:
        """A person answered an inbox item; False when no such item is waiting."""
        item = self.inbox.get(key)
        if item is None or item.answer is not None:
            return False
        item.settle("person", {"error": error} if error is not None else {"result": result})
        item.done.set()
        return True

    async def set_roots(self, roots: Any) -> bool:
        """Replace the workspace's roots (validated); True when `notifications/roots/list_changed` was sent."""
        from inspector.protocol.client_answers import valid_roots

        self.config.roots = valid_roots(roots)
        roots_cap = self.config.capabilities.get("roots")
        if not (isinstance(roots_cap, dict) and roots_cap.get("listChanged")) or self.endpoint is None:
            return False
        await self.endpoint.notify("notifications/roots/list_changed")
        return True

    async def note_response(self, method: str, params: Any, response: Any) -> None:
        """Keep the URL elicitations a -32042 error asks for, with the request to retry."""
        found = self.elicitations.from_response(method, params, response)
        if found:
            await self._emit("elicitations", {"items": [e.to_json() for e in found]})

    async def _on_notification(self, notification: dict[str, Any]) -> None:
        self.elicitations.on_notification(notification)
        self.notifications.append(notification)
        await self._emit("notification", notification)
        observed = self.activity.notification(notification, time.time())
        if observed is not None:
            if observed[0] == "listen":
                self.listens.poke()
            await self._emit(*observed)

    async def _emit(self, kind: str, payload: dict[str, Any]) -> None:
        if self.listener is not None:
            await self.listener(kind, payload)


def _header_mismatch(response: dict[str, Any]) -> bool:
    error = response.get("error")
    return isinstance(error, dict) and error.get("code") == HEADER_MISMATCH


def _supported_instead(response: dict[str, Any], offered: str) -> str | None:
    """The revision to offer instead when the server refused `offered` with UnsupportedProtocolVersion
    (-32022) and listed, in `data.supported`, a stateless revision we speak; else None."""
    error = response.get("error")
    if not isinstance(error, dict) or error.get("code") != UNSUPPORTED_PROTOCOL_VERSION:
        return None
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return None
    ours = [v for v in MODERN_PROTOCOL_VERSIONS if v in supported]
    if not ours:
        return None
    # The newest we share; the one offered again when the server lists it (it refused a request, not the revision).
    return offered if offered in ours else ours[-1]
