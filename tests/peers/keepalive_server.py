"""An HTTP/1.1 server (h11) that closes kept-alive connections under the client, for the upstream tests.

    python tests/peers/keepalive_server.py

Paths (any method; request bodies are read whole and kept):
  /once        answered (JSON echo of the body) when it is a connection's first request; a later
               request on the same connection sees the connection closed without an answer, as when
               a server closes an idle connection just as a request crosses it
  /never       the connection closed without an answer, always
  /partial     like /once, but a later request gets "HTTP/1.1 200" and then the close
  /sse?n=K&ms=D  an event stream of K events D ms apart (chunked), the connection kept alive
  /stats       {"connections", "max_open", "open", "attempts": {path: n}, "bodies": {path: [...]}}
               (connections and open counts leave out connections that only asked for /stats)
Prints "keepalive server listening on http://127.0.0.1:PORT" on stderr when ready.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from urllib.parse import parse_qs, urlsplit

import h11

STATS: dict = {
    "connections": 0,
    "open": 0,
    "max_open": 0,
    "attempts": defaultdict(int),
    "bodies": defaultdict(list),
}


async def _request(reader: asyncio.StreamReader, conn: h11.Connection) -> tuple[h11.Request, bytes] | None:
    head: h11.Request | None = None
    body = b""
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            data = await reader.read(65536)
            conn.receive_data(data)
            if not data and head is None:
                return None
            continue
        if isinstance(event, h11.Request):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            assert head is not None
            return head, body
        elif isinstance(event, h11.ConnectionClosed):
            return None


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    conn = h11.Connection(h11.SERVER)
    served = 0
    counted = False  # connections that only ask for /stats (the test's own) are not counted
    try:
        while True:
            got = await _request(reader, conn)
            if got is None:
                return
            head, body = got
            url = urlsplit(head.target.decode())
            path = url.path
            if not counted and path != "/stats":
                counted = True
                STATS["connections"] += 1
                STATS["open"] += 1
                STATS["max_open"] = max(STATS["max_open"], STATS["open"])
            STATS["attempts"][path] += 1
            STATS["bodies"][path].append(body.decode("latin-1"))
            served += 1
            if path == "/never" or (path in ("/once", "/partial") and served > 1):
                if path == "/partial":
                    writer.write(b"HTTP/1.1 200")
                    await writer.drain()
                return  # closed without (the rest of) an answer
            if path == "/sse":
                query = parse_qs(url.query)
                n, ms = int(query.get("n", ["3"])[0]), int(query.get("ms", ["50"])[0])
                headers = [("content-type", "text/event-stream"), ("transfer-encoding", "chunked")]
                writer.write(conn.send(h11.Response(status_code=200, headers=headers)))
                for i in range(n):
                    await asyncio.sleep(ms / 1000)
                    writer.write(conn.send(h11.Data(data=f"data: event {i}\n\n".encode())))
                    await writer.drain()
                writer.write(conn.send(h11.EndOfMessage()))
            else:
                out = json.dumps(
                    STATS if path == "/stats" else {"path": path, "body": body.decode("latin-1")}
                )
                data = out.encode()
                headers = [("content-type", "application/json"), ("content-length", str(len(data)))]
                writer.write(conn.send(h11.Response(status_code=200, headers=headers)))
                writer.write(conn.send(h11.Data(data=data)))
                writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()
            conn.start_next_cycle()
    except (ConnectionError, h11.ProtocolError):
        return
    finally:
        if counted:
            STATS["open"] -= 1
        writer.close()


async def main() -> None:
    server = await asyncio.start_server(_serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"keepalive server listening on http://127.0.0.1:{port}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
