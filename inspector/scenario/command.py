"""The body of `mcp-inspect serve` (cli/mock.py declares it)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import anyio
from sqlalchemy import Engine

from inspector.errors import InspectorError
from inspector.guard import Access
from inspector.scenario.runner import ServeOptions, run_serve

__all__ = ["serve_command"]


def serve_command(
    engine: Engine,
    scenario: str | None,
    *,
    stdio: bool,
    http: str | None,
    versions: Sequence[str],
    name: str | None,
    access: Access | None = None,
    auth: tuple[bool, Sequence[str], str | None] = (False, (), None),
    faults: tuple[str | None, int | None, bool, float | None, str | None] = (None, None, False, None, None),
) -> None:
    """`faults`: --faults, --seed, --intercept, --pause-timeout, --pause-default."""
    from inspector.transports.serve import parse_listen

    if stdio and http:
        raise InspectorError("give either --stdio or --http HOST:PORT, not both")
    options = ServeOptions(
        scenario=scenario,
        protocol_versions=tuple(versions),
        name=name,
        auth=auth[0],
        auth_faults=tuple(auth[1]),
        approve=auth[2],
        faults=faults[0],
        seed=faults[1],
        intercept=faults[2],
        pause_timeout=faults[3],
        pause_default=faults[4],
    )
    listen = parse_listen(http) if http else None
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(lambda: run_serve(engine, options, http=listen, access=access or Access()))
