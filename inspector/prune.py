"""`mcp-inspect prune`, `pin` and `unpin`: the bodies of the commands (thin wrappers in cli/retention.py).

`prune` applies the retention policy in force (config file < MCP_INSPECTOR_* variables < its own
flags, `inspector/settings.py`) to a store now: `--dry-run` prints what would go and changes
nothing; a real run shows progress and a summary (sessions removed, bytes reclaimed, the file's
size before and after). With no policy anywhere it says so and removes nothing.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from inspector.settings import Effective
    from inspector.store.retention import Plan

__all__ = ["human_size", "load_policy", "pin", "policy_lines", "policy_values", "prune"]

_KEYS = (
    ("max_age", "--max-age"),
    ("max_total_size", "--max-total-size"),
    ("max_session_size", "--max-session-size"),
)


def human_size(n: int | float) -> str:
    """Bytes in decimal units (as the settings take them): 812 B, 45.1 kB, 3.2 MB, 1.05 GB."""
    n = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            if unit == "B":
                return f"{int(n)} B"
            return f"{n:.3g} {unit}" if abs(n) < 100 else f"{n:.0f} {unit}"
        n /= 1000
    return f"{n:.0f} TB"  # pragma: no cover


def _duration(seconds: float) -> str:
    for unit, size in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def policy_values(effective: Effective) -> list[dict[str, str | None]]:
    """The policy in force: each setting's key, its value as the config file takes it (None: not
    set) and where it came from."""
    r = effective.settings.retention
    shown = {
        "max_age": None if r.max_age is None else _duration(r.max_age),
        "max_total_size": None if r.max_total_size is None else human_size(r.max_total_size),
        "max_session_size": None if r.max_session_size is None else human_size(r.max_session_size),
        "keep_labelled": "yes" if r.keep_labelled else "no",
    }
    return [{"key": k, "value": v, "source": effective.source("retention." + k)} for k, v in shown.items()]


def policy_lines(effective: Effective) -> list[str]:
    """The policy in force, one line per value, each with where it came from."""
    return [
        f"  {p['key']:<17} {p['value'] or 'not set':<9} ({p['source']})" for p in policy_values(effective)
    ]


def _plan_table(planned: Plan, width: int) -> object:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from inspector.terminal_text import visible

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, expand=False)
    rows = [
        [
            str(c.id),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(c.started_ns / 1e9)),
            human_size(c.bytes),
            c.reason,
            visible(c.name or ""),  # an imported session's name: its controls shown, not run
        ]
        for c in planned.remove
    ]
    names = ["id", "started", "size", "why", "name"]
    widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
    room = max(8, min(width, 80) - sum(widths[:-1]) - 2 * (len(names) - 1) - 1)
    for i, n in enumerate(names):
        last = i == len(names) - 1
        table.add_column(
            n,
            no_wrap=True,
            justify="right" if n in ("id", "size") else "left",
            min_width=None if last else widths[i],
            max_width=room if last else None,
        )
    for r in rows:
        cell = Text(r[-1], no_wrap=True, overflow="ellipsis")
        cell.truncate(room, overflow="ellipsis")
        table.add_row(*r[:-1], cell)
    return table


def _print_plan(out: Console, planned: Plan) -> None:
    if planned.remove:
        out.print(_plan_table(planned, out.width))
    n = len(planned.remove)
    out.print(
        f"{n} of {planned.sessions} session{'s' if planned.sessions != 1 else ''} would go "
        f"({human_size(planned.remove_bytes)} of rows); the store holds {human_size(planned.used_bytes)}, "
        f"about {human_size(planned.after_bytes)} after.",
        highlight=False,
    )
    for s in planned.live_over_size:
        out.print(
            f"session {s.id} is over max_session_size ({human_size(s.bytes)}) but still recording: "
            "kept until it ends.",
            highlight=False,
        )
    if planned.kept:
        out.print(
            f"{len(planned.kept)} pinned or labelled session(s) kept whatever the policy.", highlight=False
        )


def load_policy(max_age: str | None, max_total_size: str | None, max_session_size: str | None) -> Effective:
    from inspector import settings

    given = {"max_age": max_age, "max_total_size": max_total_size, "max_session_size": max_session_size}
    return settings.load(flags={f"retention.{key}": (given[key], flag) for key, flag in _KEYS})


def prune(
    engine: Engine | None,
    effective: Effective,
    *,
    dry_run: bool,
) -> int:
    """Apply (or, with `dry_run`, show) the retention policy on `engine`'s store (None: there is no
    policy, nothing to open); the exit status."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from inspector.store.engine import store_name
    from inspector.store.retention import apply, plan

    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    retention = effective.settings.retention
    if not retention.active:
        where = effective.path or effective.looked_at
        out.print(
            "No retention policy is set: nothing removed. Set [retention] max_age, max_total_size or "
            f"max_session_size in {where}, MCP_INSPECTOR_MAX_AGE (and ..._TOTAL_SIZE, ..._SESSION_SIZE), "
            "or pass --max-age, --max-total-size, --max-session-size.",
            markup=False,
        )
        return 0
    assert engine is not None
    # Paths stay whole (soft_wrap: the terminal wraps them), so they can be copied.
    out.print(f"Store: {store_name(engine)}", markup=False, soft_wrap=True)
    out.print("Policy:")
    for line in policy_lines(effective):
        out.print(line, markup=False, soft_wrap=True)
    planned = plan(engine, retention)
    if dry_run:
        _print_plan(out, planned)
        out.print("Dry run: nothing was removed.")
        return 0
    from inspector.store.usage import store_usage

    before = store_usage(engine)
    if before.auto_vacuum == "none":
        err.print(
            "This file predates incremental vacuum: it is converted once by a full VACUUM, which "
            f"rewrites it (needs up to {human_size(before.file_bytes)} of free disk space).",
            markup=False,
        )
    with Progress(
        TextColumn("removing sessions"), BarColumn(), MofNCompleteColumn(), console=err, transient=True
    ) as bar:
        task = bar.add_task("prune", total=max(1, len(planned.remove)))
        done = apply(
            engine,
            planned,
            convert=True,
            progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    assert done.after is not None
    out.print(
        f"Removed {len(done.removed)} session{'s' if len(done.removed) != 1 else ''} "
        f"({human_size(sum(c.bytes for c in planned.remove if c.id in set(done.removed)))} of rows); "
        f"{done.vacuum}.",
        markup=False,
    )
    if done.skipped:
        out.print(f"Skipped {len(done.skipped)} pinned or already removed meanwhile.")
    out.print(
        f"Store size: {human_size(before.file_bytes)} before, {human_size(done.after.file_bytes)} after "
        f"(reclaimed {human_size(done.reclaimed_bytes)}).",
        markup=False,
    )
    for s in planned.live_over_size:
        out.print(f"Session {s.id} is over max_session_size but still recording: kept until it ends.")
    return 0


def pin(engine: Engine, ref: str, pinned: bool) -> str:
    """Pin (retention keeps it) or unpin a session; the line to print."""
    from inspector.store.queries import get_session, update_session

    found = get_session(engine, ref)
    assert found.id is not None
    update_session(engine, found.id, pinned=pinned)
    what = "pinned: retention keeps it" if pinned else "unpinned: retention may remove it"
    return f"session {found.id}{f' ({found.name})' if found.name else ''} {what}"
