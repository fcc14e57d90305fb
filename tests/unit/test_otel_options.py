"""`--otlp` / `--otlp-content` and the OTEL_* variables: parsed on wrap's fast path, checked, refused clearly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.errors import InspectorError
from inspector.otel.options import check_endpoint, otlp_wanted
from inspector.wrap import parse_wrap_args


def test_wrap_fast_path_reads_the_otlp_options() -> None:
    opts = parse_wrap_args(["--otlp", "http://127.0.0.1:4318/", "--otlp-content", "--", "server", "-x"])
    assert opts is not None and opts.command == ["server", "-x"]
    assert (opts.otlp, opts.otlp_content) == ("http://127.0.0.1:4318/", True)
    opts = parse_wrap_args(["--otlp=http://127.0.0.1:4318", "server"])
    assert opts is not None and (opts.otlp, opts.otlp_content) == ("http://127.0.0.1:4318", False)


@pytest.mark.parametrize("url", ["localhost:4318", "ftp://127.0.0.1/", "http://", "4318"])
def test_a_bad_url_is_refused_with_an_example(url: str) -> None:
    with pytest.raises(InspectorError, match=r"OTLP/HTTP base URL, e.g. http://localhost:4318"):
        check_endpoint(url)
    assert check_endpoint("https://127.0.0.1:4318/") == "https://127.0.0.1:4318"


def test_the_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    assert not otlp_wanted(None)
    assert otlp_wanted("http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces")
    assert otlp_wanted(None)
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert not otlp_wanted(None) and otlp_wanted("http://127.0.0.1:4318")


def test_wrap_with_a_bad_url_says_so_and_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "wrap", "--db", str(tmp_path / "r.db"), "--otlp", "localhost:4318",
         "--", sys.executable, "-c", "import sys; sys.stdin.read()"],
        input=b"", capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert b"--otlp needs the collector's OTLP/HTTP base URL" in done.stderr
