"""Regression: a user error's text was printed as Rich markup, so what it named in square
brackets vanished or changed: a database under a folder named `[i]` was reported as
`/tmp/.../none.db` (the `[i]` read as "italic"), and the gateway's `no [[route]] table` came
out as `no [] table`. The error line now shows the text as it is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_in_process import Ran


@pytest.fixture
def _error(mcp_inspect: Callable[..., Ran]) -> Callable[..., str]:
    """The stderr of `mcp-inspect ARGS` (in-process), which must be a user error (exit status 2)."""

    def error(*args: str) -> str:
        done = mcp_inspect(*args)
        assert done.returncode == 2, done.stderr
        return done.stderr

    return error


def test_a_path_with_brackets_is_printed_as_it_is(tmp_path: Path, _error: Callable[..., str]) -> None:
    missing = tmp_path / "[i]" / "none.db"
    assert f"no recording database at {missing}" in _error("sessions", "--db", str(missing))


def test_a_toml_table_name_is_printed_as_it_is(tmp_path: Path, _error: Callable[..., str]) -> None:
    config = tmp_path / "gw.toml"
    config.write_text('listen = "127.0.0.1:0"\n')
    assert "no [[route]] table" in _error("proxy", "--config", str(config))
