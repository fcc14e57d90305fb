"""The conformance suite's client command: runs OUR client (`mcp-inspect call --auth`) on a scenario.

The suite (`@modelcontextprotocol/conformance client`) runs this with the
server URL as the last argument, the scenario in $MCP_CONFORMANCE_SCENARIO and,
for some scenarios, $MCP_CONFORMANCE_CONTEXT (JSON). Like the suite's own
example client it lists the tools and calls the first one, authorizing
non-interactively (or, with --browser, through $BROWSER); options come from the context (pre-registered
credentials) and one fixed client metadata document URL (the one the
suite's example client uses). Nothing depends on the scenario's name.
Each run keeps tokens in its own file ($MCP_INSPECTOR_AUTH_FILE) and records
into $MCP_INSPECTOR_DB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
MCP_INSPECT = str(Path(sys.executable).with_name("mcp-inspect"))


def _call(url: str, method: str, params: dict[str, object] | None, auth_args: list[str]) -> tuple[int, str]:
    argv = [MCP_INSPECT, "call", method, "--url", url, "--timeout", "20", *auth_args]
    if params is not None:
        argv += ["--params", json.dumps(params)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=25)
    sys.stderr.write(done.stderr)
    sys.stdout.write(done.stdout)
    return done.returncode, done.stdout


def main() -> int:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    # --browser: authorize through the system browser ($BROWSER) and the loopback listener.
    mode = [] if "--browser" in sys.argv[1:-1] else ["--auth-non-interactive"]
    auth_args = ["--auth", *mode, "--client-metadata-url", CLIENT_METADATA_URL, "--auth-wait", "20"]
    # The revision the scenario runs at (the suite says; 2026-07-28 is `discover`, not `initialize`).
    if os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION"):
        auth_args += ["--protocol-version", os.environ["MCP_CONFORMANCE_PROTOCOL_VERSION"]]
    if "--no-auth" in sys.argv[1:-1]:  # what `call` does without --auth (a test of its message)
        auth_args = []
    if auth_args and context.get("client_id"):
        auth_args += ["--client-id", str(context["client_id"])]
    if auth_args and context.get("client_secret"):
        auth_args += ["--client-secret", str(context["client_secret"])]
    if auth_args and context.get("private_key_pem"):  # private_key_jwt: the key as a file of its own
        fd, key_file = tempfile.mkstemp(suffix=".pem")
        with os.fdopen(fd, "w") as f:
            f.write(str(context["private_key_pem"]))
        auth_args += ["--client-private-key", key_file]
    try:
        status, out = _call(url, "tools/list", None, auth_args)
        if status != 0:
            return status
        tools = json.loads(out).get("tools") or []
        if tools:
            status, _ = _call(url, "tools/call", {"name": tools[0]["name"], "arguments": {}}, auth_args)
        return status
    finally:
        if "--client-private-key" in auth_args:
            os.unlink(auth_args[auth_args.index("--client-private-key") + 1])


if __name__ == "__main__":
    raise SystemExit(main())
