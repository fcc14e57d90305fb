"""`mock-server A B C`: which recording answers a connection's message (`RecordedScripts`, over the
replay's `AnswerBook.fit`)."""

from __future__ import annotations

from typing import Any

from inspector.mock.script import Action, Reaction, RecordedScript, RecordedScripts
from inspector.replay.matching import AnswerBook

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "conformance-test-client", "version": "1"},
}


def _script(*exchanges: tuple[str, Any, str]) -> RecordedScript:
    """A recording whose requests `method(params)` were answered with `{"result": {"from": tag}}`."""
    script = RecordedScript()
    for method, params, tag in exchanges:
        reaction = Reaction([Action("respond", {"result": {"from": tag}})])
        script._book(method, "request").add(method, params, reaction)
    return script


def _answer(scripts: RecordedScripts, method: str, params: Any = None) -> Any:
    reaction, miss = scripts.react({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert reaction is not None, miss and miss.message()
    return reaction.actions[-1].payload["result"]["from"]


def test_fit_says_how_well_a_request_fits_without_taking_an_answer() -> None:
    book = AnswerBook()
    book.add("tools/list", {"_meta": {**ENVELOPE, "progressToken": 1}}, "A")
    assert book.fit("tools/call", {}) is None
    assert book.fit("tools/list", {"_meta": {**ENVELOPE, "progressToken": 7}}) == 2  # exactly, token aside
    assert book.fit("tools/list", {}) == 1  # the envelope does not count for matching, only for the fit
    assert book.take("tools/list", {}) == (True, "A")  # nothing was taken by `fit`


def test_the_recording_with_the_same_client_identity_answers() -> None:
    sdk = _script(("tools/list", {"_meta": ENVELOPE}, "sdk"))
    anonymous = _script(
        ("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}, "probe")
    )
    scripts = RecordedScripts([sdk, anonymous]).connection()
    assert (
        _answer(scripts, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        == "probe"
    )
    assert _answer(scripts, "tools/list", {"_meta": ENVELOPE}) == "sdk"


def test_a_stateful_connection_keeps_getting_its_own_sessions_answers() -> None:
    # Two scenarios, each its own connection: both listed tools; only B called one (and then its list changed).
    a = _script(("tools/list", None, "A"))
    b = _script(
        ("tools/list", None, "B-before"),
        ("tools/call", {"name": "add"}, "B"),
        ("tools/list", None, "B-after"),
    )
    run = RecordedScripts([a, b])
    conn = run.connection()
    assert _answer(conn, "tools/list") == "A"  # nothing tells them apart yet: the first given
    assert _answer(conn, "tools/call", {"name": "add"}) == "B"
    assert _answer(conn, "tools/list") == "B-after"  # B matched more of this connection than A
    other = run.connection()  # a new connection starts afresh: its own choices and counters
    assert _answer(other, "tools/call", {"name": "add"}) == "B"
    assert _answer(other, "tools/list") == "B-before"


def test_an_unmatched_request_is_missed_against_the_best_recording_so_far() -> None:
    a = _script(("tools/call", {"name": "x"}, "A"))
    b = _script(("tools/call", {"name": "y"}, "B"), ("prompts/list", None, "B"))
    conn = RecordedScripts([a, b]).connection()
    assert _answer(conn, "prompts/list") == "B"
    reaction, miss = conn.react({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "z"}})
    assert reaction is None and miss is not None
    assert miss.nearest_params == {"name": "y"}


def test_lifecycle_probes_get_the_answer_recorded_for_the_same_envelope() -> None:
    # server/discover matches on its method alone; a recording of raw probes answered each envelope
    # differently (an unknown version: error), a client's recording answered its own envelope.
    unknown = {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "v999.0.0"}}
    probes = RecordedScript()
    for params, tag in (({}, "missing-meta"), (unknown, "unsupported"), (unknown, "header-mismatch")):
        reaction = Reaction([Action("respond", {"result": {"from": tag}})])
        probes._book("server/discover", "request").add("server/discover", params, reaction)
    client = RecordedScript()
    client._book("server/discover", "request").add(
        "server/discover", {"_meta": ENVELOPE}, Reaction([Action("respond", {"result": {"from": "client"}})])
    )
    conn = RecordedScripts([client, probes]).connection()
    assert _answer(conn, "server/discover", {"_meta": ENVELOPE}) == "client"
    assert _answer(conn, "server/discover", unknown) == "unsupported"
    assert _answer(conn, "server/discover", {"_meta": ENVELOPE}) == "client"
    assert _answer(conn, "server/discover", unknown) == "header-mismatch"
    assert _answer(conn, "server/discover", {}) == "missing-meta"
