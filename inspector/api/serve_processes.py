"""`mcp-inspect serve --http` processes started from the UI: children of the UI process.

`ServeProcesses.start` runs this installation's `mcp-inspect serve SCENARIO
--http 127.0.0.1:PORT --db <the UI's database>` with its output (stdout and
stderr together) read line by line: the `serving ... at URL` line means it
is ready; an exit before that is a start failure carrying the process's own
error text (a bad scenario, a taken port). Later output is kept (the last
lines) so a crash can be shown. `stop` sends SIGINT (the serve process then
removes its control file and ends its sessions), then SIGKILL if it lingers;
`aclose` stops every child when the UI shuts down. The serve processes
announce their control channels like any other (`scenario/control.py`), so
the workspace finds their clients the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import shlex
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from inspector.api.mock_commands import db_path, program
from inspector.capture.redact import active
from inspector.errors import ServeStartFailed

__all__ = ["ServeProcess", "ServeProcesses", "serve_argv", "stdio_command"]

READY = re.compile(r"serving .* at (http://\S+/mcp)")
OUTPUT_LINES = 40
MAX_PROCESSES = 16


def serve_argv(db: str, scenario: str | None, versions: list[str], transport: list[str]) -> list[str]:
    """The `mcp-inspect serve` command line for a scenario (None: the built-in one).

    It carries this process's redaction rules (the UI's --redact, --redact-path, --keep-secrets)."""
    argv = [*program(), "serve", *([scenario] if scenario else []), *transport, "--db", db]
    for version in versions:
        argv += ["--protocol-version", version]
    return argv + active().cli_args()


def stdio_command(argv: list[str]) -> dict[str, Any]:
    """A stdio command line as argv, shell text, and an `mcpServers` entry for a client's config."""
    config = {"mcpServers": {"mcp-inspect-serve": {"command": argv[0], "args": argv[1:]}}}
    return {"argv": argv, "shell": shlex.join(argv), "client_config": config}


@dataclass(eq=False)
class ServeProcess:
    id: str
    scenario: str | None
    versions: list[str]
    port: int
    argv: list[str]
    stdio_argv: list[str]
    proc: asyncio.subprocess.Process
    created: float = field(default_factory=time.time)
    url: str | None = None
    output: deque[str] = field(default_factory=lambda: deque(maxlen=OUTPUT_LINES))
    ready: asyncio.Future[str] | None = None
    auth: list[str] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    @property
    def state(self) -> str:
        if self.proc.returncode is not None:
            return "exited"
        return "running" if self.url else "starting"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "pid": self.proc.pid,
            "state": self.state,
            "exitCode": self.proc.returncode,
            "scenario": self.scenario,
            "protocolVersions": self.versions,
            "port": self.port,
            "url": self.url,
            "command": shlex.join(self.argv),
            "stdio": stdio_command(self.stdio_argv),
            "output": list(self.output),
            "created": self.created,
            "auth": self.auth,
        }


class ServeProcesses:
    """The serve processes this UI process started, by id."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.items: dict[str, ServeProcess] = {}
        self._ids = itertools.count(1)

    def db(self) -> str:
        return db_path(self.engine)

    async def start(
        self,
        scenario: str | None,
        versions: list[str],
        port: int,
        *,
        timeout: float = 60,
        auth: list[str] | None = None,
    ) -> ServeProcess:
        running = [p for p in self.items.values() if p.state != "exited"]
        if len(running) >= MAX_PROCESSES:
            raise ServeStartFailed(f"{len(running)} serve processes are running already: stop one first")
        db = self.db()
        # Authorization (`--auth`, ...) is for HTTP: the stdio command line below has none.
        argv = serve_argv(db, scenario, versions, ["--http", f"127.0.0.1:{port}", *(auth or [])])
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
        item = ServeProcess(
            id=f"s{next(self._ids)}",
            scenario=scenario,
            versions=versions,
            port=port,
            argv=argv,
            stdio_argv=serve_argv(db, scenario, versions, ["--stdio"]),
            proc=proc,
            auth=list(auth or []),
        )
        item.ready = asyncio.get_running_loop().create_future()
        item.reader = asyncio.create_task(self._read(item), name=f"serve {item.id} output")
        try:
            item.url = await asyncio.wait_for(asyncio.shield(item.ready), timeout)
        except TimeoutError:
            await self._halt(item)
            raise ServeStartFailed(
                f"mcp-inspect serve did not say it was ready within {timeout:g} s: {_tail(item)}"
            ) from None
        except ServeStartFailed:
            await self._halt(item)
            raise
        self.items[item.id] = item
        return item

    async def _read(self, item: ServeProcess) -> None:
        assert item.proc.stdout is not None and item.ready is not None
        while line := await item.proc.stdout.readline():
            text = line.decode("utf-8", "replace").rstrip()
            item.output.append(text)
            found = READY.search(text)
            if found and not item.ready.done():
                item.ready.set_result(found.group(1))
        code = await item.proc.wait()
        if not item.ready.done():
            item.ready.set_exception(
                ServeStartFailed(f"mcp-inspect serve exited (status {code}): {_tail(item)}")
            )

    async def _halt(self, item: ServeProcess, grace: float = 10) -> None:
        if item.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                item.proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(item.proc.wait(), grace)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    item.proc.kill()
                await item.proc.wait()
        if item.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(item.reader, grace)
        if item.ready is not None and item.ready.done() and not item.ready.cancelled():
            item.ready.exception()  # retrieved: a failure after a timeout is not an unhandled one

    async def stop(self, process_id: str) -> ServeProcess | None:
        """Stop a serve process and forget it; None when there is no such id."""
        item = self.items.pop(process_id, None)
        if item is not None:
            await self._halt(item)
        return item

    async def aclose(self) -> None:
        items = list(self.items.values())
        self.items.clear()
        await asyncio.gather(*(self._halt(i) for i in items), return_exceptions=True)


def _tail(item: ServeProcess) -> str:
    lines = [line for line in item.output if line.strip()]
    return "\n".join(lines[-12:]) or "(no output)"
