"""OAuth from the web UI: the guided debugger's flows, the authorizations waiting for the browser,
and the callback route the authorization server redirects the browser to.

`/api/auth/...` sits behind the token like every `/api` route. `/oauth/callback`
cannot: it is the browser's top-level GET redirect from the authorization
server, which carries no token and no Origin of ours. What authenticates it
is the `state` it brings back, a random value bound to one pending
authorization and forgotten at first use (`auth/ui_callback.py`); the Host
check of the one listener guard still applies, and the page it answers
holds nothing but a sentence.
"""

from __future__ import annotations

from typing import Any, Literal, cast
from urllib.parse import urlsplit

import anyio
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlalchemy import Engine

from inspector.api.deps import json_response, run_query, state_of
from inspector.auth.guided import GuidedFlow, session_name
from inspector.auth.registration import ClientOptions
from inspector.auth.runner import OAuth, OAuthSettings
from inspector.auth.ui_callback import CALLBACK_PATH, PendingAuthorizations, UiListener
from inspector.capture import Recorder, Tap
from inspector.capture.redact import active
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter

__all__ = ["AuthFlows", "OAuthOptions", "connect_auth", "router"]

router = APIRouter(tags=["auth"])
_UNKNOWN: dict[int | str, dict[str, Any]] = {404: {"description": "no such flow"}}
MAX_FLOWS = 20  # guided flows kept (each an idle task); the oldest go, finished ones first

_RECEIVED = (
    "<!doctype html><meta charset=utf-8><title>mcp-inspect: authorization received</title>"
    "<p id=outcome>Authorization received: you can close this tab and go back to the inspector."
)
_UNKNOWN_STATE = (
    "<!doctype html><meta charset=utf-8><title>mcp-inspect: unknown authorization</title>"
    "<p id=outcome>No authorization is waiting for this state: it was used already, it timed out, "
    "or it was not started from this inspector."
)


class OAuthOptions(BaseModel):
    """What the CLI's `--auth` options say: a pre-registered client, a Client ID Metadata Document
    URL, the scope (each optional: by default the client registers itself, RFC 7591)."""

    model_config = ConfigDict(extra="forbid")
    client_id: str | None = Field(default=None, max_length=2000)
    client_secret: str | None = Field(default=None, max_length=2000)
    client_metadata_url: str | None = Field(default=None, max_length=2000)
    scope: str | None = Field(default=None, max_length=2000)

    @field_validator("client_id", "client_secret", "client_metadata_url", "scope")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator("client_metadata_url")
    @classmethod
    def _https_document(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError("the client metadata document URL must be an absolute https:// URL")
        return value

    @model_validator(mode="after")
    def _secret_needs_id(self) -> OAuthOptions:
        if self.client_secret and not self.client_id:
            raise ValueError("a client secret needs its client id")
        return self

    def client_options(self) -> ClientOptions:
        return ClientOptions(self.client_id, self.client_secret, self.client_metadata_url, self.scope)


class FlowCreate(BaseModel):
    """A guided authorization of `url` under the rules of `revision`."""

    model_config = ConfigDict(extra="forbid")
    url: str = Field(max_length=2000, description="the MCP server's http:// or https:// URL")
    revision: Literal["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] = "2025-11-25"
    auth: OAuthOptions = Field(default_factory=OAuthOptions)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("the URL must be an absolute http:// or https:// URL")
        return value.strip()


class FlowStepOut(BaseModel):
    name: str
    expects: str
    spec: str
    status: Literal["ok", "waiting", "failed"]
    request: dict[str, Any] | None = Field(description="method, url, headers, body (secrets redacted)")
    response: dict[str, Any] | None = Field(description="status, headers, body (secrets redacted)")
    note: str | None
    problems: list[dict[str, Any]] = Field(description="expectations that failed without ending the flow")
    failure: dict[str, Any] | None


class FlowOut(BaseModel):
    """A guided flow: its steps so far and where it stands."""

    id: str
    server_url: str
    revision: str
    session_id: int
    state: Literal["ready", "paused", "running", "waiting-browser", "done", "failed"]
    steps: list[FlowStepOut]
    failure: dict[str, Any] | None = Field(description="step, expectation (an AuthFailure id), message, spec")
    authorization_url: str | None = Field(description="to open in a new tab while waiting for the browser")
    redirect_uri: str


class PendingOut(BaseModel):
    id: str
    url: str
    server_url: str
    purpose: str
    created: float


class PendingList(BaseModel):
    items: list[PendingOut]


class AuthFlows:
    """The UI process's guided flows and the authorizations waiting for the browser."""

    def __init__(self) -> None:
        self.pending = PendingAuthorizations()
        self.flows: dict[str, GuidedFlow] = {}
        self.oauths: list[OAuth] = []  # of UI connections, closed with the app
        self._recorder: Recorder | None = None  # one for every flow (one database connection)

    def recorder(self, engine: Engine) -> Recorder:
        if self._recorder is None:
            self._recorder = Recorder([StoreWriter(engine)], redaction=active()).start()
        return self._recorder

    def add(self, flow: GuidedFlow) -> list[GuidedFlow]:
        """Keep `flow`; beyond MAX_FLOWS the oldest go (finished ones first), to be closed."""
        self.flows[flow.id] = flow
        excess = len(self.flows) - MAX_FLOWS
        if excess <= 0:
            return []
        ordered = sorted(self.flows.values(), key=lambda f: (f.state not in ("done", "failed"), f.created))
        dropped = ordered[:excess]
        for f in dropped:
            del self.flows[f.id]
        return dropped

    async def aclose(self) -> None:
        for flow in list(self.flows.values()):
            await flow.aclose()
        self.flows.clear()
        for oauth in self.oauths:
            await oauth.aclose()
        self.oauths.clear()
        if self._recorder is not None:
            recorder, self._recorder = self._recorder, None
            await anyio.to_thread.run_sync(lambda: recorder.stop(timeout=10))


def flows_of(request: Request) -> AuthFlows:
    return cast(AuthFlows, request.app.state.auth_flows)


def redirect_uri(request: Request) -> str:
    """The UI server's callback URL, on the origin the page uses (its Host passed the guard)."""
    return str(request.base_url).rstrip("/") + CALLBACK_PATH


def connect_auth(
    request: Request, url: str, protocol_version: str, options: OAuthOptions, wait: float
) -> Any:
    """The `ClientConfig.auth` factory of a UI connection: the runner, with the UI's callback route."""
    flows = flows_of(request)
    callback = redirect_uri(request)

    def make(tap: Tap) -> OAuth:
        listener = UiListener(flows.pending, callback, url)
        settings = OAuthSettings(
            options.client_options(), wait=wait, open_browser=False, show_url=listener.announce
        )
        oauth = OAuth(settings, url, protocol_version, tap, listener)
        flows.oauths.append(oauth)
        return oauth

    return make


def _flow(request: Request, flow_id: str) -> GuidedFlow:
    flow = flows_of(request).flows.get(flow_id)
    if flow is None:
        raise HTTPException(404, f"no authorization flow {flow_id!r}")
    return flow


@router.get(CALLBACK_PATH, include_in_schema=False)
async def oauth_callback(request: Request) -> HTMLResponse:
    """The authorization server's redirect: handed to the authorization its state names, once."""
    pending = flows_of(request).pending.deliver(request.url.query)
    headers = {"cache-control": "no-store", "referrer-policy": "no-referrer"}
    if pending is None:
        return HTMLResponse(_UNKNOWN_STATE, status_code=400, headers=headers)
    return HTMLResponse(_RECEIVED, headers=headers)


@router.get(
    "/api/auth/pending",
    response_model=PendingList,
    summary="Authorizations waiting for the browser (open `url` in a new tab)",
)
async def list_pending(request: Request) -> Response:
    return json_response({"items": [p.to_json() for p in flows_of(request).pending.items()]})


@router.post(
    "/api/auth/flows",
    response_model=FlowOut,
    status_code=201,
    summary="Start a guided authorization (recorded as a mock-client session); it waits at its first step",
)
async def create_flow(request: Request, body: FlowCreate) -> Response:
    flows = flows_of(request)
    engine = state_of(request).engine
    session_id = await run_query(
        create_session,
        engine,
        kind="mock-client",
        target=body.url,
        name=session_name(body.revision),
        redaction=active(),
    )
    flow = GuidedFlow(
        flows.recorder(engine),
        session_id,
        body.url,
        body.revision,
        body.auth.client_options(),
        flows.pending,
        redirect_uri(request),
    )
    for old in flows.add(flow):
        await old.aclose()
    flow.start()
    await flow.settled(5.0)  # it reaches its first gate at once
    return json_response(flow.to_json(), status_code=201)


@router.get("/api/auth/flows/{flow_id}", response_model=FlowOut, responses=_UNKNOWN)
async def get_flow(request: Request, flow_id: str) -> Response:
    return json_response(_flow(request, flow_id).to_json())


@router.post(
    "/api/auth/flows/{flow_id}/next",
    response_model=FlowOut,
    summary="Run the next step; returns when the flow waits again (next step, browser, or the end)",
    responses=_UNKNOWN,
)
async def next_step(request: Request, flow_id: str) -> Response:
    flow = _flow(request, flow_id)
    await flow.advance(all_steps=False)
    return json_response(flow.to_json())


@router.post(
    "/api/auth/flows/{flow_id}/run",
    response_model=FlowOut,
    summary="Run every remaining step; returns at the end or while it waits for the browser",
    responses=_UNKNOWN,
)
async def run_all(request: Request, flow_id: str) -> Response:
    flow = _flow(request, flow_id)
    await flow.advance(all_steps=True)
    return json_response(flow.to_json())


@router.delete("/api/auth/flows/{flow_id}", status_code=204, responses=_UNKNOWN)
async def delete_flow(request: Request, flow_id: str) -> Response:
    flow = flows_of(request).flows.pop(flow_id, None)
    if flow is None:
        raise HTTPException(404, f"no authorization flow {flow_id!r}")
    await flow.aclose()
    return Response(status_code=204)
