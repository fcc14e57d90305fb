"""What the routes share: the app's state (engine, live feed) and error answers as JSON."""

from __future__ import annotations

import base64
import os
import shutil
from dataclasses import dataclass
from typing import Any, cast

import anyio
import orjson
from fastapi import HTTPException, Request
from fastapi.responses import Response
from pydantic import TypeAdapter
from sqlalchemy import Engine

from inspector.api.live import LiveFeed
from inspector.api.params import SqlInt
from inspector.errors import InspectorError, NotFoundError

__all__ = ["AppState", "decode_cursor", "encode_cursor", "json_response", "run_query", "state_of"]


@dataclass
class AppState:
    """Everything a request handler needs, kept on `app.state.inspector`."""

    engine: Engine
    feed: LiveFeed
    token: str


def state_of(request: Request) -> AppState:
    return cast(AppState, request.app.state.inspector)


def json_response(doc: Any, status_code: int = 200) -> Response:
    """A JSON response serialised by orjson (FastAPI's validation of large pages is skipped on purpose)."""
    return Response(orjson.dumps(doc), status_code=status_code, media_type="application/json")


async def run_query(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a blocking store call in a worker thread; store errors become 404 / 400 answers."""
    try:
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))
    except NotFoundError as exc:
        raise HTTPException(404, str(exc)) from None
    except InspectorError as exc:
        raise HTTPException(400, str(exc)) from None


_CURSOR_SEQ: TypeAdapter[int] = TypeAdapter(SqlInt)


def encode_cursor(direction: str, seq: int) -> str:
    """An opaque cursor: rows after (`a`) or before (`b`) a seq."""
    return base64.urlsafe_b64encode(f"{direction}:{seq}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, int]:
    """(`a` or `b`, seq) from a cursor; a 400 answer for anything else."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        direction, seq = text.split(":")
        if direction not in ("a", "b"):
            raise ValueError(text)
        # The seq goes into SQL: the same range as every integer parameter (ValidationError is a ValueError).
        return direction, _CURSOR_SEQ.validate_strings(seq)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(
            400, f"bad cursor {cursor!r}: pass a next_cursor or prev_cursor given by the API"
        ) from None


def check_program(program: str) -> None:
    """A clear 400 now, rather than a failure later, when a target command cannot be found."""
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise HTTPException(400, f"the target command {program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise HTTPException(400, f"the target command {program!r} is not found on the UI server's PATH")
