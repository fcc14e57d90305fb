"""A client registered dynamically is reused from the auth file, not registered again.

Found by `serve --auth --auth-fault step-up`: on step-up `call --auth` sent a
second registration request. The auth file kept the registered redirect URI but
`AuthStore.clients()` dropped it, so the flow saw a client registered for
"another" redirect URI and registered anew every time it authorized.
"""

from __future__ import annotations

from pathlib import Path

from inspector.auth.flow import FlowInput
from inspector.auth.registration import ClientIdentity
from inspector.auth.revisions import revision_for
from inspector.auth.store import AuthStore
from tests.unit.test_auth_flow import AS, REDIRECT, SERVER, FakeServers, _routes, run


def test_a_second_authorization_reuses_the_stored_registration(tmp_path: Path) -> None:
    store = AuthStore(tmp_path / "auth.json")
    servers = FakeServers(_routes())
    first, names, _ = run(servers, FlowInput(SERVER, None, revision_for("2025-11-25"), REDIRECT))
    assert "registration" in names and first.client.redirect_uri == REDIRECT
    store.save(SERVER, first)

    assert store.clients()[AS] == ClientIdentity("cid", None, "dcr", first.client.auth_method, REDIRECT)
    again, names, _ = run(
        servers,
        FlowInput(SERVER, None, revision_for("2025-11-25"), REDIRECT, known_clients=store.clients()),
    )
    assert names.count("registration") == 1  # shown as a local step: the stored client, no request
    assert servers.asked.count(("POST", f"{AS}/register")) == 1
    assert again.client.client_id == "cid"
