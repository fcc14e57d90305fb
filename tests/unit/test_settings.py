"""The settings loader (`inspector/settings.py`): file < environment < flags, sources, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.config import DEFAULT_DB, default_db
from inspector.errors import InspectorError
from inspector.settings import load, parse_duration, parse_size
from inspector.settings_sources import ENV

CONFIG = """
db = "~/rec/inspector.db"
redact = ["x-tenant-key"]

[retention]
max_age = "30d"
max_total_size = "2GB"

[storage]
compress_above = "8KiB"

[[servers]]
match = "*github*"
record = "metadata"

[[servers]]
match = "python *"
"""


def _file(tmp_path: Path, text: str = CONFIG) -> dict[str, str]:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return {"MCP_INSPECTOR_CONFIG": str(path)}


def test_sizes_and_durations() -> None:
    assert [parse_size(v) for v in (4096, "4KiB", "500MB", "2 GB", "1.5k")] == [
        4096, 4096, 500_000_000, 2_000_000_000, 1536,
    ]  # fmt: skip
    assert [parse_duration(v) for v in (60, "90m", "12h", "30d", "2w")] == [60, 5400, 43200, 2592000, 1209600]
    for bad in ("ten", "-1", "5 parsecs", True):
        with pytest.raises(ValueError):
            parse_size(bad)
    for bad in ("soon", "3y", "-5"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_no_file_is_the_defaults(tmp_path: Path) -> None:
    got = load({"MCP_INSPECTOR_CONFIG": str(tmp_path / "absent.toml")})
    assert got.path is None and got.looked_at == tmp_path / "absent.toml"
    assert not got.settings.retention.active and got.settings.storage.compress_above == 4096
    assert got.source("retention.max_age") == "default" and got.sources == {}


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    env = _file(tmp_path)
    got = load(env)
    assert got.settings.retention.max_age == 30 * 86400
    assert got.settings.retention.max_total_size == 2_000_000_000
    assert got.source("retention.max_age") == f"config file {tmp_path / 'config.toml'}"
    env["MCP_INSPECTOR_MAX_AGE"] = "7d"
    env["MCP_INSPECTOR_REDACT"] = "a, b"
    got = load(env)
    assert got.settings.retention.max_age == 7 * 86400 and got.settings.redact == ["a", "b"]
    assert got.source("retention.max_age") == "environment MCP_INSPECTOR_MAX_AGE"
    got = load(
        env, flags={"retention.max_age": ("1h", "--max-age"), "retention.max_session_size": (None, "--x")}
    )
    assert got.settings.retention.max_age == 3600 and got.source("retention.max_age") == "flag --max-age"
    assert got.settings.retention.max_session_size is None


def test_server_rules_first_match_wins(tmp_path: Path) -> None:
    s = load(_file(tmp_path)).settings
    assert s.rule_for(name="GitHub tools").record == "metadata"  # type: ignore[union-attr]
    assert s.rule_for(command=["python", "server.py"]).record == "full"  # type: ignore[union-attr]
    assert s.rule_for(url="http://127.0.0.1/mcp") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[retention]\nmax_age = 'soon'\n", "retention.max_age: not a duration: 'soon'"),
        ("[retention]\nmax_ages = '1d'\n", "retention.max_ages: unknown setting"),
        ("[[servers]]\nmatch = '*'\nrecord = 'some'\n", "servers.0.record:"),
        ("db = \n", "not valid TOML"),
        (
            "[retention]\nkeep_labelled = 'maybe'\n",
            "retention.keep_labelled: should be a boolean, not 'maybe'",
        ),
        ("[[servers]]\nrecord = 'full'\n", "servers.0.match: required, missing"),
        ("redact = 'x-key'\n", "redact: should be a list, not 'x-key'"),
        ("redact = ['a', 2]\n", "redact.1: should be a string, not 2"),
        ("retention = 3\n", "retention: should be a table, not 3"),
        ("[storage]\nmax_record_bytes = 100\n", "storage.max_record_bytes: must be at least 1KiB, got 100"),
    ],
)
def test_a_bad_file_is_one_line_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InspectorError) as caught:
        load(_file(tmp_path, text))
    said = str(caught.value)
    assert said.startswith(str(tmp_path / "config.toml")) and message in said and "\n" not in said


def test_a_bad_variable_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(
        InspectorError, match="environment MCP_INSPECTOR_MAX_TOTAL_SIZE: retention.max_total_size"
    ):
        load({**_file(tmp_path), "MCP_INSPECTOR_MAX_TOTAL_SIZE": "lots"})


def test_default_db_comes_from_the_file_after_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in _file(tmp_path).items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("MCP_INSPECTOR_DB", raising=False)
    assert default_db() == str(Path("~/rec/inspector.db").expanduser())
    monkeypatch.setenv("MCP_INSPECTOR_DB", "postgresql://h/db")
    assert default_db() == "postgresql://h/db"


def test_default_db_with_nothing_configured_is_the_default_and_a_bad_variable_is_still_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No file, no variable: the default path (the settings' models are not needed to know it). Any
    # settings variable is still read and checked as before, a bad one a one-line error.
    for name in ENV.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MCP_INSPECTOR_CONFIG", str(tmp_path / "none.toml"))
    assert default_db() == str(DEFAULT_DB)
    monkeypatch.setenv("MCP_INSPECTOR_MAX_AGE", "forever")
    with pytest.raises(InspectorError, match="environment MCP_INSPECTOR_MAX_AGE"):
        default_db()
    monkeypatch.delenv("MCP_INSPECTOR_MAX_AGE")
    (tmp_path / "none.toml").mkdir()  # there but not a file: the same error as before
    with pytest.raises(InspectorError, match="cannot read the config file"):
        default_db()
