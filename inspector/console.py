"""Terminal rendering of sessions and timelines (Rich).

Every line fits the terminal: a timeline row is one line (the method column
shrinks, long text ends with an ellipsis), and below `WIDE` columns the
less important columns go (the timeline's clock, the sessions' protocol
version) so that what is left stays readable at 80.

Every recorded or imported string (names, targets, methods, stderr lines, flags) goes through
`inspector.terminal_text.visible` here: a hostile server's escape sequences are shown, not run.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import orjson
from rich.console import Console
from rich.text import Text

from inspector.protocol.client_identity import grouping_words
from inspector.store import Message, Session, session_state
from inspector.store.interventions import describe, is_injected
from inspector.store.queries import idle_words, session_idle
from inspector.terminal_text import markup_safe, visible

if TYPE_CHECKING:
    from rich.table import Table

    from inspector.store.host_runs import HostRun

__all__ = [
    "WIDE",
    "format_ns",
    "host_runs_lines",
    "message_line",
    "method_width",
    "sessions_table",
    "timeline_header",
]

WIDE = 100  # columns from which every column is shown
_EXTRAS = 14  # room kept on narrow terminals for what follows a row (its error code, flags)

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


def sessions_table(sessions: Iterable[Session], width: int = 120) -> Table:
    """The sessions list for a terminal `width` columns wide (below `WIDE`: no version column)."""
    from rich import box  # the table is this list's alone (`show` and `search` print lines)
    from rich.table import Table

    columns = ["id", "started", "kind", "status", "version", "msgs", "exit", "name or target"]
    if width < WIDE:
        columns.remove("version")
    table = Table(
        title="Recorded sessions (newest first)",
        expand=False,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        show_edge=False,
        collapse_padding=True,
    )
    rows: list[list[str | Text]] = []
    sessions_seen = list(sessions)
    for s in sessions_seen:
        state = session_state(s)
        style = {"recording": "green", "interrupted": "yellow"}.get(state, "")
        if (idle := session_idle(s)) is not None:  # a proxy session whose client went quiet
            state, style = idle_words(idle, short=True), "cyan"
        cells: dict[str, str | Text] = {
            "id": f"{s.id}*" if s.pinned else str(s.id),  # * pinned: kept by retention
            "started": time.strftime("%m-%d %H:%M:%S", time.localtime(s.started_ns / 1e9)),
            "kind": visible(s.kind),
            "status": Text(visible(state), style=style),
            "version": visible(s.protocol_version or ""),
            "msgs": str(s.message_count),
            "exit": "" if s.exit_status is None else str(s.exit_status),
            "name or target": visible(s.name or short_target(s.target)),
        }
        rows.append([cells[c] for c in columns])
    # Every column but the last as wide as its widest cell; the name gets what is left (at least 12)
    # and ends with an ellipsis: one line per session, nothing folded mid-word.
    widths = [max([len(name)] + [len(str(r[i])) for r in rows]) for i, name in enumerate(columns)]
    room = max(12, width - sum(widths[:-1]) - 2 * (len(columns) - 1) - 1)  # 2 between columns
    for i, name in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(
            name,
            no_wrap=True,
            overflow="ellipsis",
            min_width=None if last else widths[i],
            max_width=room if last else None,
        )
    if any(s.pinned for s in sessions_seen):
        table.caption = "* pinned: retention keeps it"
    for r in rows:
        last_cell = Text(str(r[-1]), no_wrap=True, overflow="ellipsis")
        last_cell.truncate(room, overflow="ellipsis")  # Rich would drop the words that do not fit, silently
        # A cell given as a string is read as markup: recorded text (a kind, a version) is escaped
        table.add_row(*(markup_safe(c) if isinstance(c, str) else c for c in r[:-1]), last_cell)
    return table


def host_runs_lines(runs: Iterable[HostRun]) -> list[Text]:
    """`sessions --by-host`: per host run a line (id, host name, state, start, the host's pid and
    machine), its config files, then a line per server session; each line is cut to the terminal's
    width by the caller (`no_wrap`, ellipsis), recorded text made visible."""
    lines: list[Text] = []
    for run in runs:
        started = time.strftime("%m-%d %H:%M:%S", time.localtime(run.started_ns / 1e9))
        head = Text(f"run {run.id}  ", style="bold")
        head.append(visible(run.name or "unknown host"), style="bold")
        head.append("  live" if run.live else "  ended", style="green" if run.live else "")
        head.append(f"  {started}  pid {run.pid}")
        if run.machine:
            head.append(f" on {visible(run.machine)}")
        lines.append(head)
        for path in run.config_files:
            lines.append(Text(f"  config {visible(path)}", style="dim"))
        for s in run.sessions:
            state = session_state(s)
            row = Text(f"  {s.id:>5}  ")
            row.append(
                f"{visible(state):<11}", style={"recording": "green", "interrupted": "yellow"}.get(state, "")
            )
            row.append(f"{s.message_count:>6} msgs  ")
            row.append("" if s.exit_status is None else f"exit {s.exit_status}  ")
            row.append(visible(s.name or short_target(s.target)))
            lines.append(row)
    return lines


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
    first = Text(f"session {session.id}", style="bold")
    first.append(f" {visible(session.kind)} ")
    first.append(visible(target), style="dim")
    console.print(first, no_wrap=True, overflow="ellipsis")  # a long command line is cut, not folded
    console.print(
        Text(
            visible(
                f"client {client} ↔ server {server}, protocol {session.protocol_version or '?'}"
                f" ({session.era or 'unknown era'}), status "
                + ("idle" if (idle := session_idle(session)) is not None else session_state(session))
            )
        ),
        no_wrap=True,
        overflow="ellipsis",
    )
    if idle is not None:  # a proxy session whose client went quiet: when it will be ended
        console.print(Text(idle_words(idle)), no_wrap=True, overflow="ellipsis")
    facts = session.facts if isinstance(session.facts, dict) else {}
    if (grouped := grouping_words(facts.get("grouping"))) is not None:  # issue 18: no session id
        console.print(Text(visible(grouped), style="dim"), overflow="fold")
    intercept = facts.get("intercept")
    if isinstance(intercept, dict):  # issue 17: how to repeat the run's faults
        rules = intercept.get("rules") or []
        names = ", ".join(str(r) for r in rules) if isinstance(rules, list) and rules else "none"
        console.print(
            Text(visible(f"intercepted: seed {intercept.get('seed')}, rules {names}"), style="magenta"),
            no_wrap=True,
            overflow="ellipsis",
        )
    width = method_width(console)
    clock = f"{'time':12} " if console.width >= WIDE else ""
    console.print(  # a Text: plain words, no markup or emoji codes to look for
        Text(
            f"{'seq':>5} {clock}{'dir':3} {'kind':6} {'method':{width}} {'id':>4} {'latency':>7} {'size':>6}"
        ),
        no_wrap=True,
        overflow="ellipsis",
    )


def method_width(console: Console) -> int:
    """Room left for the method column on this terminal: the other columns take 52 (39 without the
    clock, which narrow terminals drop to keep room for an error code after the row)."""
    if console.width >= WIDE:
        return max(16, min(48, console.width - 52))
    return max(16, console.width - 39 - _EXTRAS)


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
    from inspector.protocol.http_groups import header_dict  # only HTTP sessions need it

    headers = header_dict(m.http_headers)  # whatever shape an older or imported row holds
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    return f"{m.http_status} {content_type.split(';')[0]}".strip()


_DETAIL_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def _param(m: Message, key: str) -> str:
    try:
        params = orjson.loads(m.body).get("params") or {}
        return str(params.get(key, ""))
    except (orjson.JSONDecodeError, AttributeError):
        return ""


def message_line(m: Message, width: int = 28, *, clock: bool = True, label: str | None = None) -> Text:
    """One timeline row; `width` is the method column's width, `clock` shows the time column,
    `label` a short note at its end (a stdout line's class, `protocol.stdout_lines`).
    Print it with `no_wrap=True, overflow="ellipsis"`: the error code and flags at its end are
    cut on a narrow terminal, never wrapped."""
    kind_style = _KIND_STYLE.get(m.kind, "")
    method = m.method or ""
    if m.kind == "log" or (label and m.kind == "invalid"):  # a classified stdout line: its text says more
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
    if clock:
        line.append(f"{_clock(m.ts_ns):12} ")
    line.append(f"{_ARROWS.get(m.direction, m.direction):3} ", style="bold")
    line.append(f"{_KIND_LABEL.get(m.kind, m.kind):6} ", style=kind_style)
    method = visible(method)  # a server's method, a stderr line: shown, never run by the terminal
    if len(method) > width:
        method = method[: width - 1] + "…"
    rpc_id = visible(m.rpc_id or "")
    if len(rpc_id) > 4:  # string ids (uuids, "mock-12") keep the columns aligned
        rpc_id = rpc_id[:3] + "…"
    line.append(f"{method:{width}} ")
    line.append(f"{rpc_id:>4} ")
    line.append(f"{format_ns(m.latency_ns):>7} ")
    line.append(f"{_size(m.size):>6}", style="dim")
    # The error code before the flags: it matters more, and the end of a long row is what gets cut.
    if m.error_code is not None:
        line.append(f" code {m.error_code}", style="red")
    if isinstance(m.meta, dict) and (done := describe(m.meta)) is not None:  # issue 17
        line.append(f" {visible(done)}", style="magenta" if is_injected(m.meta) else "red")
    flags = (m.meta or {}).get("flags") if isinstance(m.meta, dict) else None
    if flags:
        line.append(visible(" " + " ".join(map(str, flags))), style="yellow")
    if label:
        line.append(f" [{visible(label)}]", style="bold red")
    return line
