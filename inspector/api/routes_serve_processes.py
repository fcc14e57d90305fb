"""Start and stop `mcp-inspect serve --http` from the UI (children of the UI process).

Starting one spawns a process, so like connecting a mock client it sits
behind the `Guard` (the token, and Host and Origin naming this server) and
takes a JSON body only. The program is always this installation's
`mcp-inspect serve`; the caller chooses only the scenario file (validated
here first, with the loader's error text), the protocol versions and the
loopback port. The answer carries the URL a client uses and the stdio
command line to put in a client's configuration instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, cast

import anyio
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from inspector.api.deps import json_response, state_of
from inspector.api.mock_commands import free_port
from inspector.api.serve_processes import ServeProcesses, serve_argv, stdio_command
from inspector.errors import InspectorError, ServeStartFailed
from inspector.scenario.runner import ServeOptions, prepare_scenario

__all__ = ["router"]

router = APIRouter(prefix="/api/serve/processes", tags=["serve"])


AuthFault = Literal["wrong-issuer", "resource-mismatch", "no-s256", "expired-token", "step-up"]


class ServeStart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scenario: str | None = Field(
        None, max_length=4096, description="A scenario file on the UI's machine; empty: the built-in scenario"
    )
    protocolVersions: list[str] = Field(
        default_factory=list, max_length=10, description="Negotiate only these revisions; empty: all"
    )
    port: int | None = Field(None, ge=1, le=65535, description="Loopback port; empty: a free one")
    auth: bool = Field(False, description="Require OAuth authorization (serve --auth)")
    authFaults: list[AuthFault] = Field(
        default_factory=list,
        max_length=5,
        description="Authorization faults (serve --auth-fault); imply auth",
    )
    approve: Literal["auto", "ui"] | None = Field(
        None, description="auto: approve at once; ui: an approval page (serve --approve); implies auth"
    )

    def auth_args(self) -> list[str]:
        """The serve options for the authorization asked for (none: no authorization)."""
        args = ["--auth"] if self.auth else []
        for fault in dict.fromkeys(self.authFaults):
            args += ["--auth-fault", fault]
        return args + (["--approve", self.approve] if self.approve else [])


class StdioCommand(BaseModel):
    argv: list[str]
    shell: str
    client_config: dict[str, Any]


class ServeProcessOut(BaseModel):
    """A serve process started by this UI."""

    id: str
    pid: int
    state: str = Field(description="starting, running or exited")
    exitCode: int | None
    scenario: str | None
    protocolVersions: list[str]
    port: int
    url: str | None = Field(description="The Streamable HTTP URL a client connects to")
    command: str
    stdio: StdioCommand = Field(description="The same scenario on stdio, for a client's server configuration")
    output: list[str] = Field(description="The process's last output lines")
    created: float
    auth: list[str] = Field(default_factory=list, description="The authorization options it was started with")


class ServeProcessList(BaseModel):
    processes: list[ServeProcessOut]
    db: str
    builtinStdio: StdioCommand = Field(description="The stdio command line for the built-in scenario")


def processes_of(request: Request) -> ServeProcesses:
    return cast(ServeProcesses, request.app.state.serve_processes)


def _scenario_path(text: str | None) -> str | None:
    if text is None or not text.strip():
        return None
    path = Path(text.strip()).expanduser()
    absolute = Path(os.path.abspath(path))
    if not absolute.is_file():
        where = "" if path.is_absolute() else f" (relative paths start in {os.getcwd()})"
        raise HTTPException(400, f"no scenario file at {absolute}{where}")
    return str(absolute)


@router.get("", response_model=ServeProcessList, summary="The serve processes this UI started")
async def list_processes(request: Request) -> Response:
    processes = processes_of(request)
    doc = {
        "processes": [p.to_json() for p in processes.items.values()],
        "db": processes.db(),
        "builtinStdio": stdio_command(serve_argv(processes.db(), None, [], ["--stdio"])),
    }
    return json_response(doc)


@router.post(
    "",
    response_model=ServeProcessOut,
    status_code=201,
    summary="Start `mcp-inspect serve --http 127.0.0.1:PORT` on a scenario, recording into this UI's database",
    responses={
        400: {"description": "bad scenario, versions or database"},
        502: {"description": "the process did not start (its output)"},
    },
)
async def start_process(request: Request, body: ServeStart) -> Response:
    processes = processes_of(request)
    if processes.db() == ":memory:":
        raise HTTPException(400, "this UI's database is in memory: a serve process cannot record into it")
    scenario = _scenario_path(body.scenario)
    versions = list(dict.fromkeys(v.strip() for v in body.protocolVersions if v.strip()))
    auth = body.auth_args()
    options = ServeOptions(scenario=scenario, protocol_versions=versions, auth=bool(auth))
    engine = state_of(request).engine
    try:
        await anyio.to_thread.run_sync(prepare_scenario, engine, options)
    except InspectorError as exc:
        raise HTTPException(400, str(exc)) from None
    port = body.port or free_port()
    try:
        item = await processes.start(scenario, versions, port, auth=auth)
    except ServeStartFailed as exc:
        raise HTTPException(502, f"mcp-inspect serve could not start: {exc}") from None
    except OSError as exc:
        raise HTTPException(502, f"mcp-inspect serve could not be run: {exc}") from None
    return json_response(item.to_json(), status_code=201)


@router.delete(
    "/{process_id}",
    status_code=204,
    responses={404: {"description": "no such serve process"}},
    summary="Stop a serve process (its sessions end)",
)
async def stop_process(request: Request, process_id: str) -> Response:
    if await processes_of(request).stop(process_id) is None:
        raise HTTPException(404, f"no serve process {process_id!r} started by this UI")
    return Response(status_code=204)
