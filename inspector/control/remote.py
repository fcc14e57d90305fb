"""Talking to intercepting processes from another process (`mcp-inspect intercept`).

`Remote` reads the announcements in the runtime directory
(`inspector.control.announce`) and calls each process's control channel with its
token (synchronous httpx, loopback only, no proxy from the environment).
Every failure is an `InterceptRemoteError` with a sentence for the terminal:
no process, a process that stopped, an unknown paused message, an answer
the process refused (its reason).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from inspector.control.announce import announcements
from inspector.errors import InterceptRemoteError

__all__ = ["Process", "Remote", "split_id"]


@dataclass
class Process:
    """One intercepting process: its announcement and its last state."""

    reg: dict[str, Any]
    state: dict[str, Any]

    @property
    def pid(self) -> int:
        return int(self.reg["pid"])

    def pending(self, pending_id: str) -> dict[str, Any] | None:
        for p in self.state.get("pending") or []:
            if isinstance(p, dict) and p.get("id") == pending_id:
                return p
        return None


def split_id(text: str) -> tuple[int | None, str]:
    """`p3` or `PID:p3` (the form `list` shows when several processes intercept)."""
    head, sep, tail = text.partition(":")
    if sep and head.isdigit():
        return int(head), tail
    return None, text


class Remote:
    def __init__(self, *, pid: int | None = None, session: int | None = None, timeout: float = 10) -> None:
        self.pid = pid
        self.session = session
        self.timeout = timeout
        self.http = httpx.Client(timeout=timeout, trust_env=False)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self, reg: dict[str, Any], method: str, path: str, body: Any = None, timeout: float | None = None
    ) -> dict[str, Any]:
        try:
            answer = self.http.request(
                method,
                reg["url"] + path,
                json=body,
                headers={"authorization": f"Bearer {reg['token']}"},
                timeout=timeout if timeout is not None else self.timeout,
            )
        except httpx.HTTPError as exc:
            raise InterceptRemoteError(
                f"the intercepting process {reg['pid']} did not answer ({type(exc).__name__}): has it stopped?"
            ) from None
        try:
            doc = answer.json()
        except ValueError:
            doc = {"detail": answer.text}
        if answer.status_code != 200:
            detail = doc.get("detail", answer.text) if isinstance(doc, dict) else answer.text
            raise InterceptRemoteError(f"process {reg['pid']}: {detail}")
        if not isinstance(doc, dict):
            raise InterceptRemoteError(f"process {reg['pid']} answered something other than a JSON object")
        return doc

    def processes(self) -> list[Process]:
        """The live intercepting processes (narrowed by `pid` / `session`), with their state."""
        out = []
        for reg in announcements():
            if self.pid is not None and reg["pid"] != self.pid:
                continue
            try:
                state = self.call(reg, "GET", "/state", timeout=5)
            except InterceptRemoteError:
                continue  # stopping
            if self.session is not None and self.session not in (state.get("sessions") or []):
                continue
            out.append(Process(reg, state))
        return out

    def one(self) -> Process:
        """The single process meant (an error naming the choices when there are several)."""
        found = self.processes()
        if not found:
            raise InterceptRemoteError(self._none())
        if len(found) > 1:
            pids = ", ".join(str(p.pid) for p in found)
            raise InterceptRemoteError(
                f"{len(found)} processes intercept (pids {pids}): choose one with --pid"
            )
        return found[0]

    def _none(self) -> str:
        which = ""
        if self.pid is not None:
            which = f" with pid {self.pid}"
        elif self.session is not None:
            which = f" recording session {self.session}"
        return (
            f"no intercepting process{which}: start one with `mcp-inspect wrap --intercept -- SERVER` "
            "(or proxy --intercept)"
        )

    def find_pending(self, text: str) -> tuple[Process, dict[str, Any]]:
        """The process holding paused message `text` (`p3` or `PID:p3`) and the message."""
        pid, pending_id = split_id(text)
        if pid is not None:
            self.pid = pid
        found = self.processes()
        if not found:
            raise InterceptRemoteError(self._none())
        holders = [(p, m) for p in found if (m := p.pending(pending_id)) is not None]
        if not holders:
            raise InterceptRemoteError(
                f"no paused message {pending_id!r}: it was resolved or timed out (see `mcp-inspect intercept list`)"
            )
        if len(holders) > 1:
            ids = ", ".join(f"{p.pid}:{pending_id}" for p, _ in holders)
            raise InterceptRemoteError(f"{pending_id!r} is paused in several processes: say which ({ids})")
        return holders[0]

    def resolve(self, process: Process, pending_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.call(process.reg, "POST", f"/pending/{quote(pending_id, safe='')}", body)

    def rule(self, process: Process, method: str, name: str, body: Any = None) -> dict[str, Any]:
        return self.call(process.reg, method, f"/rules/{quote(name, safe='')}", body)

    def wait_state(self, process: Process, version: int, wait: float) -> dict[str, Any]:
        """The state once it changes after `version` (or after `wait` seconds)."""
        return self.call(
            process.reg, "GET", f"/state?version={version}&wait={wait:g}", timeout=wait + self.timeout
        )
