"""mitmproxy for the HTTP bench, in a virtualenv of its own (bench/.venv-mitm, git-ignored).

mitmproxy pins an h11 that conflicts with httpx's, so it cannot live in the
project's venv. The bench creates this venv on first use (`python3 -m venv`,
then `pip install mitmproxy==MITMPROXY_VERSION`, about a minute) and reuses it
afterwards. If that fails (no network, no wheel for this Python), the bench
says so and skips the mitmdump column.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench.peer import BENCH_DIR

# The newest release that installs on Python 3.11 (mitmproxy 11.1 needs Python >= 3.12).
MITMPROXY_VERSION = "11.0.2"
MITM_VENV = BENCH_DIR / ".venv-mitm"
MITMDUMP = MITM_VENV / "bin" / "mitmdump"
_STAMP = MITM_VENV / ".installed"
_failed: list[str] = []  # a failed install is not retried within one run


def _base_python() -> str:
    """A Python outside any venv for `-m venv` (python3 on PATH, else the interpreter behind ours)."""
    found = shutil.which("python3")
    if found and not found.startswith(str(Path(sys.prefix))):
        return found
    return getattr(sys, "_base_executable", None) or sys.executable


def ensure_mitmdump(progress: Callable[[str], None]) -> tuple[Path | None, str]:
    """The mitmdump executable (installing it on first use), or None and why it is missing."""
    if MITMDUMP.exists() and _STAMP.exists() and _STAMP.read_text().strip() == MITMPROXY_VERSION:
        return MITMDUMP, f"mitmproxy {MITMPROXY_VERSION} from {MITM_VENV}"
    if _failed:
        return None, _failed[0]
    log = BENCH_DIR / "results" / "mitm-install.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    python = _base_python()
    progress(
        f"creating {MITM_VENV} with {python} and installing mitmproxy=={MITMPROXY_VERSION} "
        f"(first use only, about a minute; log: {log}) ..."
    )
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    try:
        with open(log, "wb") as out:
            if not (MITM_VENV / "bin" / "python").exists():
                subprocess.run(
                    [python, "-m", "venv", str(MITM_VENV)], stdout=out, stderr=out, check=True, env=env
                )
            (MITM_VENV / ".gitignore").write_text("*\n")  # ignored by git even without a .gitignore entry
            pip = [str(MITM_VENV / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
            subprocess.run(
                [*pip, "install", "--quiet", f"mitmproxy=={MITMPROXY_VERSION}"],
                stdout=out,
                stderr=out,
                check=True,
                env=env,
                timeout=600,
            )
            subprocess.run(
                [str(MITMDUMP), "--version"], stdout=out, stderr=out, check=True, env=env, timeout=60
            )
    except (OSError, subprocess.SubprocessError) as exc:
        tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
        _failed.append(f"could not install mitmproxy=={MITMPROXY_VERSION} into {MITM_VENV}: {exc}\n{tail}")
        progress(f"mitmdump column skipped: {_failed[0]}")
        return None, _failed[0]
    _STAMP.write_text(MITMPROXY_VERSION + "\n")
    progress(f"mitmproxy {MITMPROXY_VERSION} installed into {MITM_VENV}")
    return MITMDUMP, f"mitmproxy {MITMPROXY_VERSION} from {MITM_VENV} (installed by this run)"


if __name__ == "__main__":  # `make mitmproxy`: install it ahead of the tests that use it
    found, why = ensure_mitmdump(print)
    print(why)
    sys.exit(0 if found else 1)
