"""Test helper: the sample host config files of tests/data/hosts laid out where each host keeps
them (Linux paths) under a temporary home and project, and the environment that keeps
`mcp-inspect install` away from the real home (its config dir, state dir and runtime dir)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["SAMPLES", "install_env", "lay_hosts"]

SAMPLES = Path(__file__).parent / "data" / "hosts"

# sample file -> (where under home ("~") or the project ("."), host key, syntax)
_PLACES = {
    "claude_desktop_config.json": ("~/.config/Claude/claude_desktop_config.json", "claude-desktop", "json"),
    "claude.json": ("~/.claude.json", "claude-code", "json"),
    "mcp.json": ("./.mcp.json", "claude-code", "json"),
    "vscode_mcp.json": ("./.vscode/mcp.json", "vscode", "jsonc"),
    "vscode_settings.json": ("~/.config/Code/User/settings.json", "vscode", "jsonc"),
    "codex_config.toml": ("~/.codex/config.toml", "codex", "toml"),
    "gemini_settings.json": ("~/.gemini/settings.json", "gemini", "jsonc"),
    "windsurf_mcp_config.json": ("~/.codeium/windsurf/mcp_config.json", "windsurf", "json"),
}


def lay_hosts(home: Path, project: Path, only: list[str] | None = None) -> dict[str, Path]:
    """Copy the samples (`only`: these sample names) into place; sample name -> its path."""
    out = {}
    for sample, (where, _key, _syntax) in _PLACES.items():
        if only is not None and sample not in only:
            continue
        base = home if where.startswith("~") else project
        path = base / where[2:]
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, path)
        out[sample] = path
    project.mkdir(parents=True, exist_ok=True)
    return out


def syntax(sample: str) -> str:
    return _PLACES[sample][2]


def install_env(tmp: Path) -> dict[str, str | None]:
    """No MCP_INSPECTOR_* of the developer's (but the run's runtime directory), the config file
    (and so gateway.toml) and the state directory under `tmp`."""
    env: dict[str, str | None] = {
        k: None for k in os.environ if k.startswith("MCP_INSPECTOR_") and k != "MCP_INSPECTOR_RUNTIME"
    }
    env.update(
        MCP_INSPECTOR_CONFIG=str(tmp / "config" / "config.toml"),
        XDG_STATE_HOME=str(tmp / "state"),
        XDG_CONFIG_HOME=None,
        CODEX_HOME=None,
        APPDATA=None,
    )
    return env
