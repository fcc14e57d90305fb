"""`replay`'s load options in combinations that make no sense are refused, each with one line that
says why (exit status 2, no traceback), before a server is started or the store is opened: two
paces at once, a bound or a pass count without a pace, --speed without --as-recorded, numbers out
of range, --repeat with --duration, and the diff's options with a load (it has no diff)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_in_process import Ran

REFUSED = [
    (("--rate", "5", "--max"), "--rate and --max are different paces"),
    (("--as-recorded", "--max"), "--as-recorded and --max are different paces"),
    (("--concurrency", "4"), "--concurrency pace a load replay: add --rate N, --as-recorded or --max"),
    (("--repeat", "2", "--duration", "3"), "--repeat, --duration pace a load replay"),
    (("--max", "--speed", "2"), "--speed scales the recorded gaps: it goes with --as-recorded"),
    (("--rate", "0"), "--rate must be above 0"),
    (("--as-recorded", "--speed", "-1"), "--speed must be above 0"),
    (("--max", "--concurrency", "0"), "--concurrency must be 1 or more"),
    (("--max", "--repeat", "0"), "--repeat must be 1 or more"),
    (("--max", "--duration", "0"), "--duration must be above 0 seconds"),
    (("--max", "--repeat", "2", "--duration", "1"), "--repeat and --duration both say when to stop"),
    (
        ("--max", "--calibrate", "--ignore", "**.x"),
        "--calibrate, --ignore shape the diff; a load replay has none",
    ),
]


@pytest.mark.parametrize(("args", "said"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_bad_load_options_are_refused_in_one_line(
    args: tuple[str, ...], said: str, tmp_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    out = mcp_inspect("replay", "1", "--db", str(tmp_path / "none.db"), *args, "--", "no-such-server")
    assert out.returncode == 2, out
    assert said in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
