"""The HTTP proxy's ASGI app completes a lifespan shutdown.

What was wrong (found by the type checker): on `lifespan.shutdown` the proxy
called `self.aclose()`, a method `HttpProxy` never had, so an ASGI server that
runs the lifespan protocol (uvicorn, the proxy's library fallback) got an
AttributeError instead of `lifespan.shutdown.complete`, and the upstream
connections were never closed. The test speaks the lifespan protocol to a real
`HttpProxy` with a real recorder and store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from inspector.capture import Recorder
from inspector.capture.sessions import create_session
from inspector.store import StoreWriter, open_engine
from inspector.transports.http_proxy import HttpProxy


def test_lifespan_shutdown_completes(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "rec.db")
    recorder = Recorder([StoreWriter(engine)]).start()
    target = "http://127.0.0.1:9/mcp"
    proxy = HttpProxy(
        target, recorder, lambda _hint: create_session(engine, kind="http-proxy", target=target)
    )
    sent: list[dict[str, Any]] = []

    async def run() -> None:
        incoming = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

        async def receive() -> dict[str, Any]:
            return next(incoming)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        with anyio.fail_after(10):
            await proxy({"type": "lifespan"}, receive, send)

    try:
        anyio.run(run)
    finally:
        recorder.stop("test")
        engine.dispose()
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
