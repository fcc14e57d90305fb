"""End-to-end tests: the demo driver against `python -m inspector.demo` over stdio (forked from a
warm server, tests/warm_peers.py; the driver CLI test starts a plain one).

Each mode runs the server subprocess once (module-scoped fixture) and the tests
assert on the resulting `DemoReport`:

* ``legacy``: initialize handshake (2025-11-25); sampling / elicitation / roots
  arrive as standalone server-to-client JSON-RPC requests (integer ids).
* ``auto``: ``server/discover`` succeeds, so the connection is 2026-07-28; the
  same three requests arrive inside ``InputRequiredResult.inputRequests`` and
  are answered by retrying ``tools/call`` (their ids are the resolver keys).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp
import pytest
from mcp_types import ElicitRequestParams, ElicitResult
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from inspector.demo.driver import BOOKING, DEMO_ROOT, SAMPLING_MODEL, SAMPLING_REPLY, TOOL_CALLS, drive_demo
from inspector.demo.driver import main as driver_main
from inspector.demo.report import DemoReport
from inspector.demo.server import NOTES, build_server
from tests.warm_peers import demo_argv

# The demo forked from a warm server (tests/warm_peers.py): `python -m inspector.demo` without the
# SDK's imports each start; the driver's CLI below drives a plain `python -m inspector.demo` (its start).
_WARM = demo_argv()
DEMO_COMMAND = mcp.StdioServerParameters(command=_WARM[0], args=_WARM[1:])
DEMO_COMMAND_ARGV = demo_argv(warm=False)
RUN_TIMEOUT_S = 60
RESOLVER_KEYS = {
    "sampling/createMessage": "inspector.demo._resolvers:sample_answer",
    "elicitation/create": "inspector.demo._resolvers:ask_booking",
    "roots/list": "inspector.demo._resolvers:client_roots",
}


async def _drive(mode: str) -> DemoReport:
    with anyio.fail_after(RUN_TIMEOUT_S):
        return await drive_demo(DEMO_COMMAND, mode=mode)


@pytest.fixture(scope="module", params=["legacy", "auto"])
def report(request: pytest.FixtureRequest) -> DemoReport:
    return anyio.run(_drive, request.param)


def test_negotiates_the_expected_protocol_era(report: DemoReport) -> None:
    assert report.server_name == "inspector-demo"
    if report.mode == "legacy":
        assert report.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        assert report.logging_level_set
    else:
        assert report.protocol_version in MODERN_PROTOCOL_VERSIONS
        assert not report.logging_level_set


def test_lists_every_feature(report: DemoReport) -> None:
    assert sorted(report.tools) == sorted(name for name, _ in TOOL_CALLS)
    assert report.resources == ["demo://readme", "demo://config"]
    assert report.resource_templates == ["demo://notes/{name}"]
    assert report.prompts == ["review_code"]


def test_echo_round_trips_text(report: DemoReport) -> None:
    outcome = report.tool_results["echo"]
    assert outcome.text == "hello inspector"
    assert not outcome.is_error
    assert outcome.structured is None


def test_weather_returns_structured_output_matching_its_text(report: DemoReport) -> None:
    outcome = report.tool_results["weather"]
    assert not outcome.is_error
    assert outcome.structured is not None
    assert outcome.structured["city"] == "Lisbon"
    assert set(outcome.structured) == {"city", "temperature_c", "conditions", "humidity_pct"}
    assert json.loads(outcome.text) == outcome.structured


def test_count_slowly_reports_progress_and_logs(report: DemoReport) -> None:
    assert report.tool_results["count_slowly"].text == "counted to 3"
    events = [(e.tool, e.progress, e.total, e.message) for e in report.progress]
    assert events == [("count_slowly", float(i), 3.0, f"step {i}/3") for i in (1, 2, 3)]
    # The driver asked for "info" (setLevel in legacy, per-request _meta in auto): no debug ticks.
    assert [(log.level, log.logger, log.data) for log in report.logs] == [
        ("info", "demo", "counting to 3"),
        ("info", "demo", "counted to 3"),
    ]


def test_fail_returns_an_error_result(report: DemoReport) -> None:
    outcome = report.tool_results["fail"]
    assert outcome.is_error
    assert "demo failure" in outcome.text


def _single_request(report: DemoReport, method: str) -> Any:
    (event,) = report.requests_for(method)
    if report.mode == "legacy":
        assert isinstance(event.request_id, int), "legacy requests ride their own JSON-RPC id"
    else:
        assert event.request_id == RESOLVER_KEYS[method], "2026 requests are keyed inputRequests entries"
    return event


def test_ask_llm_returns_the_sampled_answer(report: DemoReport) -> None:
    event = _single_request(report, "sampling/createMessage")
    assert event.detail == "What is six times seven?"
    outcome = report.tool_results["ask_llm"]
    assert not outcome.is_error
    assert outcome.text == f"{SAMPLING_MODEL} answered: {SAMPLING_REPLY}"


def test_book_table_uses_the_elicited_form(report: DemoReport) -> None:
    event = _single_request(report, "elicitation/create")
    assert "Chez MCP" in event.detail
    outcome = report.tool_results["book_table"]
    assert not outcome.is_error
    prefix = "Booked Chez MCP: "
    assert outcome.text.startswith(prefix)
    assert json.loads(outcome.text.removeprefix(prefix)) == BOOKING


def test_list_client_roots_returns_the_client_roots(report: DemoReport) -> None:
    _single_request(report, "roots/list")
    outcome = report.tool_results["list_client_roots"]
    assert not outcome.is_error
    assert outcome.text == f"{DEMO_ROOT} (demo-project)"


def test_resources_static_templated_and_missing(report: DemoReport) -> None:
    assert report.resource_texts["demo://readme"].startswith("This is the MCP inspector demo server")
    assert json.loads(report.resource_texts["demo://config"])["name"] == "inspector-demo"
    assert report.resource_texts["demo://notes/welcome"] == NOTES["welcome"]
    assert list(report.resource_errors) == ["demo://notes/does-not-exist"]
    assert report.resource_errors["demo://notes/does-not-exist"].startswith("-32602")


def test_prompt_renders_its_arguments(report: DemoReport) -> None:
    user, assistant = report.prompt_messages
    assert user.startswith("user: Please review this python code:")
    assert "return a - b" in user
    assert assistant.startswith("assistant: ")


def test_completion_suggests_languages(report: DemoReport) -> None:
    assert report.completions == ["python"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(("action", "word"), [("decline", "declined"), ("cancel", "cancelled")])
def test_refused_booking_is_reported_in_process(mode: str, action: str, word: str) -> None:
    async def refuse(context: Any, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action=action)  # type: ignore[arg-type]

    async def run() -> str:
        with anyio.fail_after(RUN_TIMEOUT_S):
            async with mcp.Client(build_server(), mode=mode, elicitation_callback=refuse) as client:
                result = await client.call_tool("book_table", {"restaurant": "Nowhere"})
        assert not result.is_error
        return "\n".join(getattr(block, "text", "") for block in result.content)

    assert anyio.run(run) == f"Booking at Nowhere was {word} by the user."


def test_driver_cli_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m inspector.demo.driver` is `driver.main` (run here in-process; the demo server it
    drives is a process of its own)."""
    returncode = driver_main(["--mode", "auto", "--", *DEMO_COMMAND_ARGV])
    stderr = capsys.readouterr().err
    assert returncode == 0, stderr
    assert "protocol=2026-07-28 server=inspector-demo" in stderr
    assert f"ask_llm: {SAMPLING_MODEL} answered: {SAMPLING_REPLY}" in stderr
