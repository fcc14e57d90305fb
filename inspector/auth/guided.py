"""The guided authorization debugger: the flow of one revision run one step at a time, or all at once.

A `GuidedFlow` drives the same sans-IO `flow.authorize` the connections use,
framed by the MCP requests around it: the request without a token (the 401
and its `WWW-Authenticate`), the flow's steps (resource metadata, AS
metadata, registration or metadata document, PKCE, the authorization request
in a new browser tab coming back to the UI's callback route, the token
request) and the request with the token. Each HTTP leg is sent and recorded
by the runner (`OAuth._send`, so into the flow's own `mock-client` session as
an HTTP exchange with `meta.auth_step`); what the UI is shown of it passes
through the same redaction step as the recording. A failed expectation ends
the flow with its `AuthFailure` id. The tokens go to the user-only auth file
(`store.AuthStore`), where a later Connect finds them.

The driver is one task per flow; before each step it waits at a gate that
`advance` opens once ("Next step") or for good ("Run all"). `advance` returns
when the flow next settles: paused at the gate, waiting for the browser, or
ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any, cast

import anyio
import orjson

from inspector import __version__
from inspector.auth import dpop
from inspector.auth.flow import Authorized, FlowInput, authorize
from inspector.auth.registration import ClientOptions
from inspector.auth.revisions import revision_for
from inspector.auth.runner import OAuth, OAuthSettings
from inspector.auth.steps import HttpRequest, HttpResponse, Step
from inspector.auth.store import AuthStore
from inspector.auth.ui_callback import PendingAuthorizations, UiListener
from inspector.capture import Recorder
from inspector.capture.redact import Redaction
from inspector.errors import AuthFailure
from inspector.store.models import MessageRow

__all__ = ["GuidedFlow", "session_name"]

_ids = itertools.count(1)
BROWSER_WAIT = 600.0  # seconds the authorization request waits for the person
_SPEC_401 = "protected-resource-metadata-discovery-requirements"
_LOCAL_NOTES = {
    "pkce": "a fresh code_verifier, kept by the inspector and never recorded; its SHA-256 "
    "(code_challenge, method S256) goes in the authorization request",
    "registration": "the client_id is the metadata document's URL (no registration request)",
    "default-endpoints": "no metadata: the default /authorize, /token and /register at the server's origin",
}


def session_name(protocol_version: str) -> str:
    """The name of a guided flow's recorded session."""
    return f"OAuth flow {revision_for(protocol_version).name}"


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _row(channel: str, raw: bytes, path: str | None, headers: list[list[str]]) -> MessageRow:
    """A message row as the recorder builds it, for the display's redaction."""
    return cast(
        MessageRow,
        {
            "session_id": 0,
            "seq": 0,
            "ts_ns": 0,
            "direction": "c2s" if channel == "http-request" else "s2c",
            "channel": channel,
            "raw": raw,
            "size": len(raw),
            "parse_status": "not-jsonrpc",
            "kind": "http",
            "method": None,
            "rpc_id": None,
            "error_code": None,
            "answers_seq": None,
            "latency_ns": None,
            "http_method": None,
            "http_path": path,
            "http_status": None,
            "http_headers": headers,
            "sse_event_id": None,
            "meta": None,
            "lint": None,
        },
    )


class GuidedFlow:
    """One guided authorization of `server_url` under one revision's rules."""

    def __init__(
        self,
        recorder: Recorder,
        session_id: int,
        server_url: str,
        protocol_version: str,
        options: ClientOptions,
        registry: PendingAuthorizations,
        redirect_uri: str,
        store: AuthStore | None = None,
    ) -> None:
        """`session_id`: a new `mock-client` session the flow records into, through `recorder`
        (one recorder serves every flow of a process: `session_name` names the session)."""
        self.id = f"f{next(_ids)}"
        self.server_url = server_url
        self.protocol_version = protocol_version
        self.revision = revision_for(protocol_version)
        self.options = options
        self.created = time.time()
        self.session_id = session_id
        # the session's own rules: the recorder's plus a per-server rule's names (capture/sessions.py)
        own = recorder.redaction.for_server(session_name(protocol_version), server_url)
        self._tap = recorder.open(session_id, redaction=own)
        redaction = recorder.redaction
        self._display: Redaction = redaction.with_values(
            {"client_secret": options.client_secret} if options.client_secret else {}
        )
        self.listener = UiListener(registry, redirect_uri, server_url, purpose="guided")
        settings = OAuthSettings(
            options,
            store=store or AuthStore(),
            open_browser=False,
            wait=BROWSER_WAIT,
            show_url=self._show_url,
            say=self._note,
        )
        self.oauth = OAuth(settings, server_url, self.revision.name, self._tap, self.listener)
        self.state = "ready"  # ready | paused | running | waiting-browser | done | failed
        self.steps: list[dict[str, Any]] = []
        self.failure: dict[str, Any] | None = None
        self.authorization_url: str | None = None
        self.auto = False
        self._challenge: str | None = None
        self._go = anyio.Event()
        self._settled = anyio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- control ------------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"guided OAuth {self.id}")

    async def advance(self, *, all_steps: bool, timeout: float = 60.0) -> None:
        """Run the next step (or every step), and return once the flow settles again."""
        if self.state in ("done", "failed"):
            return
        self.auto = self.auto or all_steps
        if self.state in ("ready", "paused"):  # at its gate: open it
            self._settled = anyio.Event()
            self._go.set()
        # Else it is running a step or waiting for the browser: wait for that (the gate stays
        # shut, so a "Next step" sent meanwhile does not also run the step after it).
        with anyio.move_on_after(timeout):
            await self._settled.wait()

    async def settled(self, timeout: float) -> None:
        """Wait (bounded) until the flow waits at its gate, for the browser, or has ended."""
        with anyio.move_on_after(timeout):
            await self._settled.wait()

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        await self.oauth.aclose()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "server_url": self.server_url,
            "revision": self.revision.name,
            "session_id": self.session_id,
            "state": self.state,
            "steps": self.steps,
            "failure": self.failure,
            "authorization_url": self.authorization_url if self.state == "waiting-browser" else None,
            "redirect_uri": self.listener.redirect_uri,
        }

    # -- the driver ---------------------------------------------------------------------------------

    def _settle(self, state: str) -> None:
        self.state = state
        self._settled.set()

    async def _gate(self) -> None:
        if not self.auto:
            self._settle("paused")
            await self._go.wait()
        self._go = anyio.Event()
        self.state = "running"

    def _note(self, text: str) -> None:
        """What the runner says during a step (a leg on another origin) goes into that step's note."""
        if self.steps:
            last = self.steps[-1]
            last["note"] = f"{last['note']} {text}" if last["note"] else text

    def _show_url(self, url: str) -> None:
        self.listener.announce(url)
        self.authorization_url = url
        self._settle("waiting-browser")

    async def _run(self) -> None:
        reason = "authorized"
        try:
            await self._unauthorized()
            grant = await self._flow()
            await self._authenticated(grant)
            self._settle("done")
        except AuthFailure as failure:
            self._failed(failure)
            reason = f"failed: {failure}"
        except asyncio.CancelledError:
            reason = "closed"
            raise
        except Exception as exc:  # noqa: BLE001 - shown as the flow's failure, never a 500
            self._failed(AuthFailure(self.steps[-1]["name"] if self.steps else "start", "error", str(exc)))
            reason = f"failed: {exc}"
        finally:
            self._tap.end(None, reason)
            self._settled.set()

    def _failed(self, failure: AuthFailure) -> None:
        self.failure = {
            "step": failure.step,
            "expectation": failure.expectation,
            "message": str(failure),
            "spec": failure.spec,
        }
        last = self.steps[-1] if self.steps else None
        if last is not None and last["name"] == failure.step:
            last["status"] = "failed"
            last["failure"] = self.failure
        else:  # a check of its own (e.g. the authorization response): a step that failed
            self.steps.append(
                {
                    "name": failure.step,
                    "expects": "",
                    "spec": failure.spec,
                    "status": "failed",
                    "request": None,
                    "response": None,
                    "note": None,
                    "problems": [],
                    "failure": self.failure,
                }
            )
        self._settle("failed")

    def _mcp_request(self, token: str | None, key: dict[str, Any] | None = None) -> HttpRequest:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": self.protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "mcp-inspector", "version": __version__},
            },
        }
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if token is not None and key is not None:  # a DPoP-bound token (RFC 9449 7.1)
            headers["authorization"] = f"DPoP {token}"
            headers["dpop"] = dpop.proof(key, "POST", self.server_url, access_token=token)
        elif token is not None:
            headers["authorization"] = f"Bearer {token}"
        return HttpRequest("POST", self.server_url, headers, orjson.dumps(body))

    async def _unauthorized(self) -> None:
        await self._gate()
        step = Step(
            "unauthorized",
            "the MCP request without a token gets 401 with a WWW-Authenticate Bearer challenge "
            "(resource_metadata, scope)",
            self._mcp_request(None),
            self.revision.section(_SPEC_401) if self.revision.protected_resource_metadata else "",
        )
        response = await self._leg(step)
        if response.status not in (401, 403):
            raise AuthFailure(
                "unauthorized",
                "not-protected",
                f"the server answered {response.status} without a token: it does not ask for authorization",
                step.spec,
            )
        self._challenge = response.header("www-authenticate")
        if not self._challenge and self.revision.protected_resource_metadata:
            self.steps[-1]["problems"].append(
                {
                    "expectation": "missing-www-authenticate",
                    "message": f"the {response.status} has no WWW-Authenticate header: the client "
                    "falls back to the well-known URLs",
                    "spec": step.spec,
                }
            )

    async def _flow(self) -> Authorized:
        options = self.oauth.settings.options
        store = self.oauth.settings.store
        flow = authorize(
            FlowInput(
                self.server_url,
                self._challenge,
                self.revision,
                self.listener.redirect_uri,
                options,
                store.clients(),
            )
        )
        answer: HttpResponse | None = None
        while True:
            try:
                step = flow.send(answer)
            except StopIteration as done:
                grant: Authorized = done.value
                store.save(self.server_url, grant)
                return grant
            await self._gate()
            if step.request is None:
                answer = None
                self._add(step, None, None, note=_LOCAL_NOTES.get(step.name))
            elif step.name == "authorization-request":
                self._add(step, self._request_view(step.request), None, note="opens in a new tab")
                self.steps[-1]["status"] = "waiting"
                answer = await self.oauth._authorization(step)
                self.authorization_url = None
                location = answer.header("location") or ""
                self.steps[-1]["status"] = "ok"
                self.steps[-1]["response"] = self._response_view(
                    HttpResponse(302, {"location": location}), [["Location", location]]
                )
                self.state = "running"
            else:
                answer = await self._leg(step)

    async def _authenticated(self, grant: Authorized) -> None:
        await self._gate()
        step = Step(
            "authenticated-request",
            f"the MCP request with the access token (Authorization: {'DPoP' if grant.dpop else 'Bearer'}) is served",
            self._mcp_request(grant.tokens.access_token, grant.dpop),
            self.revision.section("access-token-usage"),
        )
        self._display = self._display.with_values({"access_token": grant.tokens.access_token})
        response = await self._leg(step)
        if response.status >= 400:
            hint = (
                ""
                if self.revision.resource_indicator
                else f"; {self.revision.name} clients send no `resource` (RFC 8707): a server that"
                " binds its tokens to itself refuses theirs"
            )
            raise AuthFailure(
                "authenticated-request",
                "token-not-accepted",
                f"the server answered {response.status} to the request with the new token{hint}",
                step.spec,
            )

    async def _leg(self, step: Step) -> HttpResponse:
        assert step.request is not None
        self._add(step, self._request_view(step.request), None)
        response = await self.oauth._send(step, step.request)
        self.steps[-1]["response"] = self._response_view(response, list(map(list, response.headers.items())))
        return response

    def _add(
        self,
        step: Step,
        request: dict[str, Any] | None,
        response: dict[str, Any] | None,
        note: str | None = None,
    ) -> None:
        self.steps.append(
            {
                "name": step.name,
                "expects": step.expects,
                "spec": step.spec,
                "status": "ok",
                "request": request,
                "response": response,
                "note": note,
                "problems": [],
                "failure": None,
            }
        )

    def _request_view(self, req: HttpRequest) -> dict[str, Any]:
        row = _row("http-request", req.body, req.url, [[k, v] for k, v in req.headers.items()])
        self._display.row(row)
        return {
            "method": req.method,
            "url": row["http_path"],
            "headers": row["http_headers"],
            "body": _text(row["raw"]),
        }

    def _response_view(self, response: HttpResponse, headers: list[list[str]]) -> dict[str, Any]:
        row = _row("http-response", response.body, None, headers)
        self._display.row(row)
        return {"status": response.status, "headers": row["http_headers"], "body": _text(row["raw"])}
