"""The whole API fuzzed from its own OpenAPI document (schemathesis): no input gives a 5xx.

Every operation of the document the app serves (`openapi_document()`, the file the UI's types
come from) gets generated requests, valid and invalid (schemathesis's positive and negative
modes, its coverage phase of boundary values, then Hypothesis fuzzing), sent in-process to the
app a `UiServer` serves (`create_app`: the listener guard and the token included, its lifespan
run; schemathesis's ASGI client, no socket), on a database with real recordings: the demo session
recorded through the real `wrap` shim (tests/data/sessions/demo.jsonl, imported), a generated
stdio session and an HTTP proxy session. One mock client is
connected (through the API) to the demo server, and the routes under `/api/clients/{client_id}`
are sent its id, so they reach a live peer instead of stopping at a 404. Checks: no 5xx
(`assert_not_our_error`: only the routes that relay to a peer may answer 502 or 504, HTTP's
gateway codes, with a reason, when the peer is gone or did not answer in time), and content
types and bodies conform to the document (undocumented 4xx codes are not counted against it).

Runs are bounded and repeatable: a fixed seed, derandomized Hypothesis, no example database,
`MAX_EXAMPLES` per operation in the fuzzing phase. The coverage phase is what reaches every
operation and every parameter (~3,300 requests: each parameter and property at its boundaries,
of a wrong type, missing, null; unexpected properties, methods and content types); the fuzzing
phase adds random combinations on top, 10 an operation (it was 25: the file was the suite's
longest, at ~30 ms of CPU an example, generation and request, for ~2,000 examples).

Nothing the fuzzer sends may start a process or reach a host it picks. The operations that
would are still fuzzed, with the part that chooses what runs replaced by a harmless fixed value
that every one of them refuses before starting anything (`harmless`):
- `POST /api/clients`, `POST /api/sessions/{session_id}/replay`, `POST /api/versions`: their
  `target` (a command to spawn or a URL to call) becomes a program that does not exist
  (`NO_PROGRAM`): a 400 from `check_program`, before any spawn.
- `POST /api/serve/processes` spawns `mcp-inspect serve` on the scenario file it names (or the
  built-in one when none is named): the scenario becomes a path that does not exist (a 400).
- `POST /api/auth/flows` (a guided OAuth flow): its `url` becomes a loopback port where
  nothing listens, so a step that runs gets a refused connection.
- `DELETE /api/clients/{client_id}` keeps the fuzzer's own ids (the connected client stays).
- `DELETE /api/sessions/{session_id}` of a recorded session deletes a fresh copy instead, so
  the other operations keep their data.
- The `/api/intercept/sessions/{session_id}` routes are sent session 1, which an intercepting
  control channel started in this process records (so they reach a live `Interceptor`).
- Waits are capped (`raw`'s `wait`, request timeouts): a server that never answers a fuzzed
  request would otherwise hold each example for up to an hour.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import schemathesis
import schemathesis.pytest
from hypothesis import HealthCheck, settings
from schemathesis.python import asgi
from schemathesis.python.asgi import ASGIClient

from inspector.api.app import create_app
from inspector.api.openapi_export import openapi_document
from inspector.api.security import new_token
from inspector.control.server import start_control
from inspector.guard import allowed_hosts
from inspector.intercept import Interceptor, Rule, RuleSet
from inspector.store import open_engine
from tests.api.recordings import generate_session, http_session
from tests.sessions import load
from tests.warm_peers import demo_argv

MAX_EXAMPLES = 10
NO_PROGRAM = "/nonexistent/mcp-inspector-fuzz-target"
REFUSED_URL = "http://127.0.0.1:9/mcp"  # loopback, nothing listening (the discard port)
DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20261123,
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none"},
        "phases": {"stateful": {"enabled": False}},
        "checks": {
            "enabled": False,
            "not_a_server_error": {"enabled": False},  # `assert_not_our_error` instead
            "status_code_conformance": {"enabled": False},
            "content_type_conformance": {"enabled": True},
            "response_schema_conformance": {"enabled": True},
        },
    }
)
# Lazy: the schema is a fixture, so schemathesis builds each operation's test (its coverage phase's
# ~3,300 cases) when the test runs, in the one worker that runs it; built at collection, as
# `schemathesis.openapi.from_dict(...).parametrize()` does, it cost ~9 s of CPU in every xdist
# worker's collection. The test is one item; each operation is a subtest of it.
SCHEMA = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(scope="module")
def api_schema() -> Any:
    return schemathesis.openapi.from_dict(orjson.loads(openapi_document()), config=CONFIG)


@pytest.fixture(autouse=True)
def _node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    """schemathesis's lazy test names each operation's subtest through `node._nodeid`, which pytest 9's
    items no longer have (their `nodeid` is computed): give the item the attribute it reads and writes."""
    request.node._nodeid = request.node.nodeid


PORT = 47814  # the port the app believes it listens on (nothing is bound: the guard checks Host)
BASE_URL = f"http://127.0.0.1:{PORT}"


class Target:
    """The app in-process, its database, its recorded sessions and the connected mock client."""

    def __init__(self, app: Any, client: ASGIClient, db: Path, token: str) -> None:
        self.app = app
        self.http = client  # schemathesis's ASGI client (a requests session on the app, lifespan started)
        self.db = db
        self.token = token
        self.sessions: list[int] = []
        self.client_id = ""


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    root = tmp_path_factory.mktemp("fuzz")
    db = root / "fuzz.db"
    sessions = [load(db, "demo", name="demo"), generate_session(db, 300, name="generated"), http_session(db)]
    assert sessions == [1, 2, 3]
    token = new_token()
    engine = open_engine(db)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MCP_INSPECTOR_RUNTIME", str(root / "runtime"))
        app = create_app(engine, token=token, hosts=allowed_hosts("127.0.0.1", PORT))
        try:
            with asgi.get_client(app) as client:  # starts the app's lifespan (the feed, the clients)
                # In-process: no proxy or ~/.netrc applies, and requests looked both up at every request
                # (the environment read, two stat calls: profiled, 4 ms of the 25 ms a request took).
                client.trust_env = False
                target = Target(app, client, db, token)
                created = client.post(
                    f"{BASE_URL}/api/clients",
                    json={"target": {"command": DEMO}, "name": "fuzz", "timeout": 60},
                    headers={"authorization": f"Bearer {token}"},
                    timeout=90,
                )
                assert created.status_code == 201, created.text
                target.sessions, target.client_id = sessions, created.json()["id"]
                # An intercepting process's control channel (in this process) recording session 1, so
                # the /api/intercept routes reach a live one instead of stopping at a 404.
                pause = Rule.model_validate(
                    {"name": "hold", "match": {"method": ["tools/call"]}, "action": "pause"}
                )
                control = start_control(
                    Interceptor(RuleSet(rules=[pause]), breakpoints=True),
                    kind="wrap",
                    target="fuzz",
                    sessions=lambda: [1],
                )
                try:
                    yield target
                finally:
                    control.close()
        finally:
            asgi.shutdown_lifespans()  # the app's lifespan ends here (its clients closed), not at exit
            engine.dispose()


def harmless(case: schemathesis.Case, target: Target) -> None:
    """Point whatever would start a process or reach a chosen host at something refused first."""
    op = f"{case.method.upper()} {case.path}"
    body = case.body if isinstance(case.body, dict) else None
    if body is not None and isinstance(body.get("target"), dict):
        body["target"] = {"command": [NO_PROGRAM]}
    if op == "POST /api/auth/flows" and body is not None and "url" in body:
        body["url"] = REFUSED_URL  # a flow's steps would call it
    if op == "POST /api/serve/processes" and body is not None:
        body["scenario"] = NO_PROGRAM + ".yaml"
    if op == "POST /api/serve/processes" and body is None:
        case.body = {"scenario": NO_PROGRAM + ".yaml"}
    if case.path.startswith("/api/intercept/sessions/"):
        case.path_parameters["session_id"] = 1  # the intercepting process's session
    if "client_id" in (case.path_parameters or {}) and op != "DELETE /api/clients/{client_id}":
        case.path_parameters["client_id"] = target.client_id
    if (
        op == "DELETE /api/sessions/{session_id}"
        and case.path_parameters.get("session_id") in target.sessions
    ):
        case.path_parameters["session_id"] = generate_session(target.db, 3, name="to delete")
    if body is not None:
        if isinstance(body.get("wait"), int | float):
            body["wait"] = min(body["wait"], 0.05)
        if isinstance(body.get("timeout"), int | float):
            body["timeout"] = min(body["timeout"], 2)
    if isinstance((case.query or {}).get("wait"), int | float):
        case.query["wait"] = min(case.query["wait"], 0.2)


@SCHEMA.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_gives_a_server_error(case: schemathesis.Case, target: Target) -> None:
    harmless(case, target)
    auth = {"authorization": f"Bearer {target.token}"}
    response = case.call(base_url=BASE_URL, session=target.http, headers=auth, timeout=30, app=target.app)
    assert_not_our_error(case, response)
    case.validate_response(response, headers=auth)


def assert_not_our_error(case: schemathesis.Case, response: schemathesis.Response) -> None:
    """No 5xx, except the gateway answers of the routes that relay to a peer: 502 (the peer is gone or
    answered badly) and 504 (it did not answer within the request's timeout), each with its reason."""
    if response.status_code < 500:
        return
    relay = case.path.startswith(("/api/clients/{client_id}/", "/api/serve/{session_id}/"))
    body = response.json() if response.headers.get("content-type", [""])[0] == "application/json" else None
    gateway = relay and response.status_code in (502, 504) and isinstance((body or {}).get("detail"), str)
    assert gateway, f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:500]}"
