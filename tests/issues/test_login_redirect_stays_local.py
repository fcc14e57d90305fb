"""Regression (issue 33, finding 13): the UI's login redirect copied the path it was asked for.

A page opened with `?token=` is redirected to the same page with the token in its fragment. The
path went into `Location` as it came: `GET //evil.example/x?token=VALID` answered
`303 Location: //evil.example/x#token=VALID`, a scheme-relative URL that sends the browser, and
the token, to another site (`/\\evil.example` and `///evil.example` too: browsers read them the
same way). The redirect now always names a path on this server.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from starlette.types import Receive, Scope, Send

from inspector.api.security import Guard

TOKEN = "the-token"


async def _page(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"page"})


def _login(path: str) -> str:
    """The `Location` the guard answers `GET path?token=TOKEN` with."""
    transport = httpx.ASGITransport(app=Guard(_page, token=TOKEN))

    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:6290") as http:
            request = http.build_request("GET", "http://127.0.0.1:6290/")
            request.url = request.url.copy_with(raw_path=path.encode() + b"?token=" + TOKEN.encode())
            return await http.send(request)

    response = anyio.run(go)
    assert response.status_code == 303, response.text
    return response.headers["location"]


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/x",
        "/\\evil.example/x",
        "///evil.example/x",
        "/%2F%2Fevil.example/x",
        "/\\/evil.example/x",
        "/%09/evil.example/x",
    ],
)
def test_the_redirect_names_a_local_path(path: str) -> None:
    location = _login(path)
    parts = urlsplit(location)
    assert not parts.scheme and not parts.netloc, location
    assert location.startswith("/") and location[1:2] not in ("/", "\\"), location
    assert location.endswith(f"#token={TOKEN}")


def test_an_ordinary_page_keeps_its_path_and_query() -> None:
    assert _login("/sessions/1") == f"/sessions/1#token={TOKEN}"
    assert _login("/") == f"/#token={TOKEN}"
    assert _login("/a%23b") == f"/a%23b#token={TOKEN}"  # a decoded # stays part of the path
