"""`mcp-inspect versions` against real peers: the official SDK demo server and server-everything.

What each really does (observed, and asserted here):
- the SDK demo server accepts every handshake revision as offered, answers `server/discover` for
  2026-07-28 (supportedVersions ["2026-07-28"]), and counter-offers 2025-11-25 for a revision it does
  not know. Under 2026-07-28 its capabilities say listChanged: true (false before) and every list
  result gains `cacheScope`, `resultType`, `ttlMs` and `_meta`: fields that appear between revisions.
- server-everything accepts the four handshake revisions, refuses `server/discover` with -32601, and
  counter-offers 2025-11-25 too.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.store import get_session, open_engine
from tests.cli_in_process import Ran, run
from tests.http_peers import demo_http_server
from tests.warm_peers import demo_argv

KNOWN = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
HANDSHAKE = KNOWN[:4]
UNKNOWN = "2099-01-01"
DEMO = demo_argv()  # the demo, forked from a warm server (tests/warm_peers.py)
# The module fixtures start each peer once per revision (twelve starts): a loaded machine is slow.
pytestmark = pytest.mark.timeout(600)


def versions(db: Path, *args: str) -> Ran:
    """`mcp-inspect versions` in-process (the peers it probes are still real processes)."""
    return run("versions", "--db", str(db), *args)


def matrix_of(db: Path, *args: str) -> dict[str, Any]:
    done = versions(db, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def row(matrix: dict[str, Any], section: str, key: str) -> dict[str, Any]:
    found = [r for r in matrix["rows"] if r["section"] == section and r["key"] == key]
    assert found, f"no row {section}/{key} in {[r['key'] for r in matrix['rows'] if r['section'] == section]}"
    return found[0]


def column(matrix: dict[str, Any], revision: str) -> dict[str, Any]:
    return next(c for c in matrix["columns"] if c["revision"] == revision)


@pytest.fixture(scope="module")
def demo_matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    db = tmp_path_factory.mktemp("versions-demo") / "v.db"
    return db, matrix_of(db, "--revisions", ",".join([*KNOWN, UNKNOWN]), "--", *DEMO)


@pytest.fixture(scope="module")
def everything_matrix(
    tmp_path_factory: pytest.TempPathFactory, everything_cmd: list[str]
) -> tuple[Path, dict[str, Any]]:
    db = tmp_path_factory.mktemp("versions-everything") / "v.db"
    return db, matrix_of(db, "--revisions", ",".join([*KNOWN, UNKNOWN]), "--", *everything_cmd)


@pytest.fixture(scope="module")
def everything_cmd() -> list[str]:  # module scope for the module fixture above
    """server-everything, ended when its stdin ends (tests/peers/exit_at_stdin_end.cjs): a probe
    closes it before the server's own `roots/list` request, which would keep it running through the
    2 s grace of each of the five revisions it accepts (its shutdown is not what this module tests)."""
    from tests.conftest import EVERYTHING_BIN, PEERS

    if not EVERYTHING_BIN.exists() or shutil.which("node") is None:
        pytest.fail("server-everything is not installed: run `make peers`")
    return ["node", "--require", str(PEERS / "exit_at_stdin_end.cjs"), str(EVERYTHING_BIN.resolve()), "stdio"]


def test_demo_server_negotiation_per_revision(demo_matrix: tuple[Path, dict[str, Any]]) -> None:
    _db, m = demo_matrix
    assert m["revisions"] == [*KNOWN, UNKNOWN]
    for rev in HANDSHAKE:
        assert column(m, rev) | {"session_id": None} == {
            "revision": rev,
            "session_id": None,
            "handshake": "initialize",
            "outcome": "accepted",
            "negotiated": rev,
            "supported_versions": None,
            "error": None,
        }
    modern = column(m, "2026-07-28")
    assert (modern["handshake"], modern["outcome"], modern["negotiated"]) == (
        "server/discover",
        "accepted",
        "2026-07-28",
    )
    assert modern["supported_versions"] == ["2026-07-28"]
    unknown = column(m, UNKNOWN)
    assert (unknown["handshake"], unknown["outcome"], unknown["negotiated"]) == (
        "initialize",
        "counter-offer",
        "2025-11-25",
    )
    assert row(m, "negotiation", "outcome")["differs"]
    # Conformance (inspector.lint) per revision: the SDK server's traffic is clean under each one.
    assert row(m, "conformance", "errors")["values"] == dict.fromkeys(m["revisions"], 0)
    assert row(m, "conformance", "warnings")["values"] == dict.fromkeys(m["revisions"], 0)


def test_demo_server_fields_that_appear_with_2026(demo_matrix: tuple[Path, dict[str, Any]]) -> None:
    _db, m = demo_matrix
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        for field in ("cacheScope", "resultType", "ttlMs", "_meta"):
            r = row(m, "fields", f"{method} {field}")
            assert r["differs"], r
            assert r["values"]["2026-07-28"] == 1
            assert all(r["values"][rev] is None for rev in [*HANDSHAKE, UNKNOWN]), r
    listed = row(m, "capabilities", "tools.listChanged")
    assert listed["values"] == {**dict.fromkeys([*HANDSHAKE, UNKNOWN], "false"), "2026-07-28": "true"}
    assert listed["differs"]
    # What does not change is not flagged: one tool has an outputSchema (weather) under every revision.
    same = row(m, "fields", "tools/list tools[].outputSchema")
    assert set(same["values"].values()) == {1} and not same["differs"]


def test_demo_item_counts_match_an_sdk_listing(
    demo_matrix: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    _db, m = demo_matrix
    listed = run("call", "tools/list", "--db", str(tmp_path / "c.db"), "--", *DEMO)
    assert listed.returncode == 0, listed.stderr
    tools = len(json.loads(listed.stdout)["tools"])
    items = row(m, "items", "tools/list")
    assert items["values"] == dict.fromkeys(m["revisions"], tools) and not items["differs"]
    assert row(m, "items", "resources/templates/list")["values"]["2025-06-18"] == 1


def test_everything_refuses_discover_and_counter_offers(
    everything_matrix: tuple[Path, dict[str, Any]],
) -> None:
    _db, m = everything_matrix
    for rev in HANDSHAKE:
        c = column(m, rev)
        assert (c["handshake"], c["outcome"], c["negotiated"]) == ("initialize", "accepted", rev)
    modern = column(m, "2026-07-28")
    assert (modern["handshake"], modern["outcome"]) == ("server/discover", "refused")
    assert modern["error"].startswith("-32601")
    assert column(m, UNKNOWN)["outcome"] == "counter-offer"
    assert column(m, UNKNOWN)["negotiated"] == "2025-11-25"
    # A refused revision has no server facts; the others agree on them.
    name = row(m, "server", "serverInfo.name")
    assert name["values"]["2026-07-28"] is None
    assert name["values"]["2025-06-18"] == "mcp-servers/everything" and not name["differs"]
    assert row(m, "items", "tools/list")["values"]["2025-06-18"] > 0
    assert row(m, "fields", "tools/list tools[].annotations")["values"]["2025-11-25"] > 0


def test_json_shape_and_recorded_linked_sessions(demo_matrix: tuple[Path, dict[str, Any]]) -> None:
    db, m = demo_matrix
    assert set(m) == {"run", "target", "revisions", "columns", "rows"}
    assert m["target"] == DEMO
    for r in m["rows"]:
        assert set(r) == {"section", "key", "values", "differs"}
        assert set(r["values"]) == set(m["revisions"])
    engine = open_engine(db, create=False)
    for c in m["columns"]:
        s = get_session(engine, c["session_id"])
        assert (s.kind, s.name, s.status) == ("mock-client", f"versions {c['revision']}", "ended")
        assert f"versions:{m['run']}" in s.labels and f"revision:{c['revision']}" in s.labels
        assert s.message_count > 0
    engine.dispose()


def test_table_output_highlights_differences(tmp_path: Path) -> None:
    done = versions(tmp_path / "v.db", "--revisions", "2025-11-25,2026-07-28", "--", *DEMO)
    assert done.returncode == 0, done.stderr
    assert "versions run" in done.stdout and "* tools/list cacheScope" in done.stdout
    assert "accepted" in done.stdout
    assert "compare two revisions' sessions with: mcp-inspect diff" in done.stderr


def test_replay_of_a_recorded_session_under_each_revision(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    call = run(
        "call", "tools/call", "--db", str(db),
        "--params", '{"name": "weather", "arguments": {"city": "Paris"}}', "--", *DEMO,
    )  # fmt: skip
    assert call.returncode == 0, call.stderr
    m = matrix_of(db, "--revisions", "2025-06-18,2026-07-28", "--replay", "last", "--", *DEMO)
    replayed = row(m, "replay", "1. tools/call")
    assert replayed["values"] == {"2025-06-18": "ok", "2026-07-28": "ok"}
    structured = row(m, "fields", "replay tools/call structuredContent")
    assert structured["values"] == {"2025-06-18": 1, "2026-07-28": 1}
    assert row(m, "fields", "replay tools/call resultType")["values"] == {"2025-06-18": None, "2026-07-28": 1}


def test_over_streamable_http(tmp_path: Path) -> None:
    with demo_http_server(warm=True) as url:
        m = matrix_of(tmp_path / "v.db", "--revisions", "2025-06-18,2026-07-28", "--url", url)
        assert [c["outcome"] for c in m["columns"]] == ["accepted", "accepted"]
        assert row(m, "fields", "tools/list resultType")["values"] == {"2025-06-18": None, "2026-07-28": 1}


HALF_SERVER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") != "initialize":
        sys.exit(3)  # anything else: gone without an answer
    result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {},
              "serverInfo": {"name": "half", "version": "1"}}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


def test_exit_status_when_revisions_get_no_answer(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    some = versions(
        db, "--json", "--revisions", "2025-06-18,2026-07-28", "--", sys.executable, "-c", HALF_SERVER
    )
    assert some.returncode == 1, some.stderr
    m = json.loads(some.stdout)
    assert [c["outcome"] for c in m["columns"]] == ["accepted", "failed"]
    assert "closed" in column(m, "2026-07-28")["error"]
    none = versions(
        db, "--revisions", "2025-06-18", "--", sys.executable, "-c", "import sys; sys.exit('not a server')"
    )
    assert none.returncode == 2
    assert "no revision could be probed" in none.stderr and "not a server" in none.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--revisions", "latest", "--", *DEMO], "'latest' is not a protocol revision"),
        (["--revisions", "2025-13-01", "--", *DEMO], "is not a protocol revision"),
        (["--", "/no/such/server"], "is not an executable file or on PATH"),
        (["--url", "ftp://127.0.0.1/mcp"], "absolute http:// or https:// URL"),
        (["--url", "http://127.0.0.1:1/mcp", "--", *DEMO], "either --url URL or -- COMMAND"),
        ([], "either --url URL or -- COMMAND"),
        (["--replay", "999", "--", *DEMO], "no session with id 999"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    done = versions(tmp_path / "v.db", *args)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr
    assert "Traceback" not in done.stderr
