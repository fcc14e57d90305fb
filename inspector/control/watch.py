"""`mcp-inspect intercept watch`: the paused-message queue, live, acted on with single keys.

A poller thread long-polls the process's control channel (`GET /state` with
`version` and `wait`), so a new paused message shows at once; the main loop
reads keys in cbreak mode (`termios`), redraws on a change and once a second
for the countdowns. Editing and typing an answer leave cbreak mode for the
time of the editor or the prompt. Needs a terminal (the command checks).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import sys
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterator
from typing import Any

import orjson
from rich.console import Console

from inspector.control.remote import Process, Remote
from inspector.errors import InterceptRemoteError
from inspector.terminal_text import markup_safe, visible

__all__ = ["Watch", "parse_answer"]

KEYS = "f forward · d drop · e edit · r respond · j/k select · b breakpoints · q quit"
PREVIEW_LINES = 14
_ERROR = re.compile(r"^\s*(-?\d+)\s+(.+?)\s*$")


def parse_answer(text: str) -> dict[str, Any]:
    """What the person typed for `r`: a JSON object is the result, `CODE MESSAGE` an error."""
    text = text.strip()
    found = _ERROR.match(text)
    if found:
        return {"action": "respond", "error": {"code": int(found.group(1)), "message": found.group(2)}}
    try:
        result = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValueError(
            "type a JSON object (the result) or CODE MESSAGE (an error), e.g. -32603 failed"
        ) from None
    if not isinstance(result, dict):
        raise ValueError('a result is a JSON object, e.g. {"content": []}')
    return {"action": "respond", "result": result}


class Watch:
    def __init__(
        self,
        remote: Remote,
        console: Console,
        *,
        editor: bool = True,
        edit_text: Callable[[str], str | None] | None = None,
    ) -> None:
        self.remote = remote
        self.console = console
        self.editor = editor
        self.edit_text = edit_text
        self.process: Process = remote.one()
        self.state = self.process.state
        self.received = time.monotonic()
        self.changed = threading.Event()
        self.stop = threading.Event()
        self.selected = 0
        self.note = ""
        self.gone: str | None = None

    # ---- the poller thread

    def _poll(self) -> None:
        poller = Remote(pid=self.process.pid)
        try:
            while not self.stop.is_set():
                try:
                    state = poller.wait_state(self.process, int(self.state.get("version", -1)), 5)
                except InterceptRemoteError as exc:
                    self.gone = str(exc)
                    self.changed.set()
                    return
                self.state, self.received = state, time.monotonic()
                self.changed.set()
        finally:
            poller.close()

    # ---- drawing

    def _pending(self) -> list[dict[str, Any]]:
        return list(self.state.get("pending") or [])

    def draw(self) -> None:
        c = self.console
        c.clear()
        s = self.state
        elapsed = time.monotonic() - self.received
        c.print(
            f"[bold]intercept watch[/bold] · {markup_safe(str(s.get('kind')))} pid {self.process.pid} · "
            f"breakpoints {'[green]on[/green]' if s.get('breakpoints') else '[dim]off[/dim]'} · "
            f"rules {sum(1 for r in s.get('rules') or [] if r.get('enabled'))}/{len(s.get('rules') or [])}"
        )
        pending = self._pending()
        if not pending:
            c.print("[dim]no paused message; waiting ...[/dim]")
        self.selected = min(self.selected, max(0, len(pending) - 1))
        for i, p in enumerate(pending):
            left = max(0.0, float(p.get("seconds_left", 0)) - elapsed)
            mark = "›" if i == self.selected else " "
            what = (
                f"{p.get('direction')} {p.get('kind')} {p.get('method') or ''} {p.get('name') or ''}".strip()
            )
            line = visible(f"{mark} {p['id']:<5} {what}")  # the server's names: shown, not run
            line = line if len(line) <= 70 else line[:69] + "…"
            style = "bold" if i == self.selected else ""
            c.print(f"[{style or 'default'}]{markup_safe(line)}[/] [yellow]{left:4.0f}s[/yellow]")
        if pending:
            raw = pending[self.selected].get("raw", "")
            try:
                text = orjson.dumps(orjson.loads(raw), option=orjson.OPT_INDENT_2).decode()
            except orjson.JSONDecodeError:
                text = raw
            lines = text.splitlines()
            c.rule(style="dim")
            for line in map(visible, lines[:PREVIEW_LINES]):
                c.print(markup_safe(line if len(line) <= 80 else line[:79] + "…"), highlight=False)
            if len(lines) > PREVIEW_LINES:
                c.print(f"[dim]… {len(lines) - PREVIEW_LINES} more lines[/dim]")
        c.rule(style="dim")
        if self.note:
            c.print(markup_safe(self.note))
        c.print(f"[dim]{KEYS}[/dim]")

    # ---- keys

    def act(self, key: str) -> bool:
        """Handle one key; False to quit."""
        pending = self._pending()
        current = pending[self.selected] if pending else None
        self.note = ""
        if key in ("q", "\x04"):
            return False
        if key in ("j", "\x1b[B"):
            self.selected = min(self.selected + 1, max(0, len(pending) - 1))
        elif key in ("k", "\x1b[A"):
            self.selected = max(0, self.selected - 1)
        elif key == "b":
            on = not self.state.get("breakpoints")
            self._call(lambda: self.remote.call(self.process.reg, "POST", "/breakpoints", {"on": on}))
        elif key in ("f", "d") and current is not None:
            action = "forward" if key == "f" else "drop"
            self._resolve(current, {"action": action})
        elif key == "e" and current is not None:
            if not self.editor or self.edit_text is None:
                self.note = "editing is off (--no-editor)"
            else:
                with self._cooked():
                    text = self.edit_text(current.get("raw", ""))
                if text is None:
                    self.note = f"{current['id']}: unchanged, still paused"
                else:
                    self._resolve(current, {"action": "edit", "raw": text})
        elif key == "r" and current is not None:
            with self._cooked():
                self.console.print("result JSON, or CODE MESSAGE for an error (empty: cancel): ", end="")
                typed = sys.stdin.readline()
            if typed.strip():
                try:
                    body = parse_answer(typed)
                except ValueError as exc:
                    self.note = str(exc)
                else:
                    self._resolve(current, body)
        return True

    def _resolve(self, current: dict[str, Any], body: dict[str, Any]) -> None:
        if self._call(lambda: self.remote.resolve(self.process, current["id"], body)):
            self.note = f"{current['id']}: {body['action']}"

    def _call(self, fn: Callable[[], Any]) -> bool:
        try:
            fn()
        except InterceptRemoteError as exc:
            self.note = str(exc)
            return False
        return True

    @contextlib.contextmanager
    def _cooked(self) -> Iterator[None]:
        fd = sys.stdin.fileno()
        termios.tcsetattr(fd, termios.TCSADRAIN, self._saved)
        try:
            yield
        finally:
            tty.setcbreak(fd)

    def _key(self, timeout: float) -> str | None:
        fd = sys.stdin.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        data = os.read(fd, 8).decode("utf-8", "replace")
        return data or "\x04"

    def run(self) -> None:
        fd = sys.stdin.fileno()
        self._saved = termios.tcgetattr(fd)
        poller = threading.Thread(target=self._poll, name="intercept-watch", daemon=True)
        poller.start()
        tty.setcbreak(fd)
        try:
            self.draw()
            last = time.monotonic()
            while True:
                key = self._key(0.25)
                if key is not None:
                    if not self.act(key):
                        break
                    self.draw()
                    last = time.monotonic()
                if self.gone:
                    self.console.print(f"[red]{markup_safe(self.gone)}[/red]")
                    break
                if self.changed.is_set() or time.monotonic() - last >= 1:
                    self.changed.clear()
                    self.draw()
                    last = time.monotonic()
        finally:
            self.stop.set()
            termios.tcsetattr(fd, termios.TCSADRAIN, self._saved)
