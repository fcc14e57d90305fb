"""OpenTelemetry export with real peers: wrap and proxy `--otlp`, `export SESSION --otlp`, a collector down.

The collector is `tests/otlp_receiver.py`: an OTLP/HTTP server on loopback that
decodes what it gets with opentelemetry-proto's ExportTraceServiceRequest and
ExportMetricsServiceRequest. The host is the Python SDK 2.x client driving the
demo (inspector/demo/driver.py); in the wrap test it runs with OpenTelemetry on
(tests/peers/otel_sdk_client.py), so the SDK injects `traceparent` into each
request's `_meta` and prints its own spans for the parent ids to be checked.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from inspector.demo.driver import SAMPLING_REPLY, drive_demo
from inspector.store import Message, open_engine
from tests.cli_in_process import run
from tests.conftest import wrap_argv
from tests.http_peers import demo_http_server, proxy_in_process
from tests.integration.test_wrap_real_peers import Taps
from tests.otlp_receiver import KIND_CLIENT, KIND_SERVER, ReceivedSpan, Receiver, otlp_receiver
from tests.shim_process import ended_session, messages
from tests.warm_peers import demo_argv, peer_argv, warm_wrap_argv

STATUS_ERROR = 2


def _requests(rows: list[Message]) -> dict[int, Message]:
    return {m.seq: m for m in rows if m.kind == "request"}


def _by_seq(spans: list[ReceivedSpan]) -> dict[int, ReceivedSpan]:
    out = {int(s.attributes["mcp_inspector.request.seq"]): s for s in spans}
    assert len(out) == len(spans), "one span per request"
    return out


def _check_spans(
    spans: list[ReceivedSpan], rows: list[Message], transport: str, *, content: bool = False
) -> dict[int, ReceivedSpan]:
    """One span per recorded request, with the recorded times, kinds, names and attributes."""
    requests = _requests(rows)
    answers = {m.answers_seq: m for m in rows if m.answers_seq is not None}
    by_seq = _by_seq(spans)
    assert set(by_seq) == set(requests)
    for seq, span in by_seq.items():
        request, answer = requests[seq], answers[seq]
        assert span.kind == (KIND_CLIENT if request.direction == "c2s" else KIND_SERVER), span
        assert (span.start_ns, span.end_ns) == (request.ts_ns, answer.ts_ns)
        assert span.attributes["mcp.method.name"] == request.method
        assert span.attributes["jsonrpc.request.id"] == json.loads(request.rpc_id or "null").__str__()
        assert span.attributes["network.transport"] == transport
        assert span.attributes["mcp.protocol.version"] == "2025-11-25"
        assert span.service == "mcp-inspect"
    names = {s.name for s in spans}
    assert {"initialize", "tools/call echo", "tools/call fail", "prompts/get review_code"} <= names
    assert {"sampling/createMessage", "elicitation/create", "roots/list"} <= names
    fail = next(s for s in spans if s.name == "tools/call fail")
    assert fail.attributes["error.type"] == "tool_error" and fail.status_code == STATUS_ERROR
    assert fail.attributes["gen_ai.tool.name"] == "fail"
    missing = next(s for s in spans if s.attributes.get("mcp.resource.uri") == "demo://notes/does-not-exist")
    code = str(
        next(
            m for m in rows if m.answers_seq == int(missing.attributes["mcp_inspector.request.seq"])
        ).error_code
    )
    assert missing.attributes["error.type"] == missing.attributes["rpc.response.status_code"] == code
    assert missing.status_code == STATUS_ERROR and missing.status_message
    ok = [s for s in spans if "error.type" not in s.attributes]
    assert ok and all(s.status_code != STATUS_ERROR for s in ok)
    echo = next(s for s in spans if s.name == "tools/call echo")
    if content:  # --otlp-content: the arguments and the result as recorded
        assert json.loads(echo.attributes["gen_ai.tool.call.arguments"]) == {"text": "hello inspector"}
        assert (
            "hello inspector" in json.loads(echo.attributes["gen_ai.tool.call.result"])["content"][0]["text"]
        )
    else:
        assert not {"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} & set(echo.attributes)
    return by_seq


def _check_histograms(receiver: Receiver, spans: list[ReceivedSpan]) -> None:
    receiver.wait_for(lambda: len(receiver.histograms()) == 2)
    hist = receiver.histograms()
    for name, kind in (
        ("mcp.client.operation.duration", KIND_CLIENT),
        ("mcp.server.operation.duration", KIND_SERVER),
    ):
        points = hist[name]
        assert {unit for unit, _ in points} == {"s"}
        # Cumulative: the last export of each attribute set holds the total count.
        last: dict[Any, Any] = {}
        for _, point in points:
            last[tuple(sorted((a.key, str(a.value)) for a in point.attributes))] = point
        assert sum(p.count for p in last.values()) == sum(1 for s in spans if s.kind == kind)
        assert all(p.sum < 60 for p in last.values()), "seconds, not nanoseconds"
        methods = {
            a.value.string_value for p in last.values() for a in p.attributes if a.key == "mcp.method.name"
        }
        assert methods == {s.attributes["mcp.method.name"] for s in spans if s.kind == kind}


def test_wrap_exports_a_span_per_request_joining_the_hosts_trace(db_path: Path) -> None:
    with otlp_receiver() as receiver:
        shim = warm_wrap_argv(db_path, *demo_argv(), extra=("--otlp", receiver.url))
        host = subprocess.run(  # the host, forked warm (a process of its own, its own tracer provider)
            peer_argv("tests.peers.otel_sdk_client", "--", *shim),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert host.returncode == 0, host.stderr[-3000:]
        sdk_spans = [json.loads(line) for line in host.stdout.splitlines()]
        engine = open_engine(db_path)
        session = ended_session(engine)
        assert session.id is not None
        rows = messages(engine, session.id)
        receiver.wait_for(lambda: len(receiver.spans()) >= len(_requests(rows)))
        spans = receiver.spans()
        by_seq = _check_spans(spans, rows, "pipe")
        assert not any("mcp.session.id" in s.attributes for s in spans)  # stdio has no session id
        # The SDK client sent traceparent: each client span is the child of the SDK's own span.
        sdk = {(s["method"], s["request_id"]): s for s in sdk_spans if s["kind"] == "CLIENT"}
        for seq, span in by_seq.items():
            request = _requests(rows)[seq]
            if request.direction == "c2s":
                parent = sdk[(request.method, span.attributes["jsonrpc.request.id"])]
                assert (span.trace_id, span.parent_span_id) == (parent["trace_id"], parent["span_id"])
                assert b"traceparent" in request.raw
            else:
                # The demo server's SDK passes the context of the tool call it is serving on to its
                # own requests (sampling in ask_llm, ...): they join the host's trace of that call.
                assert b"traceparent" in request.raw
                caller = next(s for s in sdk_spans if s["span_id"] == span.parent_span_id)
                assert caller["method"] == "tools/call" and caller["trace_id"] == span.trace_id
        sampling = next(s for s in spans if s.name == "sampling/createMessage")
        asked = next(s for s in sdk_spans if s["span_id"] == sampling.parent_span_id)
        assert asked["name"] == "MCP send tools/call ask_llm"
        _check_histograms(receiver, spans)

    # After the fact: the stored session gives the same spans.
    with otlp_receiver() as again:
        done = run("export", "--db", str(db_path), str(session.id), "--otlp", again.url)  # in-process
        assert done.returncode == 0, done.stderr
        assert f"({len(spans)} spans)" in done.stderr
        again.wait_for(lambda: len(again.spans()) >= len(spans))

        def shape(s: ReceivedSpan) -> Any:
            return (s.name, s.kind, s.trace_id if s.parent_span_id else "", s.parent_span_id, s.start_ns,
                    s.end_ns, s.status_code, s.status_message, sorted(s.attributes.items()))  # fmt: skip

        assert sorted(map(shape, again.spans())) == sorted(map(shape, spans))
        _check_histograms(again, again.spans())


@pytest.mark.anyio
async def test_proxy_exports_with_tcp_transport_and_the_session_id(db_path: Path) -> None:
    with otlp_receiver() as receiver:
        with (
            demo_http_server("streamable-http", warm=True) as target,
            proxy_in_process(target, db_path, "--otlp", receiver.url, "--otlp-content") as (url, _proxy),
        ):
            with anyio.fail_after(90):
                report = await drive_demo(url, mode="legacy")
            assert SAMPLING_REPLY in report.tool_results["ask_llm"].text
        engine = open_engine(db_path)
        [session] = [s for s in ended_sessions(engine) if s.message_count]
        rows = messages(engine, session.id)
        receiver.wait_for(lambda: len(receiver.spans()) >= len(_requests(rows)))
        spans = receiver.spans()
        _check_spans(spans, rows, "tcp", content=True)
        sids = {s.attributes.get("mcp.session.id") for s in spans}
        header = next(
            v for m in rows if m.http_headers for k, v in m.http_headers if k.lower() == "mcp-session-id"
        )
        assert sids == {header}, "every span (initialize too) carries the handshake's session id"
        assert {s.attributes["network.protocol.name"] for s in spans} == {"http"}
        port = int(target.rsplit(":", 1)[1].split("/")[0])
        assert {(s.attributes.get("server.address"), s.attributes.get("server.port")) for s in spans} == {
            ("127.0.0.1", port),  # client spans: the target
            (None, None),  # the server's requests
        }
        _check_histograms(receiver, spans)


def ended_sessions(engine: Any) -> list[Any]:
    from inspector.store import list_sessions

    return list_sessions(engine)


@pytest.mark.anyio
async def test_a_collector_that_refuses_connections_hurts_neither_forwarding_nor_recording(
    db_path: Path, tmp_path: Path
) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{sock.getsockname()[1]}"
    taps = Taps(tmp_path)
    demo = demo_argv()  # forked from the warm server
    params = taps.client_params(db_path, demo)
    params.args[-1] = params.args[-1].replace("--quiet", f"--otlp {refused}")
    assert refused in params.args[-1]
    with anyio.fail_after(90):
        report = await drive_demo(params, mode="legacy")
    assert report.tool_results["echo"].text == "hello inspector"
    engine = open_engine(db_path)
    session = ended_session(engine)
    assert session.id is not None
    rows = messages(engine, session.id)
    taps.assert_faithful(rows)  # every byte forwarded and recorded
    answered = {m.answers_seq for m in rows if m.answers_seq is not None}
    assert set(_requests(rows)) <= answered
    assert session.status == "ended" and session.facts["unanswered"] == []


# A server that tells, when asked, whether its parent (the shim) has the protobuf C extension mapped,
# which the OTLP exporter loads: at its start (before the shim forwarded anything) and later.
_MAPS_SERVER = r"""
import os, sys
def loaded():
    with open(f"/proc/{os.getppid()}/maps") as f:
        return "_upb" in f.read()
at_start = loaded()
for line in sys.stdin:
    sys.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"at_start":%s,"now":%s}}\n'
                     % (str(at_start).lower(), str(loaded()).lower()))
    sys.stdout.flush()
"""


def test_wrap_loads_opentelemetry_only_after_forwarding_started(db_path: Path) -> None:
    import time

    from tests.shim_process import ShimProcess

    with otlp_receiver() as receiver:
        shim = ShimProcess(
            wrap_argv(db_path, sys.executable, "-c", _MAPS_SERVER, extra=("--otlp", receiver.url))
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                shim.request(1, "ping")
                answer = json.loads(shim.read_line())["result"]
                if answer["now"] or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        finally:
            assert shim.proc.stdin is not None
            shim.proc.stdin.close()
            shim.proc.wait(30)
    assert answer == {"at_start": False, "now": True}, "the SDK is loaded, but only once forwarding runs"


def test_a_finishing_process_exports_what_the_wrap_held(db_path: Path, tmp_path: Path) -> None:
    """When the host makes `wrap` leave before its store opened, the detached process that records
    the held copies (`wrap_finish.py`) exports their spans too."""
    import marshal
    import time

    now = time.time_ns()
    held = [
        (0, now, "c2s", "stdin", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
        (0, now + 3_000_000, "s2c", "stdout", b'{"jsonrpc":"2.0","id":1,"result":{}}\n'),
    ]
    with otlp_receiver() as receiver:
        state = {
            "command": ["server"], "db": str(db_path), "name": None, "redact": [], "redact_path": [],
            "keep_secrets": False, "held": held, "returncode": 0, "reason": "test",
            "otlp": receiver.url, "otlp_content": False,
        }  # fmt: skip
        path = tmp_path / "held.bin"
        path.write_bytes(marshal.dumps(state))
        done = subprocess.run(peer_argv("inspector.wrap_finish", str(path)), timeout=60, check=False)
        assert done.returncode == 0
        receiver.wait_for(lambda: len(receiver.spans()) == 1)
        [span] = receiver.spans()
    assert span.name == "ping" and (span.start_ns, span.end_ns) == (now, now + 3_000_000)


def test_the_standard_variables_alone_turn_export_on(db_path: Path) -> None:
    """No --otlp: OTEL_EXPORTER_OTLP_ENDPOINT names the collector, OTEL_EXPORTER_OTLP_HEADERS and
    OTEL_SERVICE_NAME are honoured (the SDK reads them); OTEL_SDK_DISABLED=true turns it off."""
    import os

    from tests.shim_process import ShimProcess

    def run(env: dict[str, str]) -> None:
        shim = ShimProcess(
            warm_wrap_argv(db_path, sys.executable, "-c", _MAPS_SERVER), env={**os.environ, **env}
        )
        shim.request(1, "ping")
        assert json.loads(shim.read_line())["id"] == 1
        assert shim.proc.stdin is not None
        shim.proc.stdin.close()
        assert shim.proc.wait(60) == 0

    with otlp_receiver() as receiver:
        base = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "team-gateway"}
        run({**base, "OTEL_SDK_DISABLED": "true"})
        run({**base, "OTEL_EXPORTER_OTLP_HEADERS": "x-team-token=abc123"})
        receiver.wait_for(lambda: len(receiver.spans()) == 1)
        [span] = receiver.spans()
        assert span.name == "ping" and span.service == "team-gateway"
        assert receiver.headers[0]["x-team-token"] == "abc123"


def test_opted_in_content_is_the_redacted_recording(db_path: Path) -> None:
    """--otlp-content exports tool arguments as stored: after the one redaction step."""
    from tests.shim_process import ShimProcess

    with otlp_receiver() as receiver:
        extra = ("--otlp", receiver.url, "--otlp-content", "--redact-path", "params.arguments.api_key")
        shim = ShimProcess(warm_wrap_argv(db_path, sys.executable, "-c", _MAPS_SERVER, extra=extra))
        shim.request(
            1, "tools/call", {"name": "weather", "arguments": {"api_key": "sk-live-123", "city": "Oslo"}}
        )
        assert json.loads(shim.read_line())["id"] == 1
        assert shim.proc.stdin is not None
        shim.proc.stdin.close()
        assert shim.proc.wait(60) == 0
        receiver.wait_for(lambda: len(receiver.spans()) == 1)
        [span] = receiver.spans()
    arguments = json.loads(span.attributes["gen_ai.tool.call.arguments"])
    assert arguments["city"] == "Oslo" and arguments["api_key"].startswith("[secret:")
    assert "sk-live-123" not in json.dumps(span.attributes)
