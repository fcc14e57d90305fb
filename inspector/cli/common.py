"""What the commands of `inspector/cli/` share: the option groups, each defined once as an
`Annotated` type (store, redaction, intercept and faults, recording, access, outbound, auth), and
the small helpers that turn a group's values into settings.

Only Typer at import time (`mcp-inspect --help` stays fast); the helpers import what they need
when a command runs. The process-wide setup (redaction, outbound HTTP, access, the store) is
`inspector/command_setup.py`, shared with the composition roots (`run_proxy`, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from inspector.command_setup import access, err, open_store, outbound, print_error, redaction
from inspector.errors import InspectorError

if TYPE_CHECKING:
    from inspector.auth.connect import AuthRequest

__all__ = [
    "access",
    "auth_request",
    "open_store",
    "options",
    "err",
    "outbound",
    "parse_headers",
    "parse_secrets",
    "print_error",
    "redaction",
    "server_command",
]

T = TypeVar("T")

# The store.
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Recording database: a file path, or a URL (postgresql://USER@HOST/DB for a store shared "
        "by a team; its password from ~/.pgpass or $PGPASSWORD, never printed). "
        "Default: $MCP_INSPECTOR_DB, else the config file's `db` (`mcp-inspect config`), "
        "else ./recordings/inspector.db. "
        "Readable by you only: created 0600 (new folders and ./recordings 0700); "
        "an existing one of yours that others can read is made 0600 (said on stderr).",
        show_default=False,
    ),
]
# Redaction.
RedactOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact",
        metavar="NAME",
        help="Also redact this header, query parameter or JSON key (repeatable; "
        "also $MCP_INSPECTOR_REDACT, comma-separated).",
        show_default=False,
    ),
]
RedactPathOption = Annotated[
    list[str] | None,
    typer.Option(
        "--redact-path",
        metavar="PATH",
        help="Also redact the value at this JSON path of any message, e.g. "
        "params.arguments.api_key; '*' is any one key (repeatable).",
        show_default=False,
    ),
]
KeepSecretsOption = Annotated[
    bool,
    typer.Option(
        "--keep-secrets",
        help="Store credentials as they were sent (headers, URL query, OAuth bodies, "
        "--redact names). Default: each is stored as a [secret:NAME] placeholder.",
    ),
]


# Intercept and fault injection (the same flags on wrap and proxy; docs/how-to/intercept.md).
FaultsOption = Annotated[
    str | None,
    typer.Option(
        "--faults",
        metavar="FILE",
        help="Fault rules (YAML or JSON): delay, drop, duplicate, reorder, corrupt, truncate, "
        "replace, disconnect matching messages. Docs: 'Intercept and inject faults'.",
        show_default=False,
    ),
]
InterceptOption = Annotated[
    bool,
    typer.Option(
        "--intercept",
        help="Breakpoints on (rules with action: pause hold messages) and the control channel "
        "open for `mcp-inspect intercept` and the UI's Intercept panel.",
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Seed of the rules' random choices (probability, jitter, corrupt): repeat a run. "
        "Default: the rules file's seed, else random (recorded in the session facts).",
        show_default=False,
    ),
]
PauseTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--pause-timeout",
        metavar="S",
        help="Seconds a paused message waits for a decision (default: the rules file's, else 30).",
        show_default=False,
    ),
]
PauseDefaultOption = Annotated[
    str | None,
    typer.Option(
        "--pause-default",
        metavar="forward|drop",
        help="What happens to a paused message nobody decided on in time (default forward).",
        show_default=False,
    ),
]
# What is recorded, and exported to OpenTelemetry.
OtlpOption = Annotated[
    str | None,
    typer.Option(
        "--otlp",
        metavar="URL",
        help="Export each request as an OpenTelemetry span, with the duration histograms, to this "
        "OTLP/HTTP collector (base URL, e.g. http://localhost:4318). Without it the standard "
        "OTEL_EXPORTER_OTLP_* variables are honoured (docs: Export to OpenTelemetry).",
        show_default=False,
    ),
]
MaxRecordBytesOption = Annotated[
    str | None,
    typer.Option(
        "--max-record-bytes",
        help="Record at most this much of one message (e.g. 32MiB, the default: storage.max_record_bytes);"
        " a longer one is forwarded whole and recorded as its first bytes, its size and SHA-256.",
        show_default=False,
    ),
]
MetadataOnlyOption = Annotated[
    bool,
    typer.Option(
        "--metadata-only",
        help="Record methods, ids, sizes, timing and header names, but no bodies (sensitive servers).",
    ),
]
OtlpContentOption = Annotated[
    bool,
    typer.Option(
        "--otlp-content",
        help="Also export tool arguments and results as span attributes (opt-in; redacted as stored).",
    ),
]


# Secrets put back when sending.
SecretOption = Annotated[
    list[str] | None,
    typer.Option(
        "--secret",
        metavar="NAME=VALUE",
        help="A secret the recording holds as a [secret:NAME] placeholder, put back when "
        "sending (repeatable; else $MCP_INSPECTOR_SECRET_NAME).",
        show_default=False,
    ),
]


# Access: who may call a listener.
AllowRemoteOption = Annotated[
    bool,
    typer.Option(
        "--allow-remote",
        help="Allow listening on a non-loopback interface (other machines can then connect).",
    ),
]
AllowHostOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-host",
        metavar="NAME",
        help="Also answer to this Host name, e.g. behind another name or a reverse proxy "
        "(NAME or NAME:PORT; repeatable). Loopback names are always accepted.",
        show_default=False,
    ),
]
AllowOriginOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-origin",
        metavar="ORIGIN",
        help="Let a browser page on this origin call the listener, e.g. a browser-based MCP client "
        "at http://localhost:5173 (repeatable; 'null' for sandboxed pages). Other origins get 403.",
        show_default=False,
    ),
]


# Outbound: how an HTTPS server is reached.
CaBundleOption = Annotated[
    str | None,
    typer.Option(
        "--ca-bundle",
        metavar="FILE",
        help="Trust the HTTPS server's certificate only if these PEM CA certificates "
        "sign it, e.g. a private CA (instead of the system's trust store).",
        show_default=False,
    ),
]
ClientCertOption = Annotated[
    str | None,
    typer.Option(
        "--client-cert",
        metavar="FILE",
        help="Client certificate (PEM) for HTTPS servers that ask for one; may also hold the private key.",
        show_default=False,
    ),
]
ClientKeyOption = Annotated[
    str | None,
    typer.Option(
        "--client-key",
        metavar="FILE",
        help="The private key (PEM, unencrypted) of --client-cert, when not in that file.",
        show_default=False,
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure",
        help="Do not check the HTTPS server's certificate (anyone on the path can then "
        "read and change the traffic). For test servers only.",
    ),
]
# OAuth authorization of a client (call, replay, versions).
AuthOption = Annotated[
    bool,
    typer.Option(
        "--auth",
        help="Authorize with OAuth when the server answers 401 (--url only). Tokens are kept in "
        "a user-only file ($MCP_INSPECTOR_AUTH_FILE, else ~/.config/mcp-inspector/auth.json), "
        "never in the recording.",
    ),
]
ClientIdOption = Annotated[
    str | None,
    typer.Option("--client-id", help="--auth: a client registered with the AS.", show_default=False),
]
ClientSecretOption = Annotated[
    str | None, typer.Option("--client-secret", help="--auth: that client's secret.", show_default=False)
]
ClientMetadataUrlOption = Annotated[
    str | None,
    typer.Option(
        "--client-metadata-url",
        help="--auth: an https URL of this client's metadata document (CIMD).",
        show_default=False,
    ),
]
ScopeOption = Annotated[
    str | None,
    typer.Option("--scope", help="--auth: the scopes to ask for (space-separated).", show_default=False),
]
AuthNonInteractiveOption = Annotated[
    bool,
    typer.Option(
        "--auth-non-interactive",
        help="--auth: follow the AS's redirects instead of opening a browser (an AS that approves by itself).",
    ),
]
AuthWaitOption = Annotated[
    float, typer.Option("--auth-wait", help="--auth: seconds to wait for the browser to come back.")
]
MaxConnectionsOption = Annotated[
    int,
    typer.Option(
        "--max-connections",
        metavar="N",
        help="At most N connections to the upstream server at once; more requests wait for one.",
    ),
]


# Shared by the replaying and probing commands.
CommandArgument = Annotated[
    list[str] | None,
    typer.Argument(help="The server command (after --), for stdio."),
]
TimeoutOption = Annotated[float, typer.Option(help="Seconds to wait for each response.")]
MatchOption = Annotated[
    str,
    typer.Option(help="How the server's requests are matched to recorded answers: strict or lenient."),
]
HeaderOption = Annotated[
    list[str] | None, typer.Option(metavar="HEADER", help="An HTTP header, 'Name: value' (repeatable).")
]
VerboseOption = Annotated[bool, typer.Option("--verbose", help="List the default ignored paths.")]
StrictVolatileOption = Annotated[
    bool,
    typer.Option(
        "--strict-volatile",
        help="Count strings that changed only in times, dates, ids or numbers (shown as "
        "volatile) as changes too.",
    ),
]
StdioOption = Annotated[bool, typer.Option("--stdio", help="Serve one client on stdin/stdout (default).")]
NoOpenOption = Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")]


# Argument helpers.
def server_command(command: list[str] | None) -> list[str]:
    """The server command after `--` (Click keeps a second `--` as the command's first word)."""
    return list(command[1:] if command and command[0] == "--" else command or [])


def parse_secrets(values: list[str] | None) -> dict[str, str]:
    """--secret NAME=VALUE, each name lower-cased."""
    secrets = {}
    for value in values or ():
        name, sep, content = value.partition("=")
        if not sep or not name.strip():
            raise InspectorError(f"--secret wants NAME=VALUE, got {value!r}")
        secrets[name.strip().lower()] = content
    return secrets


def parse_headers(values: list[str] | None) -> dict[str, str]:
    """--header 'Name: value'."""
    headers = {}
    for value in values or ():
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise InspectorError(f"--header wants 'Name: value', got {value!r}")
        headers[name.strip()] = content.strip()
    return headers


def auth_request(
    auth: bool,
    url: str | None,
    client_id: str | None,
    client_secret: str | None,
    client_metadata_url: str | None,
    scope: str | None,
    non_interactive: bool,
    wait: float,
) -> AuthRequest | None:
    """The checked `--auth` options of `call`, `replay` and `versions` (None without --auth)."""
    if not (auth or client_id or client_secret or client_metadata_url or scope or non_interactive):
        return None  # no OAuth option given: nothing to check, and the OAuth code stays unloaded
    from inspector.auth.connect import AuthRequest, check_auth_options

    given = AuthRequest(client_id, client_secret, client_metadata_url, scope, non_interactive, wait)
    return check_auth_options(auth, url, given)


def options(cls: type[T], given: dict[str, Any]) -> T:
    """A command's options object (a dataclass) from its parameters (`locals()`): a parameter
    not given (None) takes the field's default."""
    from dataclasses import fields

    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in given.items() if k in names and v is not None})
