"""`mcp-inspect proxy --help` said "--config: a TOML file of [] tables": Rich, which rendered the
help, read `[route]` in `[[route]]` as a markup tag and dropped it; help texts written for Rich
(`\\[secret:NAME]`) would have printed the backslash anywhere else. The help is now plain text
(Click's formatter, `inspector.help_text`): what a help text says in brackets is printed as written,
and a usage error is plain text too.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.cli_in_process import Ran


def test_brackets_in_help_are_printed_as_written(mcp_inspect: Callable[..., Ran]) -> None:
    proxy = mcp_inspect("proxy", "--help")
    assert proxy.returncode == 0, proxy.stderr
    text = " ".join(proxy.stdout.split())  # the wrapping aside
    assert "a TOML file of [[route]] tables" in text
    assert "stored as a [secret:NAME] placeholder" in text and "\\[" not in text
    prune = mcp_inspect("prune", "--help")
    assert "the config file's [retention] table" in " ".join(prune.stdout.split())


def test_a_usage_error_is_plain_text(mcp_inspect: Callable[..., Ran]) -> None:
    ran = mcp_inspect("show", "1", "--no-such-option")
    assert ran.returncode == 2
    assert ran.stderr.splitlines()[-1] == "Error: No such option: --no-such-option"
    assert "╭" not in ran.stderr
