"""What a command sets up before it runs: the process's redaction rules, its outbound HTTP settings,
the listener's access rules and the recording store.

Shared by the command line (`inspector/cli/`) and the composition roots it calls (`run_proxy`,
`run_gateway`, ...), which tests may call in-process. Only the errors module at import time: each
helper imports what it needs when called (`mcp-inspect --help` stays fast).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.errors import InspectorError

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from inspector.guard import Access
    from inspector.store.db import Db

__all__ = ["access", "err", "open_db_store", "open_store", "outbound", "print_error", "redaction"]


def err() -> Console:
    """stderr, as Rich prints to it (lines are not cut: the terminal wraps them)."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def print_error(exc: InspectorError) -> None:
    """A user error as one red line on stderr (its text is never read as Rich markup: a path or a
    TOML table name in brackets is printed as it is), and a recorded name in it is shown with its
    control characters escaped."""
    from inspector.terminal_text import markup_safe

    err().print(f"[red]error:[/red] {markup_safe(str(exc))}")


def open_store(db: str | None, *, create: bool = True) -> Engine:
    """The recording store of `--db` (None: the default one) as an SQLAlchemy `Engine`, for the
    commands whose code still takes one (the API, replay, retention, ...); `open_db_store` for the
    rest."""
    from inspector.config import default_db
    from inspector.store import open_engine

    return open_engine(db or default_db(), create=create)


def open_db_store(db: str | None, *, create: bool = True) -> Db:
    """The recording store of `--db` (None: the default one) over DB-API (`store.opening.open_db`:
    SQLAlchemy is imported only to create or upgrade it): `call`, `lint`, `wrap`, `demo`."""
    from inspector.config import default_db
    from inspector.store.opening import open_db

    return open_db(db or default_db(), create=create)


def redaction(names: list[str] | None, paths: list[str] | None, keep: bool) -> None:
    """Set this process's redaction rules (every recorder and session of the command uses them)."""
    from inspector.capture.redact import configure

    try:
        configure(names or (), paths or (), keep=keep)
    except ValueError as exc:
        raise InspectorError(str(exc)) from None


def outbound(
    url: str | None,
    ca_bundle: str | None,
    client_cert: str | None,
    client_key: str | None,
    insecure: bool,
    *,
    max_connections: int | None = None,
    needs_url: str | None = "--url",
    say_proxy: bool = True,
) -> None:
    """Set this process's outbound HTTP settings (every client of the command uses them) and say on
    stderr what a user must know: a forward proxy in use, certificate checks turned off.
    `needs_url`: the option a TLS setting is meaningless without (a stdio target has no TLS)."""
    from inspector.transports.outbound import DEFAULT_MAX_CONNECTIONS, Outbound, configure, proxy_for

    settings = Outbound(
        ca_bundle, client_cert, client_key, insecure, max_connections or DEFAULT_MAX_CONNECTIONS
    )
    if url is None and needs_url and settings.tls_customised:
        raise InspectorError(
            f"--ca-bundle, --client-cert and --insecure are for HTTPS servers: give {needs_url} URL"
        )
    configure(settings)
    if insecure:
        err().print(
            "[bold red]WARNING: --insecure: the server's certificate is not checked; anyone on "
            "the path can read and change this traffic.[/bold red]"
        )
    if url is not None and say_proxy and (proxy := proxy_for(url)):
        from httpx import URL

        shown = URL(proxy).copy_with(username=None, password=None)
        err().print(f"\\[mcp-inspect] through the forward proxy {shown} (from the environment)")


def access(allow_remote: bool, hosts: list[str] | None, origins: list[str] | None) -> Access:
    """The listener's access rules from --allow-remote, --allow-host and --allow-origin."""
    from inspector.guard import Access, parse_origins

    return Access(allow_remote, tuple(hosts or ()), parse_origins(origins or ()))
