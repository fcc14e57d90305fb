"""`mcp-inspect call`'s body: connect, perform the handshake the revision needs, send one request
and print its answer as JSON; the session is recorded (kind `mock-client`).

`run_call(CallOptions(...))` is the composition root the command calls (`inspector/cli/call.py`
reads the flags and sets the process's redaction and outbound settings first); tests may call it
in-process.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from inspector.command_setup import err, open_db_store, print_error
from inspector.errors import InspectorError, SkillVerificationError
from inspector.terminal_text import markup_safe, visible_json

if TYPE_CHECKING:
    from inspector.auth.connect import AuthRequest

__all__ = ["CallOptions", "run_call"]


@dataclass
class CallOptions:
    """What `mcp-inspect call` sends, and to whom."""

    method: str
    target: str | list[str]  # a URL, or a stdio command line
    params: dict[str, Any] | None = None
    protocol_version: str = "2025-11-25"
    roots: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    progress: bool = False
    timeout: float = 60.0
    db: str | None = None
    auth: AuthRequest | None = None  # checked --auth options (a URL target only)
    fetch_skills: bool = False  # skills/list or skills/get: load each skill, verifying its files


def run_call(opts: CallOptions) -> int:
    """Send the request and print the result (stdout) or error (stdout, exit status 1); the exit
    status, 2 when the server could not be reached or authorization failed."""
    from inspector.start_up import starting_up

    # The rest of start-up, with the collector off and frozen after as the CLI's own was (about a
    # twentieth of the call's CPU went to collections walking these modules' new objects).
    with starting_up():
        import asyncio  # noqa: F401  # imported by `anyio.run`: here, as start-up

        import anyio

        from inspector.mock.client import ClientConfig, MockClient, Responder

    config = ClientConfig(
        target=opts.target,
        protocol_version=opts.protocol_version,
        headers=opts.headers,
        timeout=opts.timeout,
        responders={
            "sampling/createMessage": Responder("reject"),
            "elicitation/create": Responder("fixed", {"action": "decline"}),
            "roots/list": Responder("fixed", {"roots": [{"uri": r} for r in opts.roots]}),
        },
    )
    engine = open_db_store(opts.db)

    async def log_progress(kind: str, payload: dict[str, Any]) -> None:
        if kind == "notification":
            sys.stderr.write(visible_json(orjson.dumps(payload).decode()) + "\n")

    async def run() -> dict[str, Any]:
        client = MockClient(engine, config, listener=log_progress if opts.progress else None)
        # The stack (the callback listener, OAuth's client) outlives the group cancelled below.
        async with contextlib.AsyncExitStack() as stack:
            if opts.auth is not None:  # OAuth (httpx, a callback listener) only for a URL with --auth
                from inspector.auth.connect import authorizer

                config.auth = await stack.enter_async_context(
                    authorizer(opts.auth, str(opts.target), opts.protocol_version)
                )
            async with anyio.create_task_group() as tg:
                try:
                    first = await client.start(tg)
                    if opts.method in ("initialize", "server/discover") or "error" in first:
                        answer = first
                    else:
                        answer = await client.request(opts.method, opts.params, progress=opts.progress)
                    if opts.fetch_skills and "result" in answer:
                        from inspector.mock.skills import fetch_skills

                        async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
                            return await client.request(method, params)

                        answer = {"result": await fetch_skills(request, opts.method, answer["result"])}
                finally:
                    await client.close()
                    tg.cancel_scope.cancel()
        return answer

    try:
        answer = anyio.run(run)
    except InspectorError:
        raise
    except Exception as exc:
        return _failed(exc)
    finally:
        # Closed here, not by the interpreter's teardown (the console script skips it): the last
        # connection's close checkpoints SQLite's write-ahead log into the database file.
        engine.dispose()
    if "error" in answer:
        sys.stdout.write(
            visible_json(orjson.dumps(answer["error"], option=orjson.OPT_INDENT_2).decode()) + "\n"
        )
        return 1
    sys.stdout.write(
        visible_json(orjson.dumps(answer.get("result"), option=orjson.OPT_INDENT_2).decode()) + "\n"
    )
    return 0


def _failed(exc: Exception) -> int:
    """The exit status of a call that raised `exc`, its cause said on stderr."""
    cause: BaseException = exc
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    if isinstance(cause, InspectorError):  # an AuthFailure inside the task group: its own words
        print_error(cause)
        return 1 if isinstance(cause, SkillVerificationError) else 2
    err().print(
        f"[red]error:[/red] could not talk to the server: {type(cause).__name__}: {markup_safe(cause)}"
    )
    return 2
