"""The one always-on recording gateway behind the hosts' HTTP entries: its config (the
`proxy --config` TOML, `gateway.toml` beside the user's config file, 0600), which `install` keeps
a route per entry in; and its process (`mcp-inspect gateway start|stop|status`): a background
`proxy --config` with its pid file in the runtime directory (`runtime_dir.py`) and its log in the
state directory; or a systemd user unit / launchd agent that runs the same command.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from inspector.errors import InspectorError

__all__ = ["DEFAULT_LISTEN", "Routes", "config_file", "start", "status", "stop", "unit_text"]

DEFAULT_LISTEN = "127.0.0.1:6280"  # `mcp-inspect proxy`'s default port: doctor's "a local proxy"
_PID_FILE = "gateway.json"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def config_file() -> Path:
    """`gateway.toml` in the folder of the user's config file (`settings_sources.config_path`)."""
    from inspector.settings_sources import config_path

    return config_path().parent / "gateway.toml"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._~-]+", "-", name).strip("-.") or "server"


class Routes:
    """The gateway config as a tomlkit document: the routes there are, and the ones to add."""

    def __init__(self, path: Path, listen: str | None = None) -> None:
        import tomlkit

        self.path = path
        self.before = path.read_bytes() if path.is_file() else b""
        text = self.before.decode("utf-8", "replace")
        try:
            self.doc = tomlkit.parse(text)
        except Exception as exc:  # tomlkit's ParseError names the line and column
            raise InspectorError(f"{path}: not valid TOML: {exc}") from None
        if "listen" not in self.doc:
            self.doc["listen"] = listen or DEFAULT_LISTEN
        elif listen and listen != self.doc["listen"]:
            raise InspectorError(f"{path} listens on {self.doc['listen']}, not {listen}: leave out "
                                 "--gateway-listen or change the file")  # fmt: skip
        from inspector.transports.serve import parse_listen

        self.host, self.port = parse_listen(str(self.doc["listen"]))
        if "route" not in self.doc:
            self.doc["route"] = tomlkit.aot()

    @property
    def routes(self) -> list[Any]:
        return list(self.doc["route"])

    def is_gateway_url(self, url: str) -> bool:
        try:
            parts = urlsplit(url)
            return (parts.hostname or "") in _LOOPBACK and parts.port == self.port
        except ValueError:
            return False

    def route_for(self, name: str, target: str) -> dict[str, str]:
        """The route for `target` (an existing one with the same name and target, else a new one)."""
        import tomlkit

        for route in self.routes:
            if route.get("target") == target and route.get("name") == name:
                return {"name": str(route["name"]), "prefix": str(route["prefix"]), "target": target}
        names = {str(r.get("name")) for r in self.routes}
        prefixes = {str(r.get("prefix")) for r in self.routes}
        base, k = _slug(name), 1
        # The route's name is the sessions' name: the entry's, unless the gateway config could not hold it.
        plain = (
            name == name.strip()
            and 0 < len(name) <= 90
            and not any(ord(c) < 32 or ord(c) == 127 for c in name)
        )
        name = name if plain else base[:90]
        route_name, prefix = name, f"/{base}"
        while route_name in names or prefix in prefixes or prefix == "/.well-known":
            k += 1
            route_name, prefix = f"{name}-{k}", f"/{base}-{k}"
        table = tomlkit.table()
        table.update({"name": route_name, "prefix": prefix, "target": target})
        self.doc["route"].append(table)
        return {"name": route_name, "prefix": prefix, "target": target}

    def client_url(self, route: dict[str, str], target: str) -> str:
        parts = urlsplit(target)
        query = f"?{parts.query}" if parts.query else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{route['prefix']}{parts.path or '/'}{query}"

    def remove(self, names: set[str]) -> None:
        import tomlkit

        kept = tomlkit.aot()
        for route in self.routes:
            if str(route.get("name")) not in names:
                kept.append(route)
        self.doc["route"] = kept

    def text(self) -> bytes:
        import tomlkit

        return tomlkit.dumps(self.doc).encode("utf-8") if self.routes else b""

    def diff(self) -> str:
        import difflib

        old = self.before.decode("utf-8", "replace").splitlines(keepends=True)
        new = self.text().decode("utf-8").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"{self.path} (now)", f"{self.path} (after)"))

    def save(self) -> None:
        """Write the config 0600 (removed when no route is left)."""
        from inspector.private_files import atomic_write, make_private_dirs

        data = self.text()
        if not data:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            return
        import tomllib

        from pydantic import ValidationError

        from inspector.gateway_config import GatewayConfig, _first_error

        doc = tomllib.loads(data.decode("utf-8"))
        try:
            GatewayConfig.model_validate(doc)  # what the gateway will read
        except ValidationError as exc:
            raise InspectorError(f"{self.path}: {_first_error(exc, doc)}") from None
        make_private_dirs(self.path.parent)
        atomic_write(self.path, data, mode=0o600)


# -- the process ------------------------------------------------------------------------------------


def _log_file() -> Path:
    from inspector.hosts.changes import state_dir

    return state_dir().parent / "gateway.log"


def _command(db: str | None) -> list[str]:
    from inspector.hosts.command import inspector_argv

    return [*inspector_argv(), "proxy", "--config", str(config_file()), *(["--db", db] if db else [])]


def _running() -> dict[str, Any] | None:
    from inspector.runtime_dir import live_files

    found = live_files("gateway", lambda d: isinstance(d.get("pid"), int) and d["pid"] > 0)
    if not found:
        return None
    # A pid is reused once its process is gone: where the system shows command lines, the process
    # must still be a gateway on this config (else a stop would signal a stranger).
    try:
        argv = Path(f"/proc/{found[0]['pid']}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return found[0]
    return found[0] if str(found[0].get("config")).encode() in argv and b"proxy" in argv else None


def _answers(listen: str) -> bool:
    from inspector.transports.serve import parse_listen

    host, port = parse_listen(listen)
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def status() -> dict[str, Any]:
    """{"up": bool, "pid", "listen", "config", "log"}: up when its process runs and its port answers."""
    found = _running()
    listen = None
    with contextlib.suppress(Exception):
        listen = Routes(config_file()).doc["listen"] if config_file().is_file() else None
    up = bool(found) and listen is not None and _answers(str(listen))
    return {"up": up, "pid": found["pid"] if found else None, "listen": listen, "db": found.get("db") if found else None,
            "config": str(config_file()), "log": str(_log_file())}  # fmt: skip


def start(db: str | None, wait_s: float = 30.0) -> dict[str, Any]:
    """Start the gateway in the background (nothing when it runs); its status once it listens."""
    from inspector.private_files import make_private_dirs
    from inspector.runtime_dir import write_json

    path = config_file()
    if not path.is_file():
        raise InspectorError(f"no gateway config at {path}: `mcp-inspect install` writes one for the "
                             "hosts' HTTP servers")  # fmt: skip
    from inspector.gateway_config import load_gateway_config

    load_gateway_config(path)  # a bad file: its one-line error here, not in the log
    now = status()
    if now["up"]:
        return now
    log = _log_file()
    make_private_dirs(log.parent)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    offset = os.fstat(fd).st_size
    with os.fdopen(fd, "ab") as out:
        process = subprocess.Popen(
            _command(db), stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True
        )
    write_json(_PID_FILE, {"pid": process.pid, "config": str(path), "db": db})
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        text = log.read_bytes()[offset:].decode("utf-8", "replace")
        if "gateway on " in text:
            return status()
        if process.poll() is not None:
            from inspector.runtime_dir import remove_file

            remove_file(_PID_FILE)
            last = [line for line in text.splitlines() if line.strip()][-1:] or ["(no output)"]
            raise InspectorError(f"the gateway exited ({process.returncode}): {last[0]} (log: {log})")
        time.sleep(0.05)
    raise InspectorError(f"the gateway did not start listening in {wait_s:.0f} s (log: {log})")


def stop(wait_s: float = 10.0) -> bool:
    """Stop the background gateway; False when none ran."""
    from inspector.runtime_dir import remove_file

    found = _running()
    if found is None:
        remove_file(_PID_FILE)
        return False
    pid = int(found["pid"])
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                break
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    remove_file(_PID_FILE)
    return True


def unit_text(db: str | None) -> tuple[Path, str]:
    """(where it goes, the text) of a systemd user unit (a launchd agent on macOS) running the gateway."""
    import shlex

    argv = _command(db)
    if sys.platform == "darwin":
        from xml.sax.saxutils import escape

        args = "\n".join(f"    <string>{escape(a)}</string>" for a in argv)
        text = f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>dev.mcp-inspector.gateway</string>
  <key>ProgramArguments</key>
  <array>
{args}
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <true/>
  <key>StandardErrorPath</key>
  <string>{escape(str(_log_file()))}</string>
</dict>
</plist>
"""
        return Path.home() / "Library" / "LaunchAgents" / "dev.mcp-inspector.gateway.plist", text
    command = " ".join(shlex.quote(a).replace("%", "%%") for a in argv)
    text = f"""[Unit]
Description=mcp-inspector recording gateway (the hosts' HTTP MCP servers)

[Service]
ExecStart={command}
Restart=on-failure

[Install]
WantedBy=default.target
"""
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home) / "systemd" / "user" / "mcp-inspector-gateway.service", text
