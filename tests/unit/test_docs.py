"""The README stays a front page and its links lead somewhere.

`make test` builds the documentation site with `mkdocs build --strict`, which fails on a docs page
linking to a missing page or anchor; the README is outside the site, so its own links are checked
here: every relative link names a file of the checkout, and one into docs/ that names an anchor
names a heading of that page. The generated reference pages (docs/hooks.py) are checked to render
every command and every config key, so a renamed command cannot silently drop out of them.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_LINES = 250
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _relative_links(text: str) -> list[str]:
    return [
        t for t in LINK.findall(text) if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")
    ]


def _slug(heading: str) -> str:
    """The anchor mkdocs' toc extension gives a heading (its default slugify)."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[-\s]+", "-", text).strip("-")


def _anchors(page: Path) -> set[str]:
    anchors, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            anchors.add(_slug(line.lstrip("#")))
    return anchors


def test_the_readme_is_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: move sections into docs/"


def test_the_readmes_relative_links_exist() -> None:
    missing = []
    for target in _relative_links(README.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        file = ROOT / path
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            missing.append(target)
    assert not missing, f"README.md links to what is not there: {missing}"


def test_the_link_check_sees_a_missing_page_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Wrap a host's stdio server\n\n```\n# not a heading\n```\n")
    assert _anchors(page) == {"title", "wrap-a-hosts-stdio-server"}
    assert _relative_links("[a](docs/x.md) [b](https://e.org) [c](#here) [d](x.png#y)") == [
        "docs/x.md",
        "x.png#y",
    ]


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_has_every_command(hooks: ModuleType) -> None:
    import typer

    from inspector.cli import app

    page = hooks.cli_page()
    group = typer.main.get_command(app)
    for name in group.commands:  # type: ignore[attr-defined]
        assert f"## mcp-inspect {name}\n" in page
    assert "`--keep-secrets`" in page and "mcp-inspect intercept rules" in page


def test_the_config_reference_has_every_key(hooks: ModuleType) -> None:
    from inspector import settings

    page = hooks.config_page()
    for key, variable in settings.ENV.items():
        assert f"| `{key}` |" in page and f"`{variable}`" in page
    assert "| `servers[].record` |" in page and "| `route[].target` |" in page


def test_the_api_reference_has_every_operation(hooks: ModuleType) -> None:
    import json

    page = hooks.api_page()
    schema = json.loads(hooks.OPENAPI.read_text(encoding="utf-8"))
    for path, operations in schema["paths"].items():
        for method in operations:
            assert f"### `{method.upper()} {path}`" in page
