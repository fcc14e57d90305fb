"""The OAuth test peer (tests/peers/oauth_server.py) printed "listening on URL" with its socket only
bound: `listen()` came later, inside uvicorn's start. A client that connected as soon as it read the
line (the guided authorization API's first request in test_auth_flows_api.py) could get "connection
refused" while uvicorn was still starting: the clean-clone CI of stop 31 failed so, on a loaded
machine. Now the socket listens before the line is printed, so a connection made then waits in the
kernel's backlog until the server accepts it.

The peer is frozen (SIGSTOP) the moment its line is read: whatever uvicorn had or had not done by
then, the connection must be accepted by the kernel, and the request answered once it runs again."""

from __future__ import annotations

import signal
import socket
import sys
from urllib.parse import urlsplit

import httpx

from tests.conftest import PEERS
from tests.http_peers import LineProcess


def test_a_connection_right_after_the_line_is_accepted() -> None:
    server = LineProcess([sys.executable, str(PEERS / "oauth_server.py")])
    try:
        url = server.wait_for(r"listening on (\S+)").group(1)
        server.proc.send_signal(signal.SIGSTOP)
        parts = urlsplit(url)
        try:
            with socket.create_connection((parts.hostname, parts.port), timeout=10):
                pass  # accepted into the backlog while the peer cannot run
        finally:
            server.proc.send_signal(signal.SIGCONT)
        answer = httpx.post(url, json={}, timeout=30)
        assert answer.status_code == 401  # the protected endpoint, unauthenticated
    finally:
        server.stop()
