"""Regression: the proxy, `mock-server --http` and `serve --http` bind through
`transports.serve.bind`, which lacked TCP_NODELAY (only the UI server's own bind had it): an
answer written in parts on a kept-alive connection (head then body, one SSE event after
another) could wait for the client's delayed ACK, about 40 ms each time. asyncio sets the option
only on sockets whose `proto` is IPPROTO_TCP, and ours are created with proto 0. The one bind
now sets it on the listening socket, which accepted connections inherit (checked on one).
"""

from __future__ import annotations

import socket

from inspector.transports.serve import bind


def test_every_listener_socket_sets_nodelay_on_accepted_connections() -> None:
    listener = bind("127.0.0.1", 0)
    try:
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        listener.settimeout(10)
        with socket.create_connection(listener.getsockname()[:2], timeout=10):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        listener.close()
