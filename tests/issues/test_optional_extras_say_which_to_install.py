"""PostgreSQL (psycopg) and OpenTelemetry are extras (`mcp-inspector[postgres]`, `[otel]`): without
them everything else works, and asking for them says in one line which extra to install.

"Not installed" is made real in a child process (the boundary of an import): a `sys.meta_path`
finder refuses the extra's top-level package, as Python does when it is absent, and the child runs
the console script's `main`. (FastAPI itself requires opentelemetry-api: the extra is the SDK and
its OTLP exporter.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

_NOT_INSTALLED = """
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""
_MAIN = """
sys.argv = ["mcp-inspect", *ARGS]
from inspector.entry import main
main()
"""

OTEL = {"opentelemetry.sdk", "opentelemetry.exporter"}


def run_without(blocked: set[str], *args: str, env: dict[str, str] | None = None, stdin: bytes = b""):
    code = f"BLOCKED = {sorted(blocked)!r}\nARGS = {list(args)!r}\n{_NOT_INSTALLED}{_MAIN}"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        timeout=90,
        check=False,
        env={**clean, **(env or {})},
    )


def error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    text = done.stderr.decode()
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize(
    "url", ["postgresql+psycopg://u:secret@127.0.0.1:1/rec", "postgresql://u:secret@127.0.0.1:1/rec"]
)
def test_postgresql_without_the_extra_names_it(url: str) -> None:
    done = run_without({"psycopg"}, "sessions", "--db", url)
    assert done.returncode == 2
    line = error_line(done)
    assert "PostgreSQL needs the postgres extra" in line
    assert "pip install 'mcp-inspector[postgres]'" in line and "secret" not in line


def recorded(db: Path) -> int:
    from inspector.capture.sessions import create_session
    from inspector.store import open_engine

    engine = open_engine(db)
    try:
        return create_session(engine, kind="stdio-wrap", target=["server"])
    finally:
        engine.dispose()


def test_export_to_otlp_without_the_extra_names_it(db_path: Path) -> None:
    session = recorded(db_path)
    done = run_without(OTEL, "export", str(session), "--db", str(db_path), "--otlp", "http://127.0.0.1:9")
    assert done.returncode == 2
    line = error_line(done)
    assert "OpenTelemetry export (--otlp) needs the otel extra" in line
    assert "pip install 'mcp-inspector[otel]'" in line


_SERVER = textwrap.dedent("""
    import sys
    for line in sys.stdin:
        sys.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'); sys.stdout.flush()
""")


def test_wrap_with_otlp_without_the_extra_names_it(db_path: Path) -> None:
    done = run_without(
        OTEL,
        "wrap", "--db", str(db_path), "--otlp", "http://127.0.0.1:9", "--", sys.executable, "-c", _SERVER,
    )  # fmt: skip
    assert done.returncode == 2
    assert "pip install 'mcp-inspector[otel]'" in error_line(done)


def test_the_standard_variables_without_the_extra_say_so_and_record(db_path: Path) -> None:
    """OTEL_EXPORTER_OTLP_ENDPOINT may be set for other programs: a wrap started by an MCP host
    says once that it does not export, and forwards and records as without the variable."""
    done = run_without(
        OTEL,
        "wrap", "--db", str(db_path), "--", sys.executable, "-c", _SERVER,
        env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
        stdin=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    text = done.stderr.decode()
    assert "Traceback" not in text
    assert "OpenTelemetry export (OTEL_EXPORTER_OTLP_ENDPOINT is set) needs the otel extra" in text
    assert "pip install 'mcp-inspector[otel]'" in text and "2 messages recorded" in text


def test_everything_else_works_without_either_extra(db_path: Path) -> None:
    """No module of the package imports psycopg or OpenTelemetry when it is loaded (the SDK
    wiring, otel/sdk.py, is loaded by the exporter's thread only), and a SQLite store works."""
    recorded(db_path)
    done = run_without({"psycopg", *OTEL}, "sessions", "--db", str(db_path))
    assert done.returncode == 0, done.stderr
    assert "stdio-wrap" in done.stdout.decode() or "server" in done.stdout.decode()
    walk = textwrap.dedent("""
        import importlib, pkgutil, inspector
        for m in pkgutil.walk_packages(inspector.__path__, "inspector."):
            if m.name not in ("inspector.otel.sdk", "inspector.__main__") and ".migrations" not in m.name:
                importlib.import_module(m.name)
        print("imported")
    """)
    code = f"BLOCKED = {sorted({'psycopg', *OTEL})!r}\n{_NOT_INSTALLED}{walk}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=90, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout.decode().strip().endswith("imported")


def test_the_package_declares_the_extras_and_no_unused_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(d) for d in project["dependencies"]}
    assert not names & {"sniffio", "websockets", "psycopg", "opentelemetry-sdk"}
    assert "uvicorn" in names  # [standard]: websockets for the UI's live feed comes with it
    extras = {k: {_name(d) for d in v} for k, v in project["optional-dependencies"].items()}
    assert extras["postgres"] == {"psycopg"}
    assert extras["otel"] == {"opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"}
    assert "--all-extras" in (ROOT / "Makefile").read_text()  # make test installs every extra


def _name(requirement: str) -> str:
    import re

    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()
