"""Intercept and fault injection on the HTTP proxy (`proxy --faults FILE` / `--intercept`): the wiring.

Interception is an addon (`intercept.addon.InterceptAddon`, the same one `wrap`
uses) over the plain `transports.http_proxy.HttpProxy`; how its verdicts become
HTTP is `transports/http_intervene.py`. The CLI builds the addon only when a
rules file or `--intercept` is given: the plain proxy has no addon and no check
on its forwarding path beyond one None test. When no rule can ever act (every
rule disabled, or pauses without `--intercept`) the addon does not decide: the
proxy forwards as the plain one does and only records `facts.intercept` in each
session.
"""

from __future__ import annotations

import textwrap
from typing import Any

from inspector.capture import Recorder
from inspector.flow import Addons
from inspector.intercept.addon import InterceptAddon
from inspector.intercept.engine import Interceptor
from inspector.store.db import db_key
from inspector.transports.http_proxy import HttpProxy

__all__ = ["describe", "proxy_addon", "proxy_addons", "proxy_interceptor", "start_proxy_control"]


def proxy_addon(interceptor: Interceptor, intercept: bool) -> InterceptAddon:
    """The intercept addon for these flags: deciding only when a rule can act (or `--intercept`:
    rules and breakpoints may be added live)."""
    return InterceptAddon(interceptor, decides=intercept or interceptor.active)


def proxy_addons(interceptor: Interceptor, intercept: bool) -> Addons:
    """What `HttpProxy(addons=...)` takes for these flags."""
    return Addons([proxy_addon(interceptor, intercept)])


# --- the command's wiring (`mcp-inspect proxy --faults/--intercept`) ---------------------------------


def proxy_interceptor(
    faults: str | None,
    *,
    intercept: bool,
    seed: int | None,
    pause_timeout: float | None,
    pause_default: str | None,
) -> Interceptor:
    """The interceptor the flags describe (`RulesError`, an `InspectorError`, for a bad rules file)."""
    from inspector.intercept.wrap import build_interceptor

    return build_interceptor(
        faults,
        intercept=intercept,
        seed=seed,
        pause_timeout=pause_timeout,
        pause_default=pause_default,
        transport="http",
    )


def describe(interceptor: Interceptor, intercept: bool = False, width: int = 80) -> str:
    """The start-up lines about interception: the seed and the rules, folded at `width` columns."""
    names = [r.name for r in interceptor.rules()]
    if not proxy_addon(interceptor, intercept).decides:
        text = f"[mcp-inspect] no rule is active ({len(names)} in the file): forwarding as a plain proxy"
        return textwrap.fill(text, width, subsequent_indent=" " * 14)
    head = f"[mcp-inspect] intercepting with seed {interceptor.seed}: "
    text = head + (
        f"{len(names)} rule{'s' * (len(names) != 1)}: " + ", ".join(names) if names else "no rules"
    )
    return textwrap.fill(
        text, width, subsequent_indent=" " * 14, break_long_words=False, break_on_hyphens=False
    )


def start_proxy_control(proxy: HttpProxy, recorder: Recorder, target: str, engine: Any) -> Any:
    """The control channel (`--intercept`) of the proxy's intercept addon, announcing the proxy's open
    sessions and their database; None when this build has none (or the proxy has no such addon)."""
    addon = next(
        (a for a in (proxy.addons.all if proxy.addons else ()) if isinstance(a, InterceptAddon)), None
    )
    if addon is None:
        return None
    try:
        from inspector.control.server import start_control  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None

    def sessions() -> list[int]:
        ids = (recorder.session_id(handle) for handle in list(proxy.taps))
        return sorted(i for i in ids if i is not None)

    handle = start_control(
        addon.interceptor, kind="proxy", target=target, sessions=sessions, db=db_key(engine)
    )
    addon.on_session = handle.announce
    return handle
