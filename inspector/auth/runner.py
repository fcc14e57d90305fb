"""The httpx driver of the sans-IO flow: `OAuth` is an `httpx.Auth` for the MCP connection.

On a 401, or a 403 `insufficient_scope` (step-up), it runs `flow.authorize`:
each leg is sent with a separate httpx client (redirects not followed) and
recorded into the session as an HTTP exchange with `meta.auth_step` (through
the recorder's one redaction step), then the MCP request is retried with the
token. At most `MAX_AUTHORIZATIONS` authorizations per request (a server whose
step-up never succeeds is not asked forever). An expired token is refreshed
first. Tokens and registrations go to the user-only `store.AuthStore`.

The authorization request (its URL, like every URL the server names, checked
by the flow with `urls.check_url` first): with `non_interactive` the runner
follows the AS's redirects itself while they stay on the authorization
endpoint's origin, until one points at the redirect URI, which it does not
fetch (an AS that approves without a person); a redirect elsewhere is an
`off-origin-redirect` failure. Otherwise it prints the URL (escaped), opens
the system browser and waits, bounded, for the loopback listener
(`callback`), told the request's state (`expect`). A leg on another origin
than the MCP server's is said once per origin (`note: ...`).
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import threading
import webbrowser
from collections.abc import AsyncGenerator, Callable, Generator
from typing import Any, cast
from urllib.parse import urljoin, urlsplit

import anyio
import httpx

from inspector.auth import dpop
from inspector.auth.callback import CallbackListener
from inspector.auth.flow import Authorized, FlowInput, authorize, refresh
from inspector.auth.registration import ClientOptions
from inspector.auth.revisions import revision_for
from inspector.auth.steps import HttpRequest, HttpResponse, Step
from inspector.auth.store import AuthStore
from inspector.auth.urls import origin_of, same_origin
from inspector.capture import Tap
from inspector.capture.redact import header_pairs
from inspector.errors import AuthFailure
from inspector.terminal_text import visible
from inspector.transports.http_record import HttpExchange
from inspector.transports.outbound import active, proxy_for

__all__ = ["MAX_AUTHORIZATIONS", "OAuth", "OAuthSettings"]

MAX_AUTHORIZATIONS = 3
MAX_REDIRECTS = 10
_numbers = itertools.count(1)


class OAuthSettings:
    """What `call --auth` was given."""

    def __init__(
        self,
        options: ClientOptions,
        *,
        non_interactive: bool = False,
        wait: float = 300.0,
        store: AuthStore | None = None,
        open_browser: bool = True,
        say: Callable[[str], None] | None = None,
        show_url: Callable[[str], None] | None = None,
    ) -> None:
        self.options = options
        self.non_interactive = non_interactive
        self.wait = wait
        self.store = store or AuthStore()
        self.open_browser = open_browser
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        # Set: the authorization URL goes there instead of to the terminal and system browser
        # (the web UI lists it for the person to open; ui_callback.py).
        self.show_url = show_url


class OAuth(httpx.Auth):
    """Authorization for one MCP server URL, recording its legs into `tap`."""

    requires_response_body = False

    def __init__(
        self,
        settings: OAuthSettings,
        server_url: str,
        protocol_version: str,
        tap: Tap,
        listener: CallbackListener | None = None,
    ) -> None:
        self.settings = settings
        self.server_url = server_url
        self.revision = revision_for(protocol_version)
        self.tap = tap
        self.listener = listener
        self.grant: Authorized | None = settings.store.grant_for(server_url)
        self.steps: list[tuple[Step, HttpResponse | None]] = []  # what ran, for a debugger
        self._origins_said: set[str] = set()  # origins other than the server's, said once each
        self._rs_nonce: str | None = None  # the MCP server's latest DPoP nonce (RFC 9449 9)
        self._lock = anyio.Lock()
        tls = active()
        self._client = httpx.AsyncClient(
            timeout=30.0, verify=tls.ssl_context(), proxy=proxy_for(server_url), trust_env=False
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- httpx.Auth ---------------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("OAuth works with httpx.AsyncClient only")
        yield request  # pragma: no cover

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        async with self._lock:
            if self.grant is not None and self.grant.tokens.expired() and self.grant.tokens.refresh_token:
                await self._refresh()
        attempts = 0
        nonce_retried = False
        while True:
            sent = self.grant.tokens.access_token if self.grant is not None else None
            if sent is not None and self.grant is not None and self.grant.dpop is not None:
                # RFC 9449 7.1: the DPoP scheme and a fresh proof bound to this request and token.
                request.headers["authorization"] = f"DPoP {sent}"
                request.headers["dpop"] = dpop.proof(
                    self.grant.dpop, request.method, str(request.url), access_token=sent, nonce=self._rs_nonce
                )
            elif sent is not None:
                request.headers["authorization"] = f"Bearer {sent}"
            response = yield request
            if response.headers.get("dpop-nonce"):
                self._rs_nonce = response.headers["dpop-nonce"]
            challenge = response.headers.get("www-authenticate")
            if (
                sent is not None
                and not nonce_retried
                and dpop.nonce_challenge(
                    response.status_code, {k.lower(): v for k, v in response.headers.items()}, None
                )
            ):
                nonce_retried = True  # RFC 9449 9: once more with the resource server's nonce
                await response.aread()
                continue
            stepup = response.status_code == 403 and "insufficient_scope" in (challenge or "")
            if response.status_code != 401 and not stepup:
                return
            await response.aread()
            self._record_refused(request, response)
            if attempts >= MAX_AUTHORIZATIONS:
                hint = (
                    ""
                    if self.revision.resource_indicator
                    else f"; {self.revision.name} clients send no `resource` (RFC 8707): a server"
                    " that wants its tokens bound to it refuses theirs"
                )
                self.settings.say(
                    f"authorization: gave up after {attempts} authorizations "
                    f"(the server still answers {response.status_code}{hint})"
                )
                return
            attempts += 1
            async with self._lock:
                now = self.grant.tokens.access_token if self.grant is not None else None
                if response.status_code == 401 and now is not None and now != sent:
                    continue  # a concurrent request refreshed or authorized meanwhile: use that
                if (
                    response.status_code == 401
                    and self.grant is not None
                    and self.grant.tokens.refresh_token
                    and attempts == 1
                    and "authorization" in request.headers
                ):
                    try:
                        await self._refresh()
                        continue
                    except AuthFailure:
                        self.grant = None  # the refresh token is refused too: authorize afresh
                previous = self.grant.scope if (stepup and self.grant is not None) else None
                await self._authorize(challenge, previous)

    # -- driving the flow ---------------------------------------------------------------------------

    async def _authorize(self, challenge: str | None, previous_scope: str | None) -> None:
        listener = self.listener
        redirect_uri = listener.redirect_uri if listener else "http://127.0.0.1/callback"
        flow = authorize(
            FlowInput(
                self.server_url,
                challenge,
                self.revision,
                redirect_uri,
                self.settings.options,
                self.settings.store.clients(),
                previous_scope,
            )
        )
        self.grant = await self._drive(flow)
        self.settings.store.save(self.server_url, self.grant)

    async def _refresh(self) -> None:
        assert self.grant is not None
        self.grant = await self._drive(refresh(self.grant, self.revision))
        self.settings.store.save(self.server_url, self.grant)

    async def _drive(self, flow: Generator[Step, HttpResponse | None, Authorized]) -> Authorized:
        answer: HttpResponse | None = None
        try:
            while True:
                step = flow.send(answer)
                if step.request is None:
                    answer = None
                elif step.name == "authorization-request":
                    answer = await self._authorization(step)
                else:
                    answer = await self._send(step, step.request)
                self.steps.append((step, answer))
        except StopIteration as done:
            return cast(Authorized, done.value)  # typeshed: StopIteration.value is Any

    def _say_origin(self, step: Step, url: str) -> None:
        """Tell the person once per origin when a leg goes off the MCP server's origin: legitimate
        (an identity provider elsewhere), but theirs to see."""
        there = origin_of(url)
        if there is None or same_origin(url, self.server_url) or there in self._origins_said:
            return
        self._origins_said.add(there)
        self.settings.say(
            f"note: {step.name} is on {visible(there)}, not on the MCP server's origin "
            f"{visible(origin_of(self.server_url) or self.server_url)}"
        )

    async def _send(self, step: Step, req: HttpRequest) -> HttpResponse:
        """Make one leg's request and record it (request and response) with its step name."""
        self._say_origin(step, req.url)
        url = httpx.URL(req.url)
        ex = HttpExchange(
            self.tap, -(1 << 40) - next(_numbers), req.method, url.path, url.query.decode("latin-1")
        )
        headers = [(k.encode(), v.encode()) for k, v in req.headers.items()]
        meta: dict[str, Any] = {
            "auth_step": step.name,
            "auth_origin": f"{url.scheme}://{url.netloc.decode()}",
        }
        ex.tap.submit_message(
            "c2s",
            "http-request",
            req.body,
            ts_ns=ex.started,
            jsonrpc=False,
            http_method=req.method,
            http_path=ex.path,
            http_headers=header_pairs(headers),
            meta={"exchange": ex.number, **meta},
        )
        try:
            response = await self._client.request(req.method, req.url, headers=req.headers, content=req.body)
        except httpx.HTTPError as exc:
            ex.record(
                "s2c", "http-response", b"", jsonrpc=False, problem=f"{type(exc).__name__}: {exc}", **meta
            )
            raise AuthFailure(step.name, "unreachable", f"{req.method} {req.url} failed: {exc}") from None
        ex.status = response.status_code
        ex.response_headers = header_pairs(response.headers.raw)
        ex.record("s2c", "http-response", response.content, head=True, jsonrpc=False, **meta)
        return HttpResponse(
            response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content
        )

    async def _authorization(self, step: Step) -> HttpResponse:
        """The authorization request (its URL checked by the flow, `urls.check_url`): followed here
        with --auth-non-interactive, else handed to the person's browser."""
        assert step.request is not None
        redirect_uri = self.listener.redirect_uri if self.listener else "http://127.0.0.1/callback"
        self._say_origin(step, step.request.url)
        if self.settings.non_interactive:
            return await self._follow(step, redirect_uri)
        assert self.listener is not None
        self.listener.expect(step.request.url)
        if self.settings.show_url is not None:
            self.settings.show_url(step.request.url)
        else:
            self.settings.say(
                "Authorize in your browser; if it does not open, visit:\n  " + visible(step.request.url)
            )
        if self.settings.open_browser and self.settings.show_url is None:
            # In a thread: some browser commands ($BROWSER) only return when the page is done,
            # and the listener must answer the redirect meanwhile.
            threading.Thread(target=_open_browser, args=(step.request.url,), daemon=True).start()
        received = await self.listener.wait(self.settings.wait)
        if received is None:
            raise AuthFailure(
                step.name,
                "no-callback",
                f"no authorization came back to {redirect_uri} within {self.settings.wait:g} s",
            )
        self._record_browser_leg(step, received)
        return HttpResponse(302, {"location": received})

    async def _follow(self, step: Step, redirect_uri: str) -> HttpResponse:
        """--auth-non-interactive: follow the AS's redirects while they stay on the authorization
        endpoint's origin, and stop at (never fetch) the redirect URI."""
        assert step.request is not None
        url = step.request.url
        for _ in range(MAX_REDIRECTS):
            response = await self._send(step, HttpRequest("GET", url))
            location = response.header("location")
            if response.status not in (301, 302, 303, 307, 308) or not location:
                raise AuthFailure(
                    step.name,
                    "needs-a-person",
                    f"the authorization endpoint answered {response.status} instead of redirecting "
                    "back: it wants a person; run without --auth-non-interactive",
                )
            url = urljoin(url, location)
            if _same_endpoint(url, redirect_uri):
                return HttpResponse(302, {"location": url})
            if not same_origin(url, step.request.url):
                raise AuthFailure(
                    step.name,
                    "off-origin-redirect",
                    f"the authorization server redirected to '{visible(url)}', neither the redirect "
                    f"URI nor its own origin {visible(origin_of(step.request.url) or '')}; not followed",
                )
        raise AuthFailure(step.name, "too-many-redirects", f"more than {MAX_REDIRECTS} redirects")

    def _record_browser_leg(self, step: Step, received: str) -> None:
        """The authorization request the browser made and the redirect it came back with (as a
        `Location`), recorded like the other legs (the query's code and state are redacted)."""
        assert step.request is not None
        url = httpx.URL(step.request.url)
        ex = HttpExchange(self.tap, -(1 << 40) - next(_numbers), "GET", url.path, url.query.decode("latin-1"))
        meta: dict[str, Any] = {
            "auth_step": step.name,
            "auth_origin": f"{url.scheme}://{url.netloc.decode()}",
            "via": "browser",
        }
        ex.tap.submit_message(
            "c2s",
            "http-request",
            b"",
            ts_ns=ex.started,
            jsonrpc=False,
            http_method="GET",
            http_path=ex.path,
            http_headers=[],
            meta={"exchange": ex.number, **meta},
        )
        ex.status = 302
        ex.response_headers = [["Location", received]]
        ex.record("s2c", "http-response", b"", head=True, jsonrpc=False, **meta)

    def _record_refused(self, request: httpx.Request, response: httpx.Response) -> None:
        """The MCP request the server refused (401/403), as an exchange of its own."""
        url = request.url
        ex = HttpExchange(
            self.tap, -(1 << 40) - next(_numbers), request.method, url.path, url.query.decode("latin-1")
        )
        step = "step-up" if response.status_code == 403 else "unauthorized"
        meta: dict[str, Any] = {"auth_step": step}
        ex.tap.submit_message(
            "c2s",
            "http-request",
            request.content,
            ts_ns=ex.started,
            jsonrpc=False,
            http_method=request.method,
            http_path=ex.path,
            http_headers=header_pairs(request.headers.raw),
            meta={"exchange": ex.number, **meta},
        )
        ex.status = response.status_code
        ex.response_headers = header_pairs(response.headers.raw)
        ex.record("s2c", "http-response", response.content, head=True, jsonrpc=False, **meta)


def _open_browser(url: str) -> None:
    with contextlib.suppress(webbrowser.Error):
        webbrowser.open(url)


def _same_endpoint(url: str, redirect_uri: str) -> bool:
    a, b = urlsplit(url), urlsplit(redirect_uri)
    return (a.scheme, a.netloc, a.path) == (b.scheme, b.netloc, b.path)
