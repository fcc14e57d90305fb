"""The one table of MCP hosts and where they keep their servers: `doctor` reads these files,
`install`/`uninstall` edit them.

Per platform (`home` is the user's home folder, `project` the project folder):

| host (key)                    | user file(s)                                                    | project file(s)         |
|-------------------------------|-----------------------------------------------------------------|-------------------------|
| Claude Desktop (claude-desktop) | Linux `~/.config/Claude/claude_desktop_config.json`, macOS `~/Library/Application Support/Claude/...`, Windows `%APPDATA%\\Claude\\...` | -  |
| Claude Code (claude-code)     | `~/.claude.json` (`mcpServers` and `projects.<dir>.mcpServers`) | `.mcp.json`             |
| Cursor (cursor)               | `~/.cursor/mcp.json`                                            | `.cursor/mcp.json`      |
| VS Code (vscode)              | `Code/User/mcp.json` (`servers`) and `Code/User/settings.json` (`mcp.servers`) in the config folder above | `.vscode/mcp.json` |
| Windsurf (windsurf)           | `~/.codeium/windsurf/mcp_config.json`                           | -                       |
| Gemini CLI (gemini)           | `~/.gemini/settings.json`                                       | `.gemini/settings.json` |
| Codex (codex)                 | `~/.codex/config.toml` (`[mcp_servers.NAME]`; `$CODEX_HOME`)    | -                       |

Pure: paths and parsed documents in, lists out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HOSTS", "URL_KEYS", "HostFileSpec", "host_files", "server_tables", "syntax_of"]

# key -> the name shown
HOSTS: dict[str, str] = {
    "claude-desktop": "Claude Desktop",
    "claude-code": "Claude Code",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "windsurf": "Windsurf",
    "gemini": "Gemini CLI",
    "codex": "Codex",
}
URL_KEYS = ("url", "serverUrl", "httpUrl")  # Windsurf: serverUrl; Gemini CLI: httpUrl (url is SSE)


@dataclass(frozen=True)
class HostFileSpec:
    key: str  # claude-desktop, ...
    path: Path
    fmt: str  # mcpServers, servers, vscode-settings, claude-code, codex
    scope: str  # user or project

    @property
    def host(self) -> str:
        return HOSTS[self.key]

    @property
    def syntax(self) -> str:
        return syntax_of(self.key, self.fmt)


def syntax_of(key: str, fmt: str) -> str:
    """json (strict), jsonc (comments and trailing commas: VS Code, Gemini CLI) or toml (Codex)."""
    if fmt == "codex":
        return "toml"
    return "jsonc" if key in ("vscode", "gemini") else "json"


def host_files(home: Path, project: Path, environ: dict[str, str] | None = None) -> list[HostFileSpec]:
    """Every place the hosts keep MCP servers, user files under `home`, project files under
    `project` (a file once, as the user's, when the project is the home folder)."""
    env = os.environ if environ is None else environ
    own = home == Path.home()  # the real home: %APPDATA%, $XDG_CONFIG_HOME and $CODEX_HOME apply
    appdata = Path(env["APPDATA"]) if env.get("APPDATA") and own else home / "AppData" / "Roaming"
    linux = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") and own else home / ".config"
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") and own else home / ".codex"
    mac = home / "Library" / "Application Support"
    files: list[HostFileSpec] = []
    for base in (linux, mac, appdata):
        files.append(
            HostFileSpec(
                "claude-desktop", base / "Claude" / "claude_desktop_config.json", "mcpServers", "user"
            )
        )
    files += [
        HostFileSpec("claude-code", home / ".claude.json", "claude-code", "user"),
        HostFileSpec("claude-code", project / ".mcp.json", "mcpServers", "project"),
        HostFileSpec("cursor", home / ".cursor" / "mcp.json", "mcpServers", "user"),
        HostFileSpec("cursor", project / ".cursor" / "mcp.json", "mcpServers", "project"),
        HostFileSpec("vscode", project / ".vscode" / "mcp.json", "servers", "project"),
    ]
    for base in (linux, mac, appdata):
        files.append(
            HostFileSpec("vscode", base / "Code" / "User" / "settings.json", "vscode-settings", "user")
        )
        files.append(HostFileSpec("vscode", base / "Code" / "User" / "mcp.json", "servers", "user"))
    files += [
        HostFileSpec("windsurf", home / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers", "user"),
        HostFileSpec("gemini", home / ".gemini" / "settings.json", "mcpServers", "user"),
        HostFileSpec("gemini", project / ".gemini" / "settings.json", "mcpServers", "project"),
        HostFileSpec("codex", codex / "config.toml", "codex", "user"),
    ]
    seen: set[Path] = set()
    unique = []
    for spec in files:
        if spec.path not in seen:
            seen.add(spec.path)
            unique.append(spec)
    return unique


def server_tables(doc: Any, fmt: str, scope: str) -> list[tuple[str, list[str], dict[str, Any]]]:
    """(scope, key path, servers object) of one host document; the path leads from the document's
    top to the servers object (e.g. ["projects", "/my/app", "mcpServers"])."""
    if not isinstance(doc, dict):
        return []
    found: list[tuple[str, list[str], Any]] = []
    if fmt in ("mcpServers", "claude-code"):
        found.append((scope, ["mcpServers"], doc.get("mcpServers")))
    if fmt == "servers":
        found.append((scope, ["servers"], doc.get("servers")))
    if fmt == "codex":
        found.append((scope, ["mcp_servers"], doc.get("mcp_servers")))
    if fmt == "vscode-settings":
        mcp = doc.get("mcp")
        if isinstance(mcp, dict):
            found.append((scope, ["mcp", "servers"], mcp.get("servers")))
        else:
            found.append((scope, ["mcp.servers"], doc.get("mcp.servers")))
    if fmt == "claude-code" and isinstance(doc.get("projects"), dict):
        for path, entry in doc["projects"].items():
            if isinstance(entry, dict):
                found.append((str(path), ["projects", str(path), "mcpServers"], entry.get("mcpServers")))
    return [(s, p, t) for s, p, t in found if isinstance(t, dict)]
