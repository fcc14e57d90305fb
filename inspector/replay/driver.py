"""Re-drive a server with a recorded client: the IO half of replay.

Opens a fresh connection (stdio command or URL), recorded as a new session
of kind `replay` linked to the original, and walks the `ReplayPlan`:
wait for the responses the original client had seen, send the next client
message verbatim (with learned substitutions), answer the server's requests
from the recording. Returns the new session's id.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from sqlalchemy import Engine

from inspector.auth.connect import DEFAULT_REVISION, AuthRequest, authorizer
from inspector.capture import Recorder
from inspector.capture.redact import Secrets, active
from inspector.capture.sessions import open_session
from inspector.endpoint import Endpoint
from inspector.errors import ConnectionClosed, InspectorError, RequestError, ResponseTimeout
from inspector.replay.load import Load, LoadRun, Progress, drive_load, split_handshake
from inspector.replay.matching import MatchPolicy
from inspector.replay.plan import Substitutions, plan_replay, recorded_secret_headers
from inspector.store import StoreWriter, iter_messages
from inspector.store.models import Session
from inspector.transports.connect import StdioConnection, open_connection

__all__ = ["ReplayOutcome", "run_replay"]


@dataclass
class ReplayOutcome:
    session_id: int
    sent: int = 0
    timeouts: list[str] = field(default_factory=list)  # request ids that got no answer
    unmatched_server_requests: list[str] = field(default_factory=list)
    missing_secrets: list[str] = field(default_factory=list)
    error: str | None = None
    load: LoadRun | None = None  # what a load replay's sender saw


async def run_replay(
    engine: Engine,
    original: Session,
    target: Sequence[str] | str,
    *,
    timeout: float = 30.0,
    policy: MatchPolicy | None = None,
    headers: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    name: str | None = None,
    auth: AuthRequest | None = None,
    load: Load | None = None,
    progress: Progress | None = None,
) -> ReplayOutcome:
    """Replay `original` against `target` and record it; the outcome names what went wrong, if anything.

    Secrets redacted at record time (`[secret:NAME]` placeholders in credential headers, in a URL
    target's query, in message bodies) are put back from `secrets` or the environment
    (`MCP_INSPECTOR_SECRET_<NAME>`); `headers` add to or override the recorded ones. The replay's
    own recording redacts the values it put back. With `auth` (a URL target) a 401 starts the
    OAuth flow of the recording's revision; its legs are recorded in the replay's session.

    With `load` the handshake is replayed as above and the rest is sent at its pace (`replay.load`,
    `progress` told of each message done); the outcome's `load` says what the sender saw."""
    assert original.id is not None
    rows = list(iter_messages(engine, original.id))
    plan = plan_replay(rows, policy)
    filler = Secrets(secrets or {}, os.environ)
    for step in plan.steps:
        step.raw = filler.bytes(step.raw)
    skip = frozenset({"authorization"}) if auth is not None else frozenset()
    headers = {**recorded_secret_headers(rows, filler, skip), **(headers or {})}
    target = filler.text(target) if isinstance(target, str) else [filler.text(t) for t in target]
    redaction = active().with_values(filler.used)
    recorder = Recorder([StoreWriter(engine)], redaction=redaction).start()
    tap = open_session(
        recorder,
        engine,
        kind="replay",
        target=target,
        name=name or f"replay of #{original.id}",
        parent_id=original.id,
    )
    session_id = tap.session_id
    outcome = ReplayOutcome(session_id, missing_secrets=filler.missing)
    subs = Substitutions()

    async def on_request(request: dict[str, Any]) -> Any:
        method = request.get("method", "")
        found, answer = plan.answers.take(method, request.get("params"))
        if found:
            if "error" in answer:
                err = answer["error"]
                raise RequestError(err.get("code", -32603), err.get("message", ""), err.get("data"))
            return answer.get("result")
        if method == "ping":
            return {}
        outcome.unmatched_server_requests.append(method)
        miss = plan.answers.miss(method, request.get("params"))
        raise RequestError(-32601, miss.message(), miss.data())

    status: int | None = None
    try:
        async with contextlib.AsyncExitStack() as stack:
            oauth = None
            if auth is not None and isinstance(target, str):
                revision = original.protocol_version or DEFAULT_REVISION
                oauth = (await stack.enter_async_context(authorizer(auth, target, revision)))(tap)
            async with anyio.create_task_group() as tg:
                conn = await open_connection(target, tap, tg, headers=headers, auth=oauth)
                endpoint = Endpoint(conn, on_request=on_request)
                await tg.start(endpoint.serve)
                try:
                    steps, rest = (plan.steps, []) if load is None else split_handshake(plan.steps)
                    for step in steps:
                        await _await(endpoint, step.await_ids, plan.responses, subs, conn, timeout, outcome)
                        await endpoint.send_raw(subs.apply(step.raw))
                        outcome.sent += 1
                    if load is None:
                        await _await(endpoint, plan.final_await, plan.responses, subs, conn, timeout, outcome)
                    else:
                        # The handshake's answers not awaited yet (an `initialize` before nothing).
                        awaited = {rid for step in steps for rid in step.await_ids}
                        asked = [rid for step in steps for rid in step.request_ids if rid not in awaited]
                        await _await(endpoint, asked, plan.responses, subs, conn, timeout, outcome)
                        outcome.load = await drive_load(
                            load, rest, endpoint, subs.apply, timeout=timeout, progress=progress
                        )
                        outcome.sent += outcome.load.sent
                    status = await conn.aclose()
                except ConnectionClosed as exc:
                    # Still inside the task group, so the stderr reader can finish: the server's own
                    # words and exit status say why far better than "closed before the response".
                    status, outcome.error = await _explain(conn, exc)
                tg.cancel_scope.cancel()
    except (ConnectionClosed, OSError) as exc:
        outcome.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - a replay that cannot run is reported, not a traceback
        outcome.error = _describe(exc)
    finally:
        tap.end(status, outcome.error or "replay finished")
        recorder.stop()
    return outcome


async def _await(
    endpoint: Endpoint,
    ids: list[str],
    originals: dict[str, Any],
    subs: Substitutions,
    conn: Any,
    timeout: float,
    outcome: ReplayOutcome,
) -> None:
    for rid in ids:
        try:
            response = await endpoint.response(rid, timeout=timeout)
        except ResponseTimeout:
            outcome.timeouts.append(rid)
            continue
        subs.learn(originals.get(rid), response)
        version = (
            (response.get("result") or {}).get("protocolVersion") if isinstance(response, dict) else None
        )
        if isinstance(version, str) and hasattr(conn, "learn_protocol_version"):
            conn.learn_protocol_version(version)


async def _explain(conn: Any, exc: ConnectionClosed) -> tuple[int | None, str]:
    """The exit status of a stdio server that went away, and an error naming it and its stderr."""
    if not isinstance(conn, StdioConnection):
        return None, str(exc)
    status, note = await conn.exit_note()
    return status, f"{exc}: the server {note}" if note else str(exc)


def _describe(exc: BaseException) -> str:
    """The innermost real error of a task-group failure, in one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, InspectorError):  # e.g. an AuthFailure: its message says it all
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
