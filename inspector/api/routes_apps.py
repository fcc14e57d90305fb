"""MCP Apps from recordings: the session's App tools and `ui://` resources, a recorded call's view.

- `GET /api/sessions/{id}/apps`: tools declaring a view, recorded `ui://` resources,
  recorded calls of view tools (what the session page lists).
- `POST /api/sessions/{id}/apps/views`: prepare the view of one recorded call: its
  recorded input and result for the host bridge, the iframe's `sandbox`/`allow`,
  the view's CSP, and a single-use `view_url` serving the HTML.
- `POST /api/sessions/{id}/apps/answer`: what the recording answers to a request
  of the view (tools/call with the same tool and arguments, resources/read of the
  same URI), or `answered: false`.
- `POST /api/clients/{id}/apps/views`: the same for a live mock client (the Client
  page): the view's HTML read now through the client (`resources/read`, recorded
  in its session like any request); the view's own calls then go to the live
  server through `POST /api/clients/{id}/request`.
- `GET /app-view/{cap}`: the view document, once, with its own CSP (see
  `inspector.apps.policy`) instead of the UI's; outside /api because the iframe
  navigation carries no token and the view must never hold it: the capability id
  is the authorisation (`inspector.apps.grants`). Host and Origin are still
  checked by the listener guard like every request.

The threat model: docs/decisions/0018-app-views-sandboxed.md and docs/security.md.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from inspector.api.deps import run_query, state_of
from inspector.api.headers import OWN_POLICY_PREFIX
from inspector.api.params import SqlInt
from inspector.apps import APP_MIME_TYPE, ViewGrant, ViewGrants
from inspector.apps.catalog import AppCatalog, AppRequest, ui_meta
from inspector.apps.policy import view_policy
from inspector.apps.store import catalog_of
from inspector.store import get_session

__all__ = ["VIEW_PREFIX", "router"]

VIEW_PREFIX = OWN_POLICY_PREFIX  # the security headers keep these answers' own policy
router = APIRouter(tags=["apps"])


class AppTool(BaseModel):
    name: str
    resource_uri: str
    visibility: list[str] | None = None
    declaration: dict[str, Any] = Field(description="the tool as the recorded tools/list gave it")


class AppResource(BaseModel):
    uri: str
    name: str | None = None
    mime_type: str | None = None
    list_seq: int | None = Field(None, description="seq of the resources/list that listed it")
    read_seq: int | None = Field(None, description="seq of the newest resources/read of it")
    has_html: bool = Field(description="whether the recording holds its HTML (a resources/read answer)")
    ui: dict[str, Any] = Field(description="its `_meta.ui` (csp, permissions, domain, prefersBorder)")


class AppCall(BaseModel):
    seq: int = Field(description="the tools/call request's seq")
    answer_seq: int | None = None
    tool: str
    resource_uri: str
    arguments: dict[str, Any]
    status: Literal["result", "error", "unanswered"]


class AppsOut(BaseModel):
    session_id: int
    tools: list[AppTool]
    resources: list[AppResource]
    calls: list[AppCall]


class ViewGrantsIn(BaseModel):
    """What the user allowed for this one view (nothing by default)."""

    grant_sources: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="declared CSP sources held back (loopback, private network, not https) to keep anyway",
    )
    grant_permissions: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="declared permissions (camera, microphone, geolocation, clipboardWrite) to pass into `allow`",
    )


class AppViewIn(ViewGrantsIn):
    seq: SqlInt = Field(description="seq of a recorded tools/call of a tool that declares a view")


class AppAskOut(BaseModel):
    """One thing the view's `_meta.ui` asks for, and what the inspector did with it."""

    key: Literal["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains", "permissions"]
    value: str
    status: Literal["kept", "held", "granted", "dropped"] = Field(
        description="kept: in the policy; held: left out until the user grants it for this view "
        "(`reason`); granted: the user allowed it; dropped: malformed, never kept"
    )
    reason: str | None = None


class AppViewOut(BaseModel):
    seq: int
    tool: dict[str, Any] = Field(description="the tool's recorded declaration")
    resource_uri: str
    arguments: dict[str, Any] = Field(description="the recorded tool input (ui/notifications/tool-input)")
    result: dict[str, Any] | None = Field(description="the recorded result (ui/notifications/tool-result)")
    error: dict[str, Any] | None = Field(description="the recorded JSON-RPC error, when the call failed")
    view_url: str = Field(description="single-use URL of the view document (valid 60 s)")
    sandbox: str = Field(description="the iframe sandbox attribute")
    allow: str = Field(description="the iframe allow attribute ('' when no permission is declared)")
    csp: str = Field(description="the view document's Content-Security-Policy")
    dropped_sources: list[str] = Field(description="declared CSP domains refused as malformed")
    asks: list[AppAskOut] = Field(
        description="what the view asked for (sources, permissions) and what was kept"
    )
    ui: dict[str, Any] = Field(description="the resource's `_meta.ui`")


class AppAnswerIn(BaseModel):
    method: str = Field(max_length=200)
    params: dict[str, Any] | None = None


class AppAnswerOut(BaseModel):
    answered: bool
    seq: int | None = Field(None, description="seq of the recorded request that answers it")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    reason: str | None = Field(None, description="why it is unanswered")


def grants_of(request: Request) -> ViewGrants:
    state = request.app.state
    if not hasattr(state, "app_views"):
        state.app_views = ViewGrants()
    grants: ViewGrants = state.app_views
    return grants


async def _catalog(request: Request, session_id: int, *, view_calls_only: bool = False) -> AppCatalog:
    engine = state_of(request).engine
    await run_query(get_session, engine, session_id)
    catalog: AppCatalog = await run_query(catalog_of, engine, session_id, view_calls_only=view_calls_only)
    return catalog


def _status(call: AppRequest) -> Literal["result", "error", "unanswered"]:
    return "result" if call.result is not None else "error" if call.error is not None else "unanswered"


@router.get(
    "/api/sessions/{session_id}/apps", response_model=AppsOut, summary="MCP Apps of a recorded session"
)
async def apps_route(request: Request, session_id: SqlInt) -> AppsOut:
    cat = await _catalog(request, session_id, view_calls_only=True)  # the answer lists view calls only
    tools = []
    for name, decl in cat.tools.items():
        vis = ui_meta(decl).get("visibility")
        tools.append(
            AppTool(
                name=name,
                resource_uri=cat.view_uri(name) or "",
                visibility=[str(v) for v in vis] if isinstance(vis, list) else None,
                declaration=decl,
            )
        )
    known = dict(cat.resources)  # a copy: the catalog is cached (apps.store)
    for t in tools:  # a view named by a tool but never listed still shows (from the read, or as missing)
        known.setdefault(t.resource_uri, {"uri": t.resource_uri})
    resources = []
    for uri, entry in known.items():
        listed = entry.get("listed") or {}
        item = cat.content(uri)
        ui = ui_meta(item) or ui_meta(listed)
        resources.append(
            AppResource(
                uri=uri,
                name=listed.get("name") if isinstance(listed.get("name"), str) else None,
                mime_type=(item or listed).get("mimeType")
                if isinstance((item or listed).get("mimeType"), str)
                else None,
                list_seq=entry.get("list_seq"),
                read_seq=entry.get("read_seq"),
                has_html=isinstance((item or {}).get("text"), str),
                ui=ui,
            )
        )
    calls = [
        AppCall(
            seq=c.seq,
            answer_seq=c.answer_seq,
            tool=str(c.params.get("name")),
            resource_uri=cat.view_uri(str(c.params.get("name"))) or "",
            arguments=c.params.get("arguments") if isinstance(c.params.get("arguments"), dict) else {},
            status=_status(c),
        )
        for c in cat.view_calls()
    ]
    return AppsOut(session_id=session_id, tools=tools, resources=resources, calls=calls)


@router.post(
    "/api/sessions/{session_id}/apps/views",
    response_model=AppViewOut,
    summary="Prepare the App view of a recorded tool call (single-use view URL)",
)
async def view_route(request: Request, session_id: SqlInt, body: AppViewIn) -> AppViewOut:
    cat = await _catalog(request, session_id)
    call = cat.call(body.seq)
    if call is None:
        raise HTTPException(404, f"message {body.seq} of session {session_id} is not a recorded tools/call")
    name = str(call.params.get("name"))
    uri = cat.view_uri(name)
    if uri is None:
        raise HTTPException(
            400, f"tool {name!r} declares no App view (_meta.ui.resourceUri) in this recording"
        )
    item = cat.content(uri)
    if item is None:
        raise HTTPException(
            400,
            f"the recording has no resources/read answer with the HTML of {uri}: the view cannot be shown",
        )
    listed = cat.resources.get(uri, {}).get("listed") or {}
    view = _grant(request, item, uri, ui_meta(listed), body)
    args = call.params.get("arguments")
    return AppViewOut(
        seq=call.seq,
        tool=cat.tools[name],
        arguments=args if isinstance(args, dict) else {},
        result=call.result,
        error=call.error,
        **view.model_dump(),
    )


class LiveViewIn(ViewGrantsIn):
    uri: str = Field(
        max_length=2000, description="the view's ui:// resource (the tool's _meta.ui.resourceUri)"
    )


class LiveViewOut(BaseModel):
    resource_uri: str
    view_url: str = Field(description="single-use URL of the view document (valid 60 s)")
    sandbox: str
    allow: str
    csp: str
    dropped_sources: list[str]
    asks: list[AppAskOut]
    ui: dict[str, Any]


def _grant(
    request: Request, item: dict[str, Any], uri: str, listed_ui: dict[str, Any], grants: ViewGrantsIn
) -> LiveViewOut:
    """A single-use view of `item` (a resources/read content item of `uri`)."""
    if not isinstance(item.get("text"), str):
        raise HTTPException(400, f"{uri} has no text content: a host renders no such view")
    mime = item.get("mimeType")
    if isinstance(mime, str) and mime.replace(" ", "").lower() != APP_MIME_TYPE:
        raise HTTPException(
            400, f"{uri} was read as {mime!r}, not {APP_MIME_TYPE!r}: a host renders no such view"
        )
    ui = ui_meta(item) or listed_ui
    policy = view_policy(
        ui,
        f"http://{request.headers.get('host', '127.0.0.1')}",
        granted_sources=set(grants.grant_sources),
        granted_permissions=set(grants.grant_permissions),
    )
    cap = grants_of(request).add(ViewGrant(html=item["text"], csp=policy.csp))
    return LiveViewOut(
        resource_uri=uri,
        view_url=VIEW_PREFIX + cap,
        sandbox="allow-scripts",
        allow=policy.allow,
        csp=policy.csp,
        dropped_sources=policy.dropped,
        asks=[AppAskOut.model_validate(a, from_attributes=True) for a in policy.asks],
        ui=ui,
    )


@router.post(
    "/api/clients/{client_id}/apps/views",
    response_model=LiveViewOut,
    summary="Prepare the App view of a live mock client's tool (reads the ui:// resource now)",
    responses={
        409: {"description": "the client is not connected"},
        502: {"description": "the server failed"},
    },
)
async def live_view_route(request: Request, client_id: str, body: LiveViewIn) -> LiveViewOut:
    from inspector.api.routes_client import _call, _connected

    if not body.uri.startswith("ui://"):
        raise HTTPException(400, f"an App view is a ui:// resource, not {body.uri!r}")
    hosted = _connected(request, client_id)
    response = await _call(hosted.client.request("resources/read", {"uri": body.uri}))
    result = response.get("result") if isinstance(response, dict) else None
    if not isinstance(result, dict):
        error = response.get("error") if isinstance(response, dict) else None
        raise HTTPException(502, f"the server did not give {body.uri}: {error or response}")
    items = [
        c for c in result.get("contents") or [] if isinstance(c, dict) and c.get("uri", body.uri) == body.uri
    ]
    if not items:
        raise HTTPException(502, f"the server's resources/read answer holds no content of {body.uri}")
    return _grant(request, items[0], body.uri, {}, body)


@router.post(
    "/api/sessions/{session_id}/apps/answer",
    response_model=AppAnswerOut,
    summary="The recording's answer to a request an App view makes of its host",
)
async def answer_route(request: Request, session_id: SqlInt, body: AppAnswerIn) -> AppAnswerOut:
    cat = await _catalog(request, session_id)
    if body.method not in ("tools/call", "resources/read"):
        return AppAnswerOut(answered=False, reason=f"{body.method} is not answered from a recording")
    found = cat.answer(body.method, body.params or {})
    if found is None:
        what = (
            f"tool {(body.params or {}).get('name')!r} with these arguments"
            if body.method == "tools/call"
            else f"resource {(body.params or {}).get('uri')!r}"
        )
        return AppAnswerOut(answered=False, reason=f"the recording has no {body.method} of {what}")
    return AppAnswerOut(answered=True, seq=found.seq, result=found.result, error=found.error)


@router.get(VIEW_PREFIX + "{cap}", include_in_schema=False)
async def view_document(request: Request, cap: str) -> Response:
    grant = grants_of(request).take(cap) if len(cap) <= 64 else None
    if grant is None:
        return Response(
            "no such view (a view URL works once, for 60 seconds)",
            status_code=404,
            media_type="text/plain",
            headers={"cache-control": "no-store"},
        )
    return Response(
        grant.html,
        media_type="text/html; charset=utf-8",
        headers={"content-security-policy": grant.csp, "cache-control": "no-store"},
    )
