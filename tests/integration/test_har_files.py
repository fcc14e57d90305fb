"""HAR session files (issue #16): export is HAR 1.2 that mitmproxy reads; HAR captured by mitmproxy imports.

Real peers: the demo server over Streamable HTTP and legacy SSE behind `mcp-inspect proxy` with the
mock client over HTTP (recorded once, tests/data/sessions/demo-http-proxy.jsonl), server-everything,
mitmdump (mitmproxy in bench/.venv-mitm, installed by `make mitmproxy`, which `make test` runs
before the tests; else on first use, as the HTTP bench does). The HAR schema is the published one
(npm `har-schema`, the schema `har-validator` checks with), read from tests/peers.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from inspector.capture import MessageBuilder
from inspector.capture.sessions import create_session
from inspector.lint.stored import findings_of
from inspector.share.export import har_sessions
from inspector.share.har import har_chunks
from inspector.share.importer import import_har
from inspector.store import open_engine
from inspector.store.queries import iter_rows, list_sessions
from inspector.store.writer import SessionWriter
from tests.cli_in_process import Ran, run
from tests.har_schema import har_validator
from tests.http_peers import everything_http_server, free_port, proxy_in_process
from tests.sessions import load

pytestmark = pytest.mark.timeout(600)  # a module fixture of real servers; the CI machine is shared

ECHO = '{"name": "echo", "arguments": {"text": "hi"}}'


def _run(*args: str) -> Ran:
    """`mcp-inspect ARGS...` in-process (tests/cli_in_process.py)."""
    return run(*args)


def _ok(result: Ran) -> Ran:
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def mitmdump() -> Path:
    from bench.http_mitm import ensure_mitmdump

    exe, note = ensure_mitmdump(lambda _text: None)
    if exe is None:
        pytest.fail(f"mitmdump is not available: {note}")
    return exe


# mitmproxy's own HAR reader (`mitmproxy.io.FlowReader`, what `mitmdump -r FILE` reads a file with,
# through its readfile addon) in mitmproxy's interpreter: the flows it makes of the file, without
# starting a whole mitmdump (its addons, options and event loop: ~1.3 s more CPU for the same reader).
_READ_FLOWS = """
import json, sys
from mitmproxy import io
with open(sys.argv[1], "rb") as f:
    flows = [
        {
            "method": flow.request.method,
            "url": flow.request.pretty_url,
            "request": flow.request.get_text(strict=False) or "",
            "status": flow.response.status_code,
            "response": flow.response.get_text(strict=False) or "",
            "session": flow.response.headers.get("mcp-session-id") or flow.request.headers.get("mcp-session-id"),
        }
        for flow in io.FlowReader(f).stream()
    ]
json.dump(flows, sys.stdout)
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with HTTP sessions (proxy Streamable HTTP, proxy legacy SSE, the mock client over
    HTTP) and a stdio one. The HTTP ones are tests/data/sessions/demo-http-proxy.jsonl: `mcp-inspect
    call tools/call` (echo) through `mcp-inspect proxy` in front of the demo server, once over
    Streamable HTTP and once over legacy SSE, recorded by both and exported, imported here."""
    db = tmp_path_factory.mktemp("har") / "http.db"
    load(db, "demo-http-proxy")
    # A session with no HTTP exchange (stdio lines), written through the recorder's own builder.
    engine = open_engine(db, create=False)
    session_id = create_session(engine, kind="stdio-wrap", target=["server"], name="stdio")
    builder = MessageBuilder(session_id)
    rows = builder.feed(time.time_ns(), "c2s", "stdin", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
    writer = SessionWriter(engine, session_id)
    writer.on_batch(rows)
    writer.on_end(0, "test")
    engine.dispose()
    return db


def _sessions(db: Path) -> dict[str, Any]:
    engine = open_engine(db, create=False)
    try:
        return {(s.name or f"{s.kind}-{s.id}"): s for s in list_sessions(engine, limit=100)}
    finally:
        engine.dispose()


def _export(db: Path, out: Path, *refs: str) -> dict[str, Any]:
    _ok(_run("export", *refs, "--db", str(db), "--format", "har", "-o", str(out)))
    return json.loads(out.read_bytes())


def test_har_export_is_valid_har_with_mcp_facts(recorded: Path, tmp_path: Path) -> None:
    sessions = _sessions(recorded)
    http = [
        s
        for s in sessions.values()
        if s.kind in ("http-proxy", "mock-client") and s.target.startswith("http")
    ]
    assert len(http) >= 4, sessions  # two proxy sessions, two mock-client sessions over HTTP
    har = _export(recorded, tmp_path / "all.har", *[str(s.id) for s in http])
    har_validator().validate(har)
    log = har["log"]
    assert log["version"] == "1.2" and log["creator"]["name"] == "mcp-inspector"
    assert [p["id"] for p in log["pages"]] == [f"session-{n}" for n in range(1, len(http) + 1)]

    proxied = sessions["proxy streamable-http"]
    page = next(p for p in log["pages"] if p["_mcp"]["id"] == proxied.id)
    entries = [e for e in log["entries"] if e["pageref"] == page["id"]]
    methods = [m.get("method") for e in entries for m in e["_mcp"]["messages"] if m["direction"] == "c2s"]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/call"], methods
    call = next(e for e in entries if any(m.get("method") == "tools/call" for m in e["_mcp"]["messages"]))
    assert call["request"]["method"] == "POST" and call["request"]["url"] == proxied.target
    assert json.loads(call["request"]["postData"]["text"])["params"]["name"] == "echo"
    answer = next(m for m in call["_mcp"]["messages"] if m["direction"] == "s2c")
    assert answer["kind"] == "response" and answer["answers_seq"] == call["_mcp"]["messages"][0]["seq"]
    assert answer["latency_ms"] > 0
    sid = call["_mcp"]["mcp_session_id"]
    assert {"name": "mcp-session-id", "value": sid} in call["response"]["headers"]
    # An event stream: the text of the stream, and the events with their messages.
    assert call["response"]["content"]["mimeType"].startswith("text/event-stream")
    text = call["response"]["content"]["text"]
    assert text.startswith("event: message") and '"hi"' in text
    (event,) = call["_mcp"]["events"]
    assert json.loads(event["data"])["id"] == json.loads(call["request"]["postData"]["text"])["id"]
    assert event["message"]["kind"] == "response" and event["data"] in text
    engine = open_engine(recorded, create=False)
    rows = list(iter_rows(engine, proxied.id))
    engine.dispose()
    assert text.encode() == b"".join(
        r["raw"] for r in rows if r["channel"] == "sse" and r["seq"] == event["seq"]
    )
    assert all(e["time"] >= e["timings"]["wait"] >= 0 for e in entries)

    legacy = sessions["proxy sse"]
    page = next(p for p in log["pages"] if p["_mcp"]["id"] == legacy.id)
    stream = next(e for e in log["entries"] if e["pageref"] == page["id"] and e["request"]["method"] == "GET")
    assert [ev["event"] for ev in stream["_mcp"]["events"]][0] == "endpoint"
    assert "tools/call" in [ev.get("message", {}).get("method") for ev in stream["_mcp"]["events"]]


def test_har_export_refuses_a_stdio_session(recorded: Path, tmp_path: Path) -> None:
    stdio = _sessions(recorded)["stdio"]
    out = _run(
        "export", str(stdio.id), "--db", str(recorded), "--format", "har", "-o", str(tmp_path / "x.har")
    )
    assert out.returncode != 0 and not (tmp_path / "x.har").exists()
    assert "has no HTTP exchanges" in out.stderr and "Traceback" not in out.stderr


def test_mitmproxy_reads_the_exported_har(recorded: Path, tmp_path: Path) -> None:
    proxied = _sessions(recorded)["proxy streamable-http"]
    har = _export(recorded, tmp_path / "one.har", str(proxied.id))
    python = mitmdump().parent / "python"
    result = subprocess.run(
        [str(python), "-c", _READ_FLOWS, str(tmp_path / "one.har")],
        capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    flows = json.loads(result.stdout)
    entries = har["log"]["entries"]
    assert len(flows) == len(entries) >= 5
    for flow, entry in zip(flows, entries, strict=True):
        assert flow["method"] == entry["request"]["method"]
        assert flow["url"] == entry["request"]["url"]
        assert flow["status"] == entry["response"]["status"]
        assert flow["request"] == entry["request"].get("postData", {}).get("text", "")
        assert flow["response"] == entry["response"]["content"]["text"]
        assert flow["session"] == entry["_mcp"].get("mcp_session_id")
    assert any("tools/call" in f["request"] for f in flows)


def _shape(db: Path, session_id: int) -> tuple[Counter[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """What must survive a round trip: the messages (no times) and the pairs (request -> answer)."""
    engine = open_engine(db, create=False)
    try:
        rows = list(iter_rows(engine, session_id))
    finally:
        engine.dispose()
    by_seq = {r["seq"]: r for r in rows}
    # The recorder's own notes (an empty row with a problem, e.g. "client disconnected") are no traffic.
    rows = [r for r in rows if r["raw"] or not (r["meta"] or {}).get("problem")]
    messages = Counter(
        (r["direction"], r["channel"], r["kind"], r["method"], r["rpc_id"], r["http_method"], r["http_status"],
         bytes(r["raw"]))
        for r in rows
    )  # fmt: skip
    pairs = {
        (by_seq[r["answers_seq"]]["method"], by_seq[r["answers_seq"]]["rpc_id"], r["kind"], r["direction"])
        for r in rows
        if r["answers_seq"] is not None
    }
    return messages, pairs


def test_exported_har_imports_back_with_the_same_messages_and_pairs(recorded: Path, tmp_path: Path) -> None:
    sessions = _sessions(recorded)
    originals = [sessions["proxy streamable-http"], sessions["proxy sse"]]
    source = open_engine(recorded, create=False)
    for original in originals:
        # In process (the CLI's path is the first test's): the export's bytes into a fresh database.
        data = b"".join(har_chunks(har_sessions(source, [original])))
        db = tmp_path / f"{original.id}.db"
        target = open_engine(db)
        done = import_har(target, data, source=f"{original.id}.har")
        target.dispose()
        assert len(done.session_ids) == 1, done
        (imported,) = _sessions(db).values()
        assert imported.target == original.target
        assert imported.protocol_version == original.protocol_version
        assert imported.server_info == original.server_info
        assert _shape(db, imported.id) == _shape(recorded, original.id)
    source.dispose()


def test_import_refuses_a_file_that_is_neither(tmp_path: Path) -> None:
    bad = tmp_path / "bad.har"
    bad.write_text('{"log": {"entries": [{"request": {"method": "POST"}}]}}')
    out = _run("import", str(bad), "--db", str(tmp_path / "x.db"))
    assert out.returncode != 0 and "entry 1: startedDateTime is missing" in out.stderr
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    out = _run("import", str(other), "--db", str(tmp_path / "x.db"))
    assert out.returncode != 0 and "nor a HAR file" in out.stderr


# --- a HAR captured by mitmproxy -------------------------------------------------------------------


async def _sdk_session(url: str) -> list[str]:
    """An official SDK client's session with server-everything: tools, a call, resources, prompts."""
    async with mcp.Client(url, cache=None) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        await client.call_tool("echo", {"message": "through mitmproxy"})
        await client.call_tool("get-sum", {"a": 2, "b": 40})
        resources = (await client.list_resources()).resources
        await client.read_resource(str(resources[0].uri))
        await client.list_prompts()
    return tools


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, "mitmdump exited before it listened"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            assert time.monotonic() < deadline, "mitmdump never listened"
            time.sleep(0.1)


def _lint(db: Path, session_id: int) -> Counter[tuple[str, str | None]]:
    engine = open_engine(db, create=False)
    try:
        rows = {r["seq"]: r for r in iter_rows(engine, session_id)}
        return Counter((f.rule, rows[f.seq]["method"]) for f in findings_of(engine, session_id))
    finally:
        engine.dispose()


def test_har_captured_by_mitmproxy_imports_like_a_direct_recording(tmp_path: Path) -> None:
    exe = mitmdump()
    direct_db, imported_db, har_file = tmp_path / "direct.db", tmp_path / "imported.db", tmp_path / "mitm.har"
    with everything_http_server("streamableHttp") as target:
        with proxy_in_process(target, direct_db, "--name", "direct") as (url, _proc):
            anyio.run(_sdk_session, url)
        origin, path = target.rsplit("/", 1)
        port = free_port()
        mitm = subprocess.Popen(
            [str(exe), "--mode", f"reverse:{origin}", "--listen-host", "127.0.0.1", "--listen-port", str(port),
             "--quiet", "--set", f"hardump={har_file}", "--set", f"confdir={tmp_path / 'mitm-conf'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            _wait_port(port, mitm)
            anyio.run(_sdk_session, f"http://127.0.0.1:{port}/{path}")
        finally:
            mitm.send_signal(signal.SIGINT)
            _, err = mitm.communicate(timeout=60)
    assert har_file.exists(), err.decode(errors="replace")
    har = json.loads(har_file.read_text())
    assert har["log"]["creator"]["name"] == "mitmproxy"
    done = _ok(_run("import", str(har_file), "--db", str(imported_db)))
    assert done.stderr.count("imported session #") == 1, done.stderr

    (direct,) = _sessions(direct_db).values()
    (imported,) = _sessions(imported_db).values()
    assert imported.kind == "import" and imported.target == target  # mitmproxy records the upstream URL
    assert imported.protocol_version == direct.protocol_version and imported.server_info == direct.server_info
    direct_messages, direct_pairs = _shape(direct_db, direct.id)
    imported_messages, imported_pairs = _shape(imported_db, imported.id)
    assert imported_pairs == direct_pairs
    assert {p[0] for p in direct_pairs} >= {"initialize", "tools/list", "tools/call", "resources/read"}

    def jsonrpc(messages: Counter[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
        return Counter(m[:5] for m in messages.elements() if m[2] != "http")

    assert jsonrpc(imported_messages) == jsonrpc(direct_messages)
    lint = _lint(direct_db, direct.id)
    # The SDK's stateless probe, answered with a null-id error that only HTTP pairs with its request.
    assert lint[("error-id-null", "server/discover")] == 1, lint
    assert _lint(imported_db, imported.id) == lint
