"""`mcp-inspect install` / `uninstall` on real sample files of every host format (tests/data/hosts:
comments, trailing commas, other keys, several entries, project entries, TOML): only the entries'
command/args/URL change, a second install changes nothing, uninstall gives every byte back (or,
after a user's edit, reverts only install's keys), a malformed file is named FILE:LINE:COL and no
file is changed. And the JSONC splice editor on its own. In-process (tests/cli_in_process.py)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from inspector.hosts import jsonc
from inspector.hosts.edit import parse_doc
from tests.cli_in_process import Ran, run
from tests.host_files import install_env, lay_hosts, syntax

OURS = {"command", "args", "url", "serverUrl", "httpUrl"}


def _install(tmp: Path, *args: str) -> Ran:
    home, project = tmp / "home", tmp / "project"
    return run(*args, "--home", str(home), "--project", str(project), env=install_env(tmp), cwd=project)


def _doc(path: Path, sample: str) -> Any:
    return parse_doc(path.read_text(), syntax(sample), path)


def _servers(doc: Any) -> dict[str, dict[str, Any]]:
    """Every entry of a host document by name (all the places a host keeps them)."""
    out: dict[str, dict[str, Any]] = {}
    for key in ("mcpServers", "servers", "mcp_servers"):
        out.update(doc.get(key) or {})
    out.update((doc.get("mcp") or {}).get("servers") or {})
    for project in (doc.get("projects") or {}).values():
        out.update(project.get("mcpServers") or {})
    return out


def _without_ours(value: Any) -> Any:
    """The document with the keys install may change taken out of every entry."""
    if isinstance(value, dict):
        return {k: _without_ours(v) for k, v in value.items() if k not in OURS}
    return value


def test_install_wraps_every_entry_keeps_the_rest_and_uninstall_gives_the_bytes_back(tmp_path: Path) -> None:
    files = lay_hosts(tmp_path / "home", tmp_path / "project")
    files["claude.json"].chmod(0o640)  # a file's mode is its own: the new bytes keep it
    before = {p: p.read_bytes() for p in files.values()}
    db = tmp_path / "rec.db"
    out = _install(tmp_path, "install", "--all", "--db", str(db), "--gateway-listen", "127.0.0.1:6391")
    assert out.returncode == 0, out.stderr
    gateway = tomllib.loads((tmp_path / "config" / "gateway.toml").read_text())
    targets = {r["target"]: r for r in gateway["route"]}
    assert gateway["listen"] == "127.0.0.1:6391" and len(targets) == len(gateway["route"])
    for sample, path in files.items():
        old, new = parse_doc(before[path].decode(), syntax(sample), path), _doc(path, sample)
        assert _without_ours(new) == _without_ours(old), sample  # env, headers, cwd, other keys: kept
        for name, entry in _servers(old).items():
            now = _servers(new)[name]
            if "command" in entry:
                assert Path(now["command"]).is_absolute(), (sample, name)
                args = now["args"]
                cut = args.index("--")
                assert args[cut + 1 :] == [entry["command"], *entry.get("args", [])], (sample, name)
                head = args[:cut]
                assert "wrap" in head and head[head.index("--name") + 1] == name
                assert head[head.index("--host-file") + 1] == str(path)
                assert head[head.index("--db") + 1] == str(db)
            else:
                (key,) = OURS & set(entry)
                assert now[key].startswith("http://127.0.0.1:6391/"), (sample, name)
                assert entry[key] in targets, (sample, name)
    # Comments and formatting of the files that have them are still there.
    assert "/* from PyPI */" in files["vscode_mcp.json"].read_text()
    assert "// no trailing comma here" in files["vscode_mcp.json"].read_text()
    assert "# the docs server" in files["codex_config.toml"].read_text()
    assert '"globalShortcut": "Ctrl+Space",\n' in files["claude_desktop_config.json"].read_text()

    assert files["claude.json"].stat().st_mode & 0o777 == 0o640
    backups = tmp_path / "state" / "mcp-inspector" / "installed"
    assert {f.stat().st_mode & 0o777 for f in backups.iterdir()} == {0o600}
    assert backups.stat().st_mode & 0o777 == 0o700
    installed = {p: p.read_bytes() for p in files.values()}
    again = _install(tmp_path, "install", "--all", "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("nothing to change") == len(files), again.stdout
    assert {p: p.read_bytes() for p in files.values()} == installed  # idempotent

    back = _install(tmp_path, "uninstall", "--all")
    assert back.returncode == 0, back.stderr
    assert {p: p.read_bytes() for p in files.values()} == before  # byte for byte
    assert files["claude.json"].stat().st_mode & 0o777 == 0o640
    assert not (tmp_path / "config" / "gateway.toml").exists()  # its routes were all install's
    assert list((tmp_path / "state" / "mcp-inspector" / "installed").iterdir()) == []


def test_uninstall_after_a_users_edit_reverts_only_installs_keys(tmp_path: Path) -> None:
    files = lay_hosts(
        tmp_path / "home", tmp_path / "project", ["claude_desktop_config.json", "codex_config.toml"]
    )
    desktop, codex = files["claude_desktop_config.json"], files["codex_config.toml"]
    original = {p: p.read_text() for p in files.values()}
    assert _install(tmp_path, "install", "claude-desktop", "codex").returncode == 0
    # The user edits other keys, and takes one entry back by hand.
    desktop.write_text(desktop.read_text().replace('"theme": "dark"', '"theme": "light"'))
    doc = json.loads(desktop.read_text())
    by_hand = doc["mcpServers"]["bare"]
    was = f'"bare": {{"command": {json.dumps(by_hand["command"])}'
    assert was in desktop.read_text()
    desktop.write_text(desktop.read_text().replace(was, '"bare": {"command": "/opt/my-server"'))
    codex.write_text(codex.read_text().replace('model = "o3"', 'model = "o4"'))

    out = _install(tmp_path, "uninstall", "--all")
    assert out.returncode == 0, out.stderr
    assert "bare.command: changed since install, left as it is" in out.stdout
    assert codex.read_text() == original[codex].replace('model = "o3"', 'model = "o4"')
    now = json.loads(desktop.read_text())
    want = json.loads(original[desktop].replace('"theme": "dark"', '"theme": "light"'))
    assert now["mcpServers"]["bare"]["command"] == "/opt/my-server"  # the user's value stays
    del now["mcpServers"]["bare"], want["mcpServers"]["bare"]
    assert now == want
    # The other entries' text is exactly as it was before install.
    assert original[desktop].split('"bare"')[0].replace('"theme": "dark"', "") in desktop.read_text()


@pytest.mark.parametrize(
    ("sample", "broken", "where", "kind"),
    [
        (
            "claude_desktop_config.json",
            '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n',
            ":3:",
            "JSON",
        ),
        (
            "vscode_mcp.json",
            '{\n  // ok\n  "servers": {\n    "a": {"command": "x"\n  }\n',
            ":6:",
            "JSON (with comments)",
        ),
        ("claude_desktop_config.json", '{"mcpServers": {} // no comments in JSON\n}', ":1:19", "JSON"),
        ("codex_config.toml", 'model = "o3"\n[mcp_servers.a]\ncommand = \n', ":3:", "TOML"),
    ],
)
def test_a_malformed_file_is_named_and_no_file_is_changed(
    tmp_path: Path, sample: str, broken: str, where: str, kind: str
) -> None:
    files = lay_hosts(tmp_path / "home", tmp_path / "project")
    files[sample].write_text(broken)
    before = {p: p.read_bytes() for p in files.values()}
    out = _install(tmp_path, "install", "--all")
    assert out.returncode != 0
    assert f"{files[sample]}{where}" in out.stderr and f"not valid {kind}" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert {p: p.read_bytes() for p in files.values()} == before  # the good files are not half-done
    assert not (tmp_path / "state").exists() and not (tmp_path / "config" / "gateway.toml").exists()


def test_dry_run_prints_a_terminal_safe_diff_and_changes_nothing(tmp_path: Path) -> None:
    files = lay_hosts(tmp_path / "home", tmp_path / "project", ["mcp.json"])
    path = files["mcp.json"]
    path.write_text('{"mcpServers": {"evil\\u001b]52;c;aGk=\\u0007": {"command": "s\\u001b[2J"}}}')
    before = path.read_bytes()
    out = _install(tmp_path, "install", "claude-code", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "\\x1b]52;c;aGk=\\x07" in out.stdout and "+++ " in out.stdout and "would wrap" in out.stdout
    assert path.read_bytes() == before and not (tmp_path / "state").exists()


def test_unknown_host_and_no_selection_are_one_line_errors(tmp_path: Path) -> None:
    lay_hosts(tmp_path / "home", tmp_path / "project", ["mcp.json"])
    for args in (["install", "zed"], ["install"], ["uninstall", "nope"]):
        out = _install(tmp_path, *args)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, (args, out.stderr)
        assert "claude-desktop" in out.stderr


# -- the JSONC editor on its own --------------------------------------------------------------------


def test_jsonc_errors_name_line_and_column() -> None:
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.parse('{\n  "a": 1,\n  "b" 2\n}', jsonc=True)
    assert (caught.value.line, caught.value.col) == (3, 7)
    with pytest.raises(jsonc.JsoncError) as caught:
        jsonc.parse('{"a": [1, 2,]}', jsonc=False)
    assert "trailing" in caught.value.reason
    assert jsonc.parse('{"a": [1, 2,], /* c */ "b": "x//y"}', jsonc=True).plain() == {
        "a": [1, 2],
        "b": "x//y",
    }


@pytest.mark.parametrize(
    "text",
    [
        '{"s": {"command": "x"}}',
        '{\n  "s": {\n    "command": "x"\n  }\n}\n',
        '{\r\n\t"s": {\r\n\t\t"command": "x", // c\r\n\t\t"env": {}\r\n\t},\r\n}\r\n',
        '{"s": {"command": "x",}}',
    ],
)
def test_insert_then_remove_a_member_is_a_byte_exact_round_trip(text: str) -> None:
    obj = jsonc.find(jsonc.parse(text), ["s"])
    assert obj is not None
    added = jsonc.insert_member(text, obj, "args", ["a", "b"], after="command")
    assert jsonc.parse(added).plain()["s"]["args"] == ["a", "b"]
    again = jsonc.find(jsonc.parse(added), ["s"])
    assert again is not None
    assert jsonc.remove_member(added, again, "args") == text


def test_odd_http_entries_are_left_alone_or_routed_under_a_plain_name(tmp_path: Path) -> None:
    files = lay_hosts(tmp_path / "home", tmp_path / "project", ["mcp.json"])
    path = files["mcp.json"]
    path.write_text(json.dumps({"mcpServers": {
        "ftp": {"url": "ftp://example.com/x"},
        " odd\u001bname ": {"url": "https://example.com/mcp"},
    }}))  # fmt: skip
    out = _install(tmp_path, "install", "claude-code", "--gateway-listen", "127.0.0.1:6392")
    assert out.returncode == 0, out.stderr
    assert "ftp: url is not an http(s) URL, left alone" in out.stdout and "\x1b" not in out.stdout
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers["ftp"] == {"url": "ftp://example.com/x"}
    (route,) = tomllib.loads((tmp_path / "config" / "gateway.toml").read_text())["route"]
    assert route["name"] == route["prefix"][1:] == "odd-name"
    assert servers[" odd\u001bname "]["url"] == "http://127.0.0.1:6392/odd-name/mcp"


def test_the_gateway_unit_runs_the_proxy_on_the_installed_config(tmp_path: Path) -> None:
    env = {**install_env(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    printed = run("gateway", "start", "--unit", "--db", str(tmp_path / "rec.db"), env=env)
    assert printed.returncode == 0, printed.stderr
    (exec_start,) = [line for line in printed.stdout.splitlines() if line.startswith("ExecStart=")]
    assert f"proxy --config {tmp_path / 'config' / 'gateway.toml'} --db {tmp_path / 'rec.db'}" in exec_start
    written = run("gateway", "start", "--write-unit", env=env)
    assert written.returncode == 0, written.stderr
    unit = tmp_path / "xdg" / "systemd" / "user" / "mcp-inspector-gateway.service"
    assert "WantedBy=default.target" in unit.read_text() and "systemctl --user enable --now" in written.stdout
    # Without a config, start says what to do in one line.
    started = run("gateway", "start", env=env)
    assert started.returncode == 2 and "mcp-inspect install" in started.stderr


def test_vscode_settings_with_a_dotted_mcp_servers_key(tmp_path: Path) -> None:
    files = lay_hosts(tmp_path / "home", tmp_path / "project", ["vscode_settings.json"])
    path = files["vscode_settings.json"]
    text = '{\n  "mcp.servers": {\n    "t": {"command": "uvx", "args": ["x"]}, // mine\n  },\n  "z": 1\n}\n'
    path.write_text(text)
    assert _install(tmp_path, "install", "vscode").returncode == 0
    entry = jsonc.loads_jsonc(path.read_text())["mcp.servers"]["t"]
    assert entry["args"][-3:] == ["--", "uvx", "x"] and "// mine" in path.read_text()
    assert _install(tmp_path, "uninstall", "vscode").returncode == 0
    assert path.read_text() == text
