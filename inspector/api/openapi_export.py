"""Write the API's OpenAPI schema: `python -m inspector.api.openapi_export [PATH]` (stdout without PATH).

`make web` writes `web/src/api/openapi.json` with it, and the UI's TypeScript
types are generated from that file, so the Python app stays the one source of
truth (a test fails when the committed file is stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
from fastapi import FastAPI
from sqlalchemy import create_engine

from inspector.api.app import create_app, openapi_schema

__all__ = ["openapi_document"]


def openapi_document() -> bytes:
    """The schema as stable, indented JSON."""
    app = create_app(create_engine("sqlite://"), token="-", hosts=())
    while not isinstance(app, FastAPI):  # the middlewares around it (headers, listener guard, token guard)
        app = app.app
    return orjson.dumps(openapi_schema(app), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def main(argv: list[str]) -> None:
    data = openapi_document()
    if argv:
        path = Path(argv[0])
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)


if __name__ == "__main__":
    main(sys.argv[1:])
