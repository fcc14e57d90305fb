"""Regression: a scenario path that is not a scenario (`/etc/shadow`, any text file) echoed the
file's lines in the error, through `POST /api/serve/processes` and `mcp-inspect serve FILE`: a
line ending in `:` is a YAML key, and unknown keys were named; YAML syntax errors quoted the
offending line with a caret. Errors now give line and column numbers and the field path, not
the file's text (`inspector/scenario/load.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Api, serve
from tests.cli_in_process import Ran

SECRET = "s3cr3t-Hash-Qx7"
FILES = {
    # /etc/shadow's shape: every line ends in ':', so YAML reads each whole line as a key.
    "shadow": f"root:$6$salt${SECRET}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
    # A YAML mapping of secrets (an .env-like config): unknown keys, secret values.
    "config.yaml": f"password: {SECRET}\n{SECRET}: token\n",
    # Source code: a YAML syntax error on the line with the secret.
    "code.py": f'import os\nKEY = "{SECRET}"\ndef f(): {SECRET}: [\n',
    # Broken JSON.
    "data.json": f'{{"key": "{SECRET}", {SECRET}\n',
    # A tab YAML cannot start a token with, and an alias and a tag named like the secret.
    "tabs.yaml": f"x: 1\n\t{SECRET}\n",
    "alias.yaml": f"x: *{SECRET}\n",
    "tag.yaml": f"x: !{SECRET} y\n",
}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from serve(tmp_path_factory.mktemp("scenario-errors") / "ui.db")


@pytest.fixture
def text_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / request.param
    path.write_text(FILES[request.param])
    return path


@pytest.mark.parametrize("text_file", sorted(FILES), indirect=True)
def test_the_api_names_lines_not_content(api: Api, runtime: Path, text_file: Path) -> None:
    response = api.http.post("/api/serve/processes", json={"scenario": str(text_file)})
    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert str(text_file) in detail and "line " in detail and "column " in detail
    assert SECRET not in detail and "daemon" not in detail and "KEY" not in detail
    assert api.get("/api/serve/processes").json()["processes"] == []  # nothing was started


@pytest.mark.parametrize("text_file", ["shadow", "code.py", "config.yaml"], indirect=True)
def test_the_cli_names_lines_not_content(
    runtime: Path, tmp_path: Path, text_file: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    done = mcp_inspect("serve", str(text_file), "--stdio", "--db", str(tmp_path / "x.db"), input="")
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "line " in output and "Traceback" not in output
    assert SECRET not in output and "daemon" not in output


def test_a_real_scenario_error_still_points_at_the_field(api: Api, runtime: Path, tmp_path: Path) -> None:
    typo = tmp_path / "typo.yaml"
    typo.write_text("tools:\n  - name: t\n    nmae: oops\n  - description: no name\n")
    detail = api.http.post("/api/serve/processes", json={"scenario": str(typo)}).json()["detail"]
    assert "line 3, column 5: tools[0]: a field that is not part of the scenario format" in detail
    assert "line 4, column 5: tools[1].name: Field required" in detail


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The serve processes' control files go to this test's own directory (none should appear)."""
    directory = tmp_path / "runtime"
    monkeypatch.setenv("MCP_INSPECTOR_RUNTIME", str(directory))
    return directory
