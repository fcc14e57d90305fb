"""`mcp-inspect call`: one request to a server, its answer printed as JSON (the body is
`inspector/mock/call.py`)."""

from __future__ import annotations

from typing import Annotated

import typer

from inspector.cli.common import (
    AuthNonInteractiveOption,
    AuthOption,
    AuthWaitOption,
    CaBundleOption,
    ClientCertOption,
    ClientIdOption,
    ClientKeyOption,
    ClientMetadataUrlOption,
    ClientSecretOption,
    CommandArgument,
    DbOption,
    HeaderOption,
    InsecureOption,
    KeepSecretsOption,
    RedactOption,
    RedactPathOption,
    ScopeOption,
    auth_request,
    outbound,
    parse_headers,
    redaction,
    server_command,
)
from inspector.errors import InspectorError

__all__ = ["call"]


def call(
    method: Annotated[str, typer.Argument(help="The JSON-RPC method, e.g. tools/list or tools/call.")],
    command: CommandArgument = None,
    params: Annotated[str | None, typer.Option(help="The params as a JSON object.")] = None,
    url: Annotated[
        str | None, typer.Option(help="The server's URL instead of a command (.../sse: legacy HTTP+SSE).")
    ] = None,
    protocol_version: Annotated[
        str,
        typer.Option(
            help="The revision to offer: 2024-11-05 .. 2025-11-25 (initialize), 2026-07-28 (discover), or any string."
        ),
    ] = "2025-11-25",
    root: Annotated[
        list[str] | None,
        typer.Option(metavar="URI", help="A root URI to give the server if it asks (repeatable)."),
    ] = None,
    header: HeaderOption = None,
    progress: Annotated[
        bool, typer.Option(help="Ask for progress notifications and print them on stderr.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the answer.")] = 60.0,
    fetch_skills: Annotated[
        bool,
        typer.Option(
            help="With skills/list or skills/get: load each skill, SKILL.md first, verifying every file "
            "against its entry (size, sha256 digest, SKILL.md frontmatter); a mismatch stops with exit 1."
        ),
    ] = False,
    db: DbOption = None,
    redact: RedactOption = None,
    redact_path: RedactPathOption = None,
    keep_secrets: KeepSecretsOption = False,
    ca_bundle: CaBundleOption = None,
    client_cert: ClientCertOption = None,
    client_key: ClientKeyOption = None,
    insecure: InsecureOption = False,
    auth: AuthOption = False,
    client_id: ClientIdOption = None,
    client_secret: ClientSecretOption = None,
    client_metadata_url: ClientMetadataUrlOption = None,
    scope: ScopeOption = None,
    auth_non_interactive: AuthNonInteractiveOption = False,
    auth_wait: AuthWaitOption = 300.0,
    client_private_key: Annotated[
        str | None,
        typer.Option(
            "--client-private-key",
            metavar="PEM",
            help="--auth: the --client-id client's private key (a PEM file): it authenticates at the "
            "token endpoint with a signed assertion (private_key_jwt, RFC 7523) instead of a secret.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Connect, perform the handshake the revision needs, send one request and print the result as JSON.

    With --auth, a 401 starts the OAuth flow of the revision in use: discovery, registration (or
    --client-id, or --client-metadata-url), PKCE, the browser (a loopback listener takes the
    redirect), tokens. Tokens are kept in a user-only file ($MCP_INSPECTOR_AUTH_FILE, else
    ~/.config/mcp-inspector/auth.json), never in the recording; every leg is recorded with its step (`meta.auth_step`).

    Exit status 0 for a result, 1 for an error response, 2 when the server could not be reached
    or authorization failed.
    Sampling requests are refused and elicitations declined (nobody is there to answer); roots
    come from --root. The session is recorded (kind `mock-client`).
    """
    from inspector.mock.call import CallOptions, run_call
    from inspector.start_up import leave, starting_up

    command = server_command(command)
    if bool(command) == bool(url):
        raise InspectorError("call needs a target: either --url URL or -- COMMAND [ARGS...]")
    with starting_up():  # the settings and the recorder's modules: start-up, as `run_call`'s imports
        redaction(redact, redact_path, keep_secrets)
        outbound(url, ca_bundle, client_cert, client_key, insecure)
    import orjson

    try:
        parsed = orjson.loads(params) if params else None
    except orjson.JSONDecodeError as exc:
        raise InspectorError(f"--params is not valid JSON: {exc}") from None
    if parsed is not None and not isinstance(parsed, dict):
        raise InspectorError("--params must be a JSON object")
    if fetch_skills and method not in ("skills/list", "skills/get"):
        raise InspectorError("--fetch-skills goes with skills/list or skills/get")
    wanted = auth_request(
        auth, url, client_id, client_secret, client_metadata_url, scope, auth_non_interactive, auth_wait
    )
    if client_private_key is not None:
        from dataclasses import replace

        from inspector.auth.connect import AuthRequest, check_auth_options

        given = replace(wanted or AuthRequest(), client_private_key=client_private_key)
        wanted = check_auth_options(auth, url, given)
    options = CallOptions(
        method=method,
        target=url or command,
        params=parsed,
        protocol_version=protocol_version,
        roots=list(root or ()),
        headers=parse_headers(header),
        progress=progress,
        timeout=timeout,
        db=db,
        auth=wanted,
        fetch_skills=fetch_skills,
    )
    status = run_call(options)
    leave(status)  # the console script's process ends here, without the interpreter's teardown
    raise typer.Exit(status)
