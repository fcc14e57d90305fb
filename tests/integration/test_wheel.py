"""The package as a user installs it: `uv build` (the sdist, then the wheel from the unpacked sdist,
as a fresh clone builds it), the wheel installed alone into a fresh virtualenv (no checkout on its
path, no Node.js: PATH is the virtualenv's bin only), where `mcp-inspect demo --no-ui` records and
`mcp-inspect ui` serves the built page, its assets and the recorded session.

The process and packaging boundary is the point, so this starts processes. It packs the web UI
already built in the checkout (`make web`, which `make test` runs): MCP_INSPECTOR_WEB_BUILD=never
tells hatch_build.py to build nothing and write nothing into the checkout. uv is the Makefile's
(.tools/bin/uv), else $UV, else the one on PATH; the build's and the wheel's dependencies come
from uv's cache without asking the package index (`--offline`: no round trips to revalidate what
the cache holds), or from the index when the cache lacks one (the first time).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.timeout(900)  # a build, an install, the demo: minutes on a loaded machine

STATIC = ROOT / "inspector" / "api" / "static"
ASSET = re.compile(r'(?:src|href)="(/assets/[^"]+)"')
DEADLINE = 600  # seconds for one step: generous (a loaded machine), only a failing step waits


def _uv() -> str:
    for candidate in (ROOT / ".tools" / "bin" / "uv", os.environ.get("UV"), shutil.which("uv")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("uv is not installed: run `make install` (make test does it)")


def _run(
    argv: list[str | Path], env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    argv_text = [str(a) for a in argv]
    done = subprocess.run(
        argv_text,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=DEADLINE,
        env=env,
        cwd=cwd,
    )
    assert done.returncode == 0, f"{argv_text} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _uv_run(
    *args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`uv ARGS...` from uv's cache alone (`--offline`); again with the index if that fails (a
    dependency not cached yet)."""
    try:
        return _run([_uv(), *args, "--offline"], env=env, cwd=cwd)
    except AssertionError:
        return _run([_uv(), *args], env=env, cwd=cwd)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (STATIC / "index.html").is_file():
        pytest.fail("the web UI is not built: run `make web` (make test does it)")
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "MCP_INSPECTOR_WEB_BUILD": "never"}
    _uv_run("build", "--out-dir", out, ROOT, env=env, cwd=out)
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the wheel and its dependencies only: its bin directory."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    _run([_uv(), "venv", "--quiet", "--python", sys.executable, venv])
    _uv_run("pip", "install", "--quiet", "--python", venv / "bin" / "python", wheel)
    return venv / "bin"


@pytest.fixture
def user_env(installed: Path, tmp_path: Path) -> dict[str, str]:
    """A user's environment: the virtualenv's bin alone on PATH (no node, no npm), a home of its
    own, the run's runtime directory and no config file (tests/conftest.py)."""
    home = tmp_path / "home"
    home.mkdir()
    keep = {k: os.environ[k] for k in ("MCP_INSPECTOR_RUNTIME", "MCP_INSPECTOR_CONFIG") if k in os.environ}
    return {"PATH": str(installed), "HOME": str(home), "LANG": "C.UTF-8", **keep}


def test_the_wheel_holds_the_package_and_the_built_ui(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        index = archive.read("inspector/api/static/index.html").decode()
    assert {n.split("/", 1)[0] for n in names} == {"inspector", wheel.name.split("-py3")[0] + ".dist-info"}
    assets = ASSET.findall(index)
    assert assets, index
    assert {f"inspector/api/static{a}" for a in assets} <= names
    for data in (
        "scenario/default.yaml",
        "store/migrations/script.py.mako",
        "store/migrations/env.py",
        "demo/server.py",
    ):
        assert f"inspector/{data}" in names
    assert any(n.startswith("inspector/store/migrations/versions/0001_") for n in names)


class _Lines:
    """A process's output lines, read on a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.seen.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: str) -> re.Match[str]:
        while True:
            try:
                line = self.lines.get(timeout=DEADLINE)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}: {''.join(self.seen)}") from None
            found = re.search(pattern, line)
            if found:
                return found


@pytest.fixture
def ui(installed: Path, user_env: dict[str, str], tmp_path: Path) -> Iterator[tuple[_Lines, Path]]:
    db = tmp_path / "demo.db"
    demo = _run([installed / "mcp-inspect", "demo", "--no-ui", "--db", db], env=user_env, cwd=tmp_path)
    assert re.search(r"session 1 ended: .*, [1-9]\d* messages recorded", demo.stdout + demo.stderr), demo
    proc = subprocess.Popen(
        [installed / "mcp-inspect", "ui", "--db", db, "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=user_env,
        cwd=tmp_path,
    )
    try:
        yield _Lines(proc), db
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        finally:
            proc.kill()


def test_the_installed_wheel_records_the_demo_and_serves_the_page(
    installed: Path, user_env: dict[str, str], ui: tuple[_Lines, Path]
) -> None:
    where = _run(
        [installed / "python", "-c", "import inspector; print(inspector.__file__)"],
        env=user_env,
        cwd=installed,
    )
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), where.stdout  # not the checkout
    lines, _ = ui
    base, token = lines.wait_for(r"mcp-inspector UI: (http://127\.0\.0\.1:\d+)/#token=([\w-]+)").groups()
    with httpx.Client(base_url=base, timeout=60) as http:
        page = http.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"], page.text
        assets = ASSET.findall(page.text)
        assert assets, page.text
        for path in assets:
            assert http.get(path).status_code == 200, path
        sessions = http.get("/api/sessions", headers={"authorization": f"Bearer {token}"}).json()
        assert [s["name"] for s in sessions["items"]] == ["demo (legacy)"], sessions
    lines.proc.send_signal(signal.SIGINT)
    assert lines.proc.wait(60) == 0, "".join(lines.seen)
