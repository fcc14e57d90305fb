"""`mcp-inspect config`: show (every setting and its source: default, config file, environment,
flag; a table in 80 columns and JSON), path, init (a commented 0600 template that loads, never
overwritten without --force). The CLI in-process (tests/cli_in_process.py) with the environment a user's
shell would give it, a real config file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from inspector.settings import load
from tests.cli_in_process import Ran, run


def _run(*args: str, config: Path, env: dict[str, str] | None = None) -> Ran:
    unset: dict[str, str | None] = {
        k: None for k in os.environ if k.startswith("MCP_INSPECTOR_") and k != "MCP_INSPECTOR_RUNTIME"
    }
    return run(*args, env={**unset, "MCP_INSPECTOR_CONFIG": str(config), "COLUMNS": "80", **(env or {})})


def test_path_and_init_write_a_private_commented_template_once(tmp_path: Path) -> None:
    config = tmp_path / "conf" / "nested" / "config.toml"
    assert _run("config", "path", config=config).stdout.strip() == str(config)
    out = _run("config", "init", config=config)
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.parent.stat().st_mode) == 0o700
    text = config.read_text()
    assert "[retention]" in text and "[[servers]]" in text and "redact" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    # All commented out: it loads, and every value is the default.
    got = load({"MCP_INSPECTOR_CONFIG": str(config)})
    assert got.path == config and got.sources == {}
    # Uncommenting an example gives a valid setting (the template's examples are right).
    uncommented = text.replace('# max_age = "30d"', 'max_age = "30d"').replace("# [retention]", "[retention]")
    config.write_text(uncommented)
    assert load({"MCP_INSPECTOR_CONFIG": str(config)}).settings.retention.max_age == 30 * 86400
    again = _run("config", "init", config=config)
    assert again.returncode == 2 and "exists" in again.stderr and "--force" in again.stderr
    assert config.read_text() == uncommented  # kept
    forced = _run("config", "init", "--force", config=config)
    assert forced.returncode == 0 and config.read_text() == text
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_show_says_where_each_value_came_from(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'db = "~/from-file.db"\nredact = ["x-file-key"]\n\n'
        '[retention]\nmax_age = "30d"\nmax_session_size = "200MB"\n\n'
        '[[servers]]\nmatch = "*github*"\nrecord = "metadata"\nredact = ["x-github-token"]\n'
    )
    env = {"MCP_INSPECTOR_MAX_TOTAL_SIZE": "2GB", "MCP_INSPECTOR_REDACT": "x-env-key",
           "MCP_INSPECTOR_MAX_SESSION_SIZE": "50MB"}  # fmt: skip
    out = _run(
        "config",
        "--json",
        "--db",
        str(tmp_path / "flag.db"),
        "--redact",
        "x-flag-key",
        config=config,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["config_file"] == {"path": str(config), "exists": True}
    rows = {row["key"]: row for row in got["settings"]}
    assert rows["db"] == {"key": "db", "value": str(tmp_path / "flag.db"), "source": "flag --db"}
    assert rows["retention.max_age"]["value"] == 30 * 86400
    assert rows["retention.max_age"]["source"] == "config file"
    assert rows["retention.max_total_size"] == {
        "key": "retention.max_total_size", "value": 2_000_000_000,
        "source": "environment MCP_INSPECTOR_MAX_TOTAL_SIZE",
    }  # fmt: skip
    assert rows["retention.max_session_size"]["value"] == 50_000_000  # the environment beats the file
    assert rows["storage.compress_above"] == {
        "key": "storage.compress_above",
        "value": 4096,
        "source": "default",
    }
    # Redaction names add up (capture/redact.py): the file's, the environment's and the flag's.
    assert rows["redact"]["value"] == ["x-file-key", "x-env-key", "x-flag-key"]
    assert rows["redact"]["source"] == "config file + environment MCP_INSPECTOR_REDACT + flag --redact"
    assert rows["servers[0]"]["value"] == {
        "match": "*github*",
        "record": "metadata",
        "redact": ["x-github-token"],
    }

    table = _run("config", "show", config=config, env=env)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    # Every line fits 80 columns but the config file's path, printed whole so it can be copied.
    assert all(len(line) <= 80 for line in lines if line.strip() != str(config)), table.stdout
    by_key = {line.split()[0]: line for line in lines if line.strip()}
    assert "from-file.db" in by_key["db"] and by_key["db"].rstrip().endswith("config file")
    assert "2GB" in by_key["retention.max_total_size"] and "$MCP_INSPECTOR_MAX_TOTAL_SIZE" in table.stdout
    assert "30d" in by_key["retention.max_age"]
    assert by_key["storage.dedup_above"].split()[1:] == ["4KiB", "default"]
    assert f"config file: found\n  {config}" in table.stdout


def test_show_without_a_file_and_with_a_bad_one(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    out = _run("config", config=missing)
    assert out.returncode == 0 and "not found" in out.stdout and "config init" in out.stdout
    assert "recordings/inspector.db" in out.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[retention]\nmax_age = "soon"\n')
    out = _run("config", "show", config=bad)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and str(bad) in out.stderr and "retention.max_age" in out.stderr


def test_help_mentions_the_config_file() -> None:
    top = " ".join(run("--help").stdout.split())  # the wrapping aside
    assert "mcp-inspect config" in top and "mcp-inspect doctor" in top
    wrap = " ".join(run("wrap", "--help").stdout.split())
    assert "config file's `db`" in wrap
