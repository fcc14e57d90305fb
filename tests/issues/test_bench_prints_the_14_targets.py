"""`make bench` did not give the four #14 figures together, nor their targets.

What was wrong: the figures of issue #14 were spread over the bench's tables
(HTTP proxy/direct p50, stdio wrap/socat p50, recording throughput, wrap
start-up), the throughput target still said 50,000 msg/s, and nothing put a
figure beside its floor (nginx, socat: the same extra hop done by a C
program). Now the report ends with one block: each figure measured in the
run, its target, its floor and `met` / `NOT met`, in 80 columns, and a
section that did not run says `not measured` instead of vanishing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import main
from bench.report import summary_lines

HEADER = "Issue #14 targets"


@pytest.mark.timeout(300)
def test_a_real_run_ends_with_the_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A short real run (start-up without the commands, one round; a small flood), the bench's own
    `main` in this process (its setups still spawn the real wrap, socat and server): the block
    closes the report, in 80 columns, its figures measured."""
    argv = ["--quick", "--only", "startup,flood", "--no-pin", "--no-commands", "--startup-runs", "1"]
    status = main([*argv, "--flood", "400", "--json", str(tmp_path / "out.json")])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    lines = out.out.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(HEADER)), None)
    assert start is not None, "the report has no #14 summary block:\n" + out.out
    block = lines[start : start + 5]
    assert all(len(line) <= 80 for line in block), block
    assert lines[start + 5].startswith("JSON: "), "the block is not the report's end"
    assert block[1] == "  http p50 proxy/direct: not measured (http not run)"
    assert block[2] == "  stdio p50 wrap/socat: not measured (latency not run)"
    assert block[3].startswith("  recording msg/s, all committed: ")
    assert "(>= 100,000)" in block[3] and block[3].endswith(("met", "NOT met"))
    # Signed: on a busy machine the direct start can be the slower one (CI printed "-11 (<= 100;
    # socat -120) met"), so a real run's sign is not fixed.
    assert re.match(r"  wrap start-up, added ms: [+-]\d+ \(<= 100; socat [+-]\d+\) (met|NOT met)$", block[4])


def _results(**sections: Any) -> dict[str, Any]:
    return {"errors": {}, **sections}


def test_each_figure_with_its_target_floor_and_verdict() -> None:
    http = {
        "modes": {
            "json": {
                "setups": {
                    "direct": {"p50_us": 1000.0},
                    "proxy": {"p50_us": 1200.0},
                    "nginx": {"p50_us": 1040.0},
                }
            },
            "sse": {"setups": {"direct": {"p50_us": 1000.0}, "proxy": {"p50_us": 1500.0}}},
        }
    }
    latency = {"setups": {"direct": {"p50_us": 100.0}, "socat": {"p50_us": 110.0}, "wrap": {"p50_us": 125.0}}}
    db = {"ok": True, "bytes_ok": True, "status": "ended", "missing": 0, "rows": 200_003, "expected": 200_003}
    lines = summary_lines(
        _results(
            http=http,
            latency=latency,
            flood={"wrap": {"msgs_per_s_to_exit": 123_456.0, "db": db}},
            startup={"added_ms": {"socat": 3.0, "wrap": 85.0}},
        )
    )
    assert [line.strip() for line in lines[1:]] == [
        "http p50 proxy/direct (json): 1.20x (<= 1.25x; nginx 1.04x) met",
        "http p50 proxy/direct (sse): 1.50x (<= 1.25x; nginx n/a) NOT met",
        "stdio p50 wrap/socat: 1.14x (<= 1.10x; socat/direct 1.10x) NOT met",
        "recording msg/s, all committed: 123,456 (>= 100,000) met",
        "wrap start-up, added ms: +85 (<= 100; socat +3) met",
    ]
    assert all(len(line) <= 80 for line in lines)


def test_missing_rows_fail_the_throughput_and_absent_sections_say_so() -> None:
    db = {
        "ok": False,
        "bytes_ok": True,
        "status": "ended",
        "missing": 6,
        "rows": 199_997,
        "expected": 200_003,
    }
    results = _results(flood={"wrap": {"msgs_per_s_to_exit": 150_000.0, "db": db}})
    results["errors"]["http"] = "RuntimeError: no server"
    assert [line.strip() for line in summary_lines(results)[1:]] == [
        "http p50 proxy/direct: not measured (http failed)",
        "stdio p50 wrap/socat: not measured (latency not run)",
        "recording msg/s, all committed: 150,000 (>= 100,000; ROWS MISSING) NOT met",
        "wrap start-up, added ms: not measured (startup not run)",
    ]
