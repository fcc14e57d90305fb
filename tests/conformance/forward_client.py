"""The conformance suite's client command as a forwarder: it hands its command line (the run's name,
then the server's URL) and scenario to the test process (`suite.run_suites`, the Unix socket in
$MCP_CONFORMANCE_FORWARD), which runs OUR client there, in-process (`mcp-inspect conformance client`
through tests/cli_in_process.py), and prints what the client printed and exits with its status. Only the standard library: no import of
the inspector per scenario (one interpreter start, a few milliseconds of imports).
"""

import json
import os
import socket
import sys

request = {
    "argv": sys.argv[1:],
    "scenario": os.environ.get("MCP_CONFORMANCE_SCENARIO", ""),
    "context": os.environ.get("MCP_CONFORMANCE_CONTEXT"),
    "protocol_version": os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION"),
}
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
    conn.connect(os.environ["MCP_CONFORMANCE_FORWARD"])
    conn.sendall(json.dumps(request).encode() + b"\n")
    conn.shutdown(socket.SHUT_WR)
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
answer = json.loads(data)
sys.stdout.write(answer["stdout"])
sys.stderr.write(answer["stderr"])
sys.exit(answer["status"])
