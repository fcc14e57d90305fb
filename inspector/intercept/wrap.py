"""`wrap --faults / --intercept`: the plain stdio shim with the interceptor as its addon.

Only imported when one of the intercept flags is given: plain `wrap` keeps
its start-up path untouched. The shim (`transports/stdio.py`) frames the
NDJSON lines and applies the verdicts; `addon.InterceptAddon` asks the
`Interceptor` per line. Here: the interceptor the flags describe, the control
channel, and the session's start and end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from inspector.errors import InspectorError, RulesError, SpawnError
from inspector.flow import Addons
from inspector.intercept.addon import InterceptAddon
from inspector.intercept.engine import Interceptor
from inspector.intercept.rules import RuleSet, check_transport, load_rules
from inspector.transports.stdio import StdioShim

__all__ = ["build_interceptor", "run_intercepted"]


def build_interceptor(
    faults: str | None,
    *,
    intercept: bool,
    seed: int | None,
    pause_timeout: float | None,
    pause_default: str | None,
    transport: str = "stdio",
) -> Interceptor:
    """The interceptor the flags describe (RulesError for a bad rules file)."""
    ruleset = load_rules(faults) if faults else RuleSet()
    check_transport(ruleset, transport, faults or "rules")
    update: dict[str, Any] = {}
    if pause_timeout is not None:
        if pause_timeout <= 0:
            raise RulesError("--pause-timeout must be a positive number of seconds")
        update["pause_timeout_s"] = pause_timeout
    if pause_default is not None:
        if pause_default not in ("forward", "drop"):
            raise RulesError("--pause-default is forward or drop")
        update["pause_default"] = pause_default
    if update:
        ruleset = ruleset.model_copy(update=update)
    return Interceptor(
        ruleset, seed=seed, breakpoints=intercept, source=os.path.abspath(faults) if faults else None
    )


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(f"[mcp-inspect] {text}", file=sys.stderr, flush=True)


def run_intercepted(
    opts: Any, open_store: Callable[[], Any], spawn_failed: Callable[[Any, SpawnError], int]
) -> int:
    """`run_wrap` with --faults/--intercept: the store opens first, then the server starts.

    `open_store()` gives wrap's store; `spawn_failed(store, exc)` records a server that could not
    start and gives the exit status (both wrap's: this module does not import it back)."""
    if opts.durable:
        raise InspectorError("--durable cannot be combined with --faults or --intercept")
    ic = build_interceptor(
        opts.faults,
        intercept=opts.intercept,
        seed=opts.seed,
        pause_timeout=opts.pause_timeout,
        pause_default=opts.pause_default,
    )
    pauses = [r.name for r in ic.rules() if r.action == "pause"]
    store = open_store()
    store.tap.add_facts({"intercept": ic.facts()})
    # Nothing can ever be intercepted (every rule disabled, or pauses without --intercept, and no
    # control channel to change that): the plain pumps forward, at a plain wrap's cost.
    idle = not opts.intercept and not ic.active
    addons = None if idle else Addons([InterceptAddon(ic)])
    shim = StdioShim(opts.command, store.tap, grace=opts.grace, addons=addons)
    control = None
    if opts.intercept:  # before the server starts: an unsafe runtime directory stops everything
        from inspector.control.server import start_control
        from inspector.store.db import db_key

        sid = store.session_id
        try:
            control = start_control(
                ic, kind="wrap", target=opts.command, sessions=lambda: [sid], db=db_key(store.engine)
            )
        except InspectorError as exc:
            store.end(None, f"intercept control channel: {exc}", True)
            raise
    try:
        shim.spawn()
    except SpawnError as exc:
        if control is not None:
            control.close()
        return spawn_failed(store, exc)
    store.announce(opts)
    if idle:
        _say(opts.quiet, f"no rule is active ({len(ic.rules())} in the file): forwarding as a plain wrap")
    else:
        _say(opts.quiet, f"intercepting: {len(ic.rules())} rule(s), seed {ic.seed}")
    if pauses and not opts.intercept:
        _say(opts.quiet, f"rule(s) {', '.join(pauses)} pause only with --intercept: not active")
    if control is not None:
        _say(
            opts.quiet, f"paused messages: the UI's Intercept tab of session {sid}, or mcp-inspect intercept"
        )
    try:
        result = shim.run()
    finally:
        if control is not None:
            control.close()
    store.tap.add_facts({"intercept": ic.facts()})  # rules added live are named too
    store.end(result.returncode, result.reason, opts.quiet)
    return result.exit_code
