"""Regression: every API call on a kept-alive connection (a browser's, httpx's, requests') took
about 44 ms instead of 1-2 ms: the UI server's socket lacked TCP_NODELAY, so the second write of
an answer (uvicorn sends head and body separately) waited for the client's delayed ACK. Found
while bounding the OpenAPI fuzz test's run time (3,000 calls: 150 s before, a third of it after).
The listening socket now sets TCP_NODELAY, which accepted connections inherit (checked on one).
Latency itself is not asserted here (no wall-clock assertions in tests).
"""

from __future__ import annotations

import socket
from pathlib import Path

from inspector.api import UiServer
from inspector.store import open_engine


def test_the_ui_servers_connections_do_not_wait_for_delayed_acks(tmp_path: Path) -> None:
    server = UiServer(open_engine(tmp_path / "ui.db"), port=0)  # bound, not started: we accept here
    listener = server.socket
    try:
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        listener.settimeout(10)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        listener.close()
