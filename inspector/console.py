"""Terminal rendering of sessions and timelines (Rich)."""

from __future__ import annotations

import time
from collections.abc import Iterable

import orjson
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from inspector.store import Message, Session, session_state

__all__ = ["format_ns", "message_line", "method_width", "sessions_table", "timeline_header"]

_ARROWS = {"c2s": "C→S", "s2c": "S→C"}
_KIND_STYLE = {
    "request": "cyan",
    "notification": "magenta",
    "response": "green",
    "error": "red",
    "batch": "yellow",
    "invalid": "bold red",
    "log": "dim",
}


def format_ns(ns: int | None) -> str:
    """A latency or duration in readable units."""
    if ns is None:
        return ""
    if ns < 1_000_000:
        return f"{ns / 1000:.0f}µs"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.1f}ms"
    return f"{ns / 1e9:.2f}s"


def _clock(ts_ns: int | None) -> str:
    if ts_ns is None:
        return ""
    secs = ts_ns / 1e9
    return time.strftime("%H:%M:%S", time.localtime(secs)) + f".{int(ts_ns % 1_000_000_000 / 1e6):03d}"


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n}B"
    if n < 10_000_000:
        return f"{n / 1024:.0f}KiB"
    return f"{n / 1048576:.1f}MiB"


def sessions_table(sessions: Iterable[Session]) -> Table:
    table = Table(
        title="Recorded sessions (newest first)",
        expand=False,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        show_edge=False,
        collapse_padding=True,
    )
    for name in ("id", "started", "kind", "status", "version", "msgs", "exit", "name or target"):
        table.add_column(
            name, no_wrap=name != "name or target", min_width=min(len(name), 10), overflow="fold"
        )
    for s in sessions:
        state = session_state(s)
        style = {"recording": "green", "interrupted": "yellow"}.get(state, "")
        table.add_row(
            str(s.id),
            time.strftime("%m-%d %H:%M:%S", time.localtime(s.started_ns / 1e9)),
            s.kind,
            Text(state, style=style),
            s.protocol_version or "",
            str(s.message_count),
            "" if s.exit_status is None else str(s.exit_status),
            s.name or short_target(s.target),
        )
    return table


def short_target(target: object, limit: int = 48) -> str:
    """An argv or URL in a few words: the program's base name, then its arguments."""
    if isinstance(target, list) and target:
        text = " ".join([str(target[0]).rsplit("/", 1)[-1], *map(str, target[1:])])
    else:
        text = str(target or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timeline_header(console: Console, session: Session) -> None:
    target = " ".join(session.target) if isinstance(session.target, list) else str(session.target or "")
    server = (session.server_info or {}).get("name", "?") if isinstance(session.server_info, dict) else "?"
    client = (session.client_info or {}).get("name", "?") if isinstance(session.client_info, dict) else "?"
    console.print(
        f"[bold]session {session.id}[/bold] {session.kind} [dim]{target}[/dim]\n"
        f"client {client} ↔ server {server}, protocol {session.protocol_version or '?'}"
        f" ({session.era or 'unknown era'}), status {session_state(session)}"
    )
    width = method_width(console)
    console.print(
        f"{'seq':>5} {'time':12} {'dir':3} {'kind':6} {'method':{width}} {'id':>4} {'latency':>7} {'size':>6}"
    )


def method_width(console: Console) -> int:
    """Room left for the method column on this terminal (the other columns take 52)."""
    return max(16, min(48, console.width - 52))


_KIND_LABEL = {"notification": "notify", "response": "result", "request": "call", "invalid": "bad"}


def _http_summary(m: Message) -> str:
    problem = (m.meta or {}).get("problem") if isinstance(m.meta, dict) else None
    if problem:
        return f"! {problem}"
    if m.channel == "http-request":
        return f"{m.http_method or ''} {m.http_path or ''}".strip()
    if m.channel == "sse":
        event = (m.meta or {}).get("event", "event") if isinstance(m.meta, dict) else "event"
        return f"sse {event} {m.body.decode('utf-8', 'replace').strip()}"
    content_type = next((v for k, v in (m.http_headers or []) if k.lower() == "content-type"), "")
    return f"{m.http_status} {content_type.split(';')[0]}".strip()


_DETAIL_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def _param(m: Message, key: str) -> str:
    try:
        params = orjson.loads(m.body).get("params") or {}
        return str(params.get(key, ""))
    except (orjson.JSONDecodeError, AttributeError):
        return ""


def message_line(m: Message, width: int = 28) -> Text:
    """One timeline row; `width` is the method column's width."""
    kind_style = _KIND_STYLE.get(m.kind, "")
    method = m.method or ""
    if m.kind == "log":
        body = (m.raw_text() or repr(m.raw)).rstrip("\r\n")
        method = body
    elif m.kind == "http":
        method = _http_summary(m)
    elif m.kind == "invalid":
        method = (m.meta or {}).get("problem", m.parse_status) if isinstance(m.meta, dict) else m.parse_status
    elif m.kind in ("response", "error") and m.answers_seq is not None:
        method = f"↳ {method} (#{m.answers_seq})"
    elif m.kind == "request" and m.method in _DETAIL_PARAM:
        method = f"{method} {_param(m, _DETAIL_PARAM[m.method])}"
    line = Text()
    line.append(f"{m.seq:>5} ", style="dim")
    line.append(f"{_clock(m.ts_ns):12} ")
    line.append(f"{_ARROWS.get(m.direction, m.direction):3} ", style="bold")
    line.append(f"{_KIND_LABEL.get(m.kind, m.kind):6} ", style=kind_style)
    if len(method) > width:
        method = method[: width - 1] + "…"
    line.append(f"{method:{width}} ")
    line.append(f"{(m.rpc_id or ''):>4} ")
    line.append(f"{format_ns(m.latency_ns):>7} ")
    line.append(f"{_size(m.size):>6}", style="dim")
    flags = (m.meta or {}).get("flags") if isinstance(m.meta, dict) else None
    if flags:
        line.append(" " + " ".join(flags), style="yellow")
    if m.error_code is not None:
        line.append(f" code {m.error_code}", style="red")
    return line
