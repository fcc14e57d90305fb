"""Hatch build hook: the wheel and the sdist carry the built web UI (inspector/api/static).

The UI is built from web/ by `npm ci && npm run build` (TypeScript types from the committed
web/src/api/openapi.json, tsc, vite), into inspector/api/static, which git ignores: pyproject's
`[tool.hatch.build] artifacts` puts it in both archives all the same. `uv build` makes the sdist
from the checkout (this hook builds the UI there when it is missing or older than its sources,
as `make web` would), then the wheel from the unpacked sdist, which already holds the built UI:
no Node.js is needed for that step, nor to install the wheel.

- An editable install (`uv sync`) builds nothing: the checkout's own static folder is served
  (`make web` builds it).
- In an unpacked sdist (PKG-INFO beside pyproject.toml) the shipped build is used as it is.
- `MCP_INSPECTOR_WEB_BUILD=never` packs the static folder as it is and fails if it is missing
  (the wheel test, which must not write into the checkout); `=always` rebuilds it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

STATIC = Path("inspector", "api", "static")
WEB = Path("web")
# What the build reads (the Makefile's `$(STATIC)/index.html` rule has the same inputs).
WEB_INPUTS = (
    "src",
    "public",
    "index.html",
    "vite.config.ts",
    "tsconfig.json",
    "package.json",
    "package-lock.json",
)
MODE_ENV = "MCP_INSPECTOR_WEB_BUILD"


class WebUiBuildError(RuntimeError):
    pass


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        yield from (p for p in path.rglob("*") if p.is_file())


def newest_input(root: Path) -> float:
    """The newest modification time among the UI's sources (0 without web/)."""
    return max((p.stat().st_mtime for name in WEB_INPUTS for p in _files(root / WEB / name)), default=0.0)


def stale(root: Path) -> bool:
    """True when inspector/api/static/index.html is missing or older than a source of the UI."""
    index = root / STATIC / "index.html"
    return not index.is_file() or newest_input(root) > index.stat().st_mtime


def _run(argv: list[str], cwd: Path) -> None:
    try:
        subprocess.run(argv, cwd=cwd, check=True, stdin=subprocess.DEVNULL)
    except subprocess.CalledProcessError as e:
        raise WebUiBuildError(
            f"building the web UI failed: `{' '.join(argv)}` in {cwd} exited {e.returncode}"
        ) from e


def build_web_ui(root: Path) -> None:
    """`make web` without the OpenAPI export (the committed openapi.json is what a test keeps fresh)."""
    web = root / WEB
    npm = shutil.which("npm")
    if npm is None:
        raise WebUiBuildError(
            f"the web UI ({STATIC}) is not built and npm is not installed: install Node.js (20.19+ or 22.12+, as vite needs) with npm, "
            "or run `make web` in the checkout, then build again"
        )
    installed = web / "node_modules" / ".installed"  # as the Makefile's rule: npm ci when the lock is newer
    manifests = max((web / name).stat().st_mtime for name in ("package.json", "package-lock.json"))
    if not installed.exists() or installed.stat().st_mtime < manifests:
        _run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], web)
        installed.touch()
    _run([npm, "run", "--silent", "build"], web)
    (root / STATIC / "index.html").touch()  # as the Makefile does: newer than every input


def ensure_web_ui(root: Path, mode: str = "") -> None:
    """The built UI in inspector/api/static, (re)built when missing or stale, as `mode` allows."""
    index = root / STATIC / "index.html"
    if mode not in ("", "never", "always"):
        raise WebUiBuildError(f"${MODE_ENV} must be `never` or `always`, not {mode!r}")
    from_sdist = (root / "PKG-INFO").is_file()
    if mode == "never" or (from_sdist and mode != "always"):
        if not index.is_file():
            where = "the sdist lacks it" if from_sdist else "run `make web`"
            raise WebUiBuildError(f"the web UI is not built ({index} is missing): {where}")
        return
    if mode == "always" or stale(root):
        if not (root / WEB / "package.json").is_file():
            raise WebUiBuildError(f"the web UI ({STATIC}) is not built and its sources ({WEB}/) are not here")
        build_web_ui(root)


class WebUiHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "web-ui"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version == "editable":
            return  # the checkout's static folder is served as it is (make web)
        ensure_web_ui(Path(self.root), os.environ.get(MODE_ENV, ""))
