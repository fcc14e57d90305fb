"""A notification's method sent with an id (or a request's without one) made the lint raise a
KeyError (its shape was looked up in the other kind's table): `/findings` of such a session
answered 500. It is now an invalid-shape finding, and the rest of the session is still checked."""

from __future__ import annotations

import typing
from typing import Any

from inspector.lint import check_rows
from tests.lint_recordings import Stdio, notification, request


def test_a_notification_method_with_an_id_and_a_request_method_without() -> None:
    s = Stdio().handshake("2025-06-18", server={"tools": {}})
    as_request = s.send("c2s", request(1, "notifications/progress", {"progressToken": 1, "progress": 1}))
    as_notification = s.send("c2s", notification("tools/list", {}))
    undeclared = s.send("c2s", request(2, "prompts/list"))
    found = {(f.rule, f.seq): f.explanation for f in check_rows(typing.cast(Any, s.rows))}
    assert found[("invalid-shape", as_request)] == (
        "notifications/progress (2025-06-18) is a notification; it was sent with an id"
    )
    assert found[("invalid-shape", as_notification)] == (
        "tools/list (2025-06-18) is a request; it was sent without an id"
    )
    assert ("server-capability-not-declared", undeclared) in found
