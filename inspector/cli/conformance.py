"""`mcp-inspect conformance ...`: our client under the official MCP conformance suite (the body is
`inspector/conformance/client.py`), registered in cli/__init__.py.

Only Typer at import time.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from inspector.cli.common import DbOption
from inspector.errors import InspectorError
from inspector.help_text import HELP

__all__ = ["app"]

app = typer.Typer(
    name="conformance",
    help="Run the inspector's client under the official MCP conformance suite.",
    no_args_is_help=True,
    **HELP,
)


def client(
    url: Annotated[str, typer.Argument(help="The scenario server's URL (the suite passes it last).")],
    scenario: Annotated[
        str | None,
        typer.Option(help="The scenario. Default: $MCP_CONFORMANCE_SCENARIO.", show_default=False),
    ] = None,
    protocol_version: Annotated[
        str | None,
        typer.Option(
            help="The revision to speak. Default: $MCP_CONFORMANCE_PROTOCOL_VERSION, else 2025-11-25.",
            show_default=False,
        ),
    ] = None,
    auth: Annotated[
        bool, typer.Option(help="Authorize with OAuth when the server answers 401 (the auth/* scenarios).")
    ] = True,
    browser: Annotated[
        bool,
        typer.Option(
            help="Authorize through the system browser ($BROWSER) and a loopback listener instead of "
            "following the authorization redirect without one."
        ),
    ] = False,
    client_metadata_url: Annotated[
        str, typer.Option(help="The client metadata document URL offered where the server accepts CIMD.")
    ] = "https://conformance-test.local/client-metadata.json",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each answer.")] = 20.0,
    db: DbOption = None,
) -> None:
    """Do what one conformance scenario asks of a client, against URL: the suite's client command.

    The suite starts a server per scenario and runs this command with the server's URL as its last
    argument, the scenario in $MCP_CONFORMANCE_SCENARIO, the revision in
    $MCP_CONFORMANCE_PROTOCOL_VERSION and its context (pre-registered credentials, the tool calls to
    make) in $MCP_CONFORMANCE_CONTEXT. One connection, recorded as a session (kind `mock-client`,
    named `conformance SCENARIO`): the handshake, then the tools listed and called, resources read
    and prompts got; elicitations accepted with their defaults. For the auth/* scenarios OAuth runs
    without a browser (the context's client_id, client_secret or private_key_pem).

    Run every scenario a revision requires (Node 22 and npx):

    `npx @modelcontextprotocol/conformance client --command "mcp-inspect conformance client"
    --requirements 2026-07-28`

    Exit status 0 when the scenario's calls were made, 1 when the handshake was refused, 2 when the
    server could not be reached or authorization failed.
    """
    import json
    import tempfile

    from inspector.auth.connect import AuthRequest
    from inspector.conformance.client import ClientRun, run_client

    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}"
    try:
        context = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InspectorError(f"$MCP_CONFORMANCE_CONTEXT is not valid JSON: {exc}") from None
    if not isinstance(context, dict):
        raise InspectorError("$MCP_CONFORMANCE_CONTEXT must be a JSON object")
    if timeout <= 0:
        raise InspectorError("--timeout must be a positive number of seconds")
    wanted = None
    key_file = None
    if auth:
        client_id = context.get("client_id")
        client_secret = context.get("client_secret")
        if client_id and context.get("private_key_pem"):  # private_key_jwt: the key as a file of its own
            fd, key_file = tempfile.mkstemp(suffix=".pem")  # created 0600
            with os.fdopen(fd, "w") as f:
                f.write(str(context["private_key_pem"]))
        wanted = AuthRequest(
            client_id=str(client_id) if client_id else None,
            client_secret=str(client_secret) if client_secret and client_id else None,
            client_metadata_url=client_metadata_url,
            non_interactive=not browser,
            wait=timeout,
            client_private_key=key_file,
        )
    run = ClientRun(
        url=url,
        scenario=scenario or os.environ.get("MCP_CONFORMANCE_SCENARIO", ""),
        context=context,
        protocol_version=protocol_version
        or os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
        or "2025-11-25",
        auth=wanted,
        timeout=timeout,
        db=db,
    )
    try:
        status = run_client(run)
    finally:
        if key_file is not None:
            os.unlink(key_file)
    raise typer.Exit(status)


app.command("client")(client)
