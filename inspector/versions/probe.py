"""Probe a server once per protocol revision: the IO half of the version matrix.

Each revision gets its own connection through `MockClient` (the handshake it
needs: `initialize`, or `server/discover` with the per-request `_meta` of
2026-07-28), recorded as a `mock-client` session named `versions <revision>`.
All sessions of one invocation carry the label `versions:<run id>` (and
`revision:<revision>`), which is how a past run is found again.

The probe lists what the server declared (`matrix.declared_lists`, following
`nextCursor`), then, if asked, sends the client requests of a recorded
session again (the replay plan of `inspector.replay.plan`, its echoed
cursors substituted; handshake messages, notifications and the client's
answers are not re-sent, and the old envelope in `_meta` is dropped so the
probed revision's own is used; `[secret:NAME]` placeholders of the recording
are filled from the given secrets or $MCP_INSPECTOR_SECRET_NAME, as a replay
does, and the values put back are redacted in the probe's own recording).
Server requests get the answers `mcp-inspect call` gives: sampling refused,
elicitation declined, no roots.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types
import orjson
from sqlalchemy import Engine

from inspector.auth.connect import AuthRequest, authorizer
from inspector.capture.redact import Secrets
from inspector.errors import ConnectionClosed, InspectorError, ResponseTimeout
from inspector.mock.client import ClientConfig, MockClient, Responder
from inspector.replay.plan import ReplayPlan, Substitutions, plan_replay
from inspector.store.models import Message
from inspector.store.queries import update_session
from inspector.versions.matrix import HANDSHAKE_METHODS, MAX_PAGES, declared_lists, next_cursor

__all__ = ["RESPONDERS", "VersionsRun", "new_run_id", "probe_revision", "run_label", "run_versions"]

_ENVELOPE = frozenset(
    {
        mcp_types.PROTOCOL_VERSION_META_KEY,
        mcp_types.CLIENT_INFO_META_KEY,
        mcp_types.CLIENT_CAPABILITIES_META_KEY,
    }
)
RESPONDERS = {
    "sampling/createMessage": Responder("reject"),
    "elicitation/create": Responder("fixed", {"action": "decline"}),
    "roots/list": Responder("fixed", {"roots": []}),
}


def new_run_id() -> str:
    return secrets.token_hex(4)


def run_label(run_id: str) -> str:
    """The label every session of one versions run carries."""
    return f"versions:{run_id}"


@dataclass
class VersionsRun:
    run_id: str
    target: list[str] | str
    sessions: dict[str, int] = field(default_factory=dict)  # revision -> session id
    missing_secrets: list[str] = field(default_factory=list)  # placeholders sent unfilled


async def probe_revision(
    engine: Engine,
    target: Sequence[str] | str,
    revision: str,
    *,
    run_id: str,
    timeout: float = 30.0,
    replay_rows: list[Message] | None = None,
    headers: dict[str, str] | None = None,
    secrets: Secrets | None = None,
    auth: AuthRequest | None = None,
) -> int:
    """Connect under `revision`, probe, optionally replay; return the recorded session's id.

    `secrets` fill the recording's placeholders (default: from the environment); its `missing`
    then names those that were sent as they are."""
    filler = secrets or Secrets({}, os.environ)
    plan = filled_plan(replay_rows, filler) if replay_rows else None
    config = ClientConfig(
        target=target if isinstance(target, str) else list(target),
        protocol_version=revision,
        timeout=timeout,
        responders=dict(RESPONDERS),
        headers=dict(headers or {}),
        name=f"versions {revision}",
    )
    client = MockClient(engine, config, secrets=filler)
    reason = "versions probe finished"
    try:
        async with contextlib.AsyncExitStack() as stack:
            if auth is not None and isinstance(target, str):  # each revision's own OAuth rules
                config.auth = await stack.enter_async_context(authorizer(auth, target, revision))
            async with anyio.create_task_group() as tg:
                try:
                    first = await client.start(tg)
                    if isinstance(first.get("result"), dict):
                        await _list_all(client, first["result"].get("capabilities"))
                        if plan is not None:
                            await _replay(client, plan)
                except Exception as exc:  # noqa: BLE001 - recorded as the session's end reason
                    reason = _describe(exc)
                    if _closed(exc) and (note := await client.exit_note()):
                        reason = f"{reason}: the server {note}"
                finally:
                    await client.close(reason)
                    tg.cancel_scope.cancel()
    except Exception as exc:  # noqa: BLE001 - a connection task that failed: the session shows it
        reason = _describe(exc)
    if client.session_id is None:
        raise RuntimeError(f"the probe of {revision} recorded no session: {reason}")
    update_session(engine, client.session_id, labels=[run_label(run_id), f"revision:{revision}"])
    return client.session_id


async def _list_all(client: MockClient, capabilities: Any) -> None:
    for method, _key in declared_lists(capabilities):
        params: dict[str, Any] = {}
        for _page in range(MAX_PAGES):
            try:
                response = await client.request(method, params)
            except ResponseTimeout:
                break
            cursor = next_cursor(response)
            if cursor is None:
                break
            params = {"cursor": cursor}


def filled_plan(rows: list[Message], secrets: Secrets) -> ReplayPlan:
    """The replay plan of a recording, its client messages' placeholders filled from `secrets`."""
    plan = plan_replay(rows)
    for step in plan.steps:
        step.raw = secrets.bytes(step.raw)
    return plan


async def _replay(client: MockClient, plan: ReplayPlan) -> None:
    subs = Substitutions()
    for step in plan.steps:
        if not step.request_ids or step.method in HANDSHAKE_METHODS:
            continue
        try:
            message = orjson.loads(subs.apply(step.raw))
        except orjson.JSONDecodeError:
            continue
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            continue  # a batch: not sent by a single-request client
        params = _without_envelope(message.get("params"))
        if "inputResponses" in params and message["method"] != "tasks/update":
            continue  # a 2026-07-28 retry: MockClient.request makes its own (tasks/update: the answer itself)
        try:
            response = await client.request(message["method"], params)
        except ResponseTimeout:
            continue
        subs.learn(plan.responses.get(step.request_ids[0]), response)


def _without_envelope(params: Any) -> dict[str, Any]:
    """Params without the recorded client's revision envelope in `_meta`."""
    out = dict(params) if isinstance(params, dict) else {}
    meta = out.get("_meta")
    if isinstance(meta, dict):
        kept = {k: v for k, v in meta.items() if k not in _ENVELOPE}
        if kept:
            out["_meta"] = kept
        else:
            out.pop("_meta")
    return out


async def run_versions(
    engine: Engine,
    target: Sequence[str] | str,
    revisions: Sequence[str],
    *,
    timeout: float = 30.0,
    replay_rows: list[Message] | None = None,
    headers: dict[str, str] | None = None,
    on_progress: Callable[[str], None] | None = None,
    run_id: str | None = None,
    secrets: Mapping[str, str] | None = None,
    auth: AuthRequest | None = None,
) -> VersionsRun:
    """Probe every revision in turn (one connection each); the sessions are linked by the run's label.

    `secrets` (lower-case name -> value, as `--secret` gives them) fill the replayed recording's
    placeholders before $MCP_INSPECTOR_SECRET_NAME does; `missing_secrets` names the unfilled."""
    run = VersionsRun(run_id or new_run_id(), target if isinstance(target, str) else list(target))
    filler = Secrets(secrets or {}, os.environ)
    for i, revision in enumerate(revisions):
        if on_progress is not None:
            on_progress(f"probing {revision} ({i + 1}/{len(revisions)})")
        run.sessions[revision] = await probe_revision(
            engine,
            target,
            revision,
            run_id=run.run_id,
            timeout=timeout,
            replay_rows=replay_rows,
            headers=headers,
            secrets=filler,
            auth=auth,
        )
    run.missing_secrets = list(filler.missing)
    return run


def _closed(exc: BaseException) -> bool:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return isinstance(exc, ConnectionClosed | OSError)


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ConnectionClosed | OSError):
        return str(exc) or type(exc).__name__
    if isinstance(exc, InspectorError):  # e.g. an AuthFailure: its message says it all
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
