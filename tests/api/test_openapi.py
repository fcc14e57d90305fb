"""The API documents itself, and the UI's types are generated from that document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.api.openapi_export import openapi_document
from tests.api.conftest import Api

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schema_matches_the_app() -> None:
    committed = (ROOT / "web" / "src" / "api" / "openapi.json").read_bytes()
    assert committed == openapi_document(), (
        "web/src/api/openapi.json is stale: run `make web` (it regenerates the schema and the TS types)"
    )


def test_schema_served_lists_routes_and_live_events(demo_api: Api) -> None:
    schema: Any = demo_api.json("/api/openapi.json")
    paths = set(schema["paths"])
    assert {
        "/api/sessions",
        "/api/sessions/{session_id}",
        "/api/sessions/{session_id}/messages",
        "/api/sessions/{session_id}/messages/{seq}",
        "/api/sessions/{session_id}/messages/{seq}/raw",
        "/api/sessions/{session_id}/exchanges",
    } <= paths
    components = schema["components"]["schemas"]
    assert {"PageRow", "SessionOut", "LiveEvent", "NewMessages", "Subscribe"} <= set(components)
    # The message shape is the table's: every column but raw and where a large body is stored
    # (`body_sha256`: store/bodies.py, an internal reference).
    from inspector.store import Message
    from inspector.store.models import column_names

    columns = set(column_names(Message)) - {"raw", "body_sha256"}
    assert columns | {"preview"} == set(components["PageRow"]["properties"])


def test_docs_page_works_offline(demo_api: Api) -> None:
    # Outside /api (a page cannot send the token); docs.js sends it with Swagger UI's requests.
    page = demo_api.get("/docs")
    assert page.status_code == 200 and "/swagger/swagger-ui-bundle.js" in page.text
    assert "/docs.js" in page.text and "cdn" not in page.text.lower()
    old = demo_api.get("/api/docs")
    assert old.status_code == 308 and old.headers["location"] == "/docs"
