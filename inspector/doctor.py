"""`mcp-inspect doctor`: is this machine set up to record always? Read-only checks, sans-IO where it
counts (`check_servers` takes parsed documents), with what to change printed rather than done.

- Hosts: the common MCP hosts' config files (Claude Desktop, Claude Code, Cursor, VS Code,
  Windsurf, Gemini CLI, Codex: the table is `inspector/hosts/table.py`; user-level under `home`,
  project-level under `project`) and each server
  in them: wrapped (its command runs `mcp-inspect ... wrap` or `python -m inspector wrap`; its URL
  is a local mcp-inspect proxy's) or not, and for one that is not, the entry to put instead.
  A host file that is not valid JSON is reported, never fatal. Host files are never written
  (`mcp-inspect install` writes them). A wrapped server is "recording" when a session under its
  name started in the last week.
- The recording gateway `install` configured for HTTP servers: up or not.
- The database the settings name (with where that came from): reachable, integrity (SQLite
  `PRAGMA quick_check` on a read-only connection: doctor never upgrades or re-permissions it;
  PostgreSQL: a connect), schema revision, size, free space, permissions (0600 file, 0700 folder),
  the retention policy in force.
- The config file: found, valid.

Each finding is ok, note (nothing to do) or action (exit status 1).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from inspector.hosts.command import inspector_argv as _inspector_argv
from inspector.hosts.command import is_wrapped_command
from inspector.hosts.jsonc import loads_jsonc
from inspector.hosts.table import URL_KEYS as _URL_KEYS
from inspector.hosts.table import host_files, server_tables

__all__ = [
    "Finding",
    "HostFile",
    "Report",
    "ServerCheck",
    "check_database",
    "check_hosts",
    "check_servers",
    "host_files",
    "is_wrapped_command",
    "loads_jsonc",
    "run_doctor",
]

PROXY_PORT = 6280  # `mcp-inspect proxy`'s default listen port
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


@dataclass
class Finding:
    area: str  # config, database, host
    status: str  # ok, note, action
    text: str
    hint: str | None = None


@dataclass
class ServerCheck:
    name: str
    scope: str  # "user", "project", or the project path of a Claude Code per-project entry
    transport: str  # stdio or http
    wrapped: bool
    detail: str  # the command line or URL
    fix: dict[str, Any] | None = None  # the keys of the entry to change (env, headers, ... stay)
    proxy_command: str | None = None  # for an HTTP server: run this first
    masked: bool = False  # secrets of the entry are shown as [secret:NAME] in detail, fix and command
    recording: bool | None = None  # a session under its name in the last week (None: not known)


@dataclass
class HostFile:
    host: str
    path: str
    status: str  # found, missing, broken
    error: str | None = None
    servers: list[ServerCheck] = field(default_factory=list)


@dataclass
class Report:
    config: list[Finding] = field(default_factory=list)
    database: list[Finding] = field(default_factory=list)
    hosts: list[HostFile] = field(default_factory=list)
    gateway: list[Finding] = field(default_factory=list)  # the installed gateway: up or not

    @property
    def ok(self) -> bool:
        findings = [*self.config, *self.database, *self.gateway]
        return all(f.status != "action" for f in findings) and not any(
            h.status == "broken" or any(not s.wrapped for s in h.servers) for h in self.hosts
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "config": [asdict(f) for f in self.config],
            "database": [asdict(f) for f in self.database],
            "hosts": [asdict(h) for h in self.hosts],
            "gateway": [asdict(f) for f in self.gateway],
        }


# -- reading host files: the host table, the JSONC reader and "is it wrapped?" are inspector/hosts' --


def _is_local_proxy(url: str, ports: frozenset[int] = frozenset({PROXY_PORT})) -> bool:
    """A loopback URL on `mcp-inspect proxy`'s default port or the installed gateway's (doctor
    cannot tell a proxy on another port from the server itself without connecting to it, which it
    does not do)."""
    try:
        parts = urlsplit(url)
        return (parts.hostname or "") in _LOOPBACK and parts.port in ports
    except ValueError:
        return False


def check_servers(
    servers: dict[str, Any],
    scope: str,
    *,
    db_args: list[str],
    next_port: list[int],
    ports: frozenset[int] = frozenset({PROXY_PORT}),
) -> list[ServerCheck]:
    """Each server of one host's servers object: wrapped or not, and the entry to put instead.
    `db_args`: `--db PATH` for the wrap line when the config file does not name the database;
    `next_port`: the next free proxy port to suggest (advanced per HTTP server)."""
    from inspector.capture.redact import Redaction

    hide = (
        Redaction()
    )  # the recording's built-in rules: what a recording would not store, doctor does not print
    checks = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            continue
        url_key = next((k for k in _URL_KEYS if isinstance(entry.get(k), str)), None)
        if isinstance(entry.get("command"), str):
            args = [str(a) for a in entry.get("args") or [] if isinstance(a, str | int | float)]
            argv = hide.argv([entry["command"], *args])
            wrapped = is_wrapped_command(argv)
            check = ServerCheck(str(name), scope, "stdio", wrapped, shlex.join(argv))
            check.masked = argv != [entry["command"], *args]
            if not wrapped:
                inspector = _inspector_argv()
                check.fix = {
                    "command": inspector[0],
                    "args": [*inspector[1:], "wrap", *db_args, "--name", str(name), "--", *argv],
                }
            checks.append(check)
        elif url_key is not None:
            url = hide.url(entry[url_key])
            wrapped = _is_local_proxy(url, ports)
            check = ServerCheck(str(name), scope, "http", wrapped, url, masked=url != entry[url_key])
            if not wrapped:
                port = next_port[0]
                next_port[0] += 1
                parts = urlsplit(url)
                local = urlunsplit(("http", f"127.0.0.1:{port}", parts.path or "/", parts.query, ""))
                check.fix = {url_key: local}
                listen = f" --listen 127.0.0.1:{port}" if port != PROXY_PORT else ""
                check.proxy_command = (
                    shlex.join([*_inspector_argv(), "proxy", "--target", url, *db_args, "--name", str(name)])
                    + listen
                )
            checks.append(check)
    return checks


def check_hosts(
    home: Path, project: Path, *, db_args: list[str], gateway_ports: frozenset[int] = frozenset()
) -> list[HostFile]:
    """Every host config file found under `home` and `project`, read only. `gateway_ports`: the
    installed gateway's port (its URLs count as wrapped too)."""
    from inspector.errors import HostFileError
    from inspector.hosts.edit import parse_doc, read_host_file

    results = []
    next_port = [PROXY_PORT]
    for spec in host_files(home, project):
        if not spec.path.is_file():
            continue
        found = HostFile(spec.host, str(spec.path), "found")
        try:
            doc = parse_doc(read_host_file(spec.path), spec.syntax, spec.path)
        except HostFileError as exc:
            found.status, found.error = "broken", _one_line(exc)
            results.append(found)
            continue
        for table_scope, _path, table in server_tables(doc, spec.fmt, spec.scope):
            found.servers += check_servers(
                table,
                table_scope,
                db_args=db_args,
                next_port=next_port,
                ports=frozenset({PROXY_PORT}) | gateway_ports,
            )
        results.append(found)
    return results


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


# -- the database -----------------------------------------------------------------------------------


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"  # pragma: no cover


def check_database(db: str, source: str, retention: Any) -> list[Finding]:
    """Reachable, integrity, revision, size, free space, permissions, retention: read only."""
    from inspector.store.engine import ALEMBIC_HEAD, ALEMBIC_REVISIONS, masked_url

    findings = [Finding("database", "ok", f"{masked_url(db) if '://' in db else db} (from {source})")]
    if "://" in db:
        findings += _check_postgresql(db)
    else:
        findings += _check_sqlite(Path(db).expanduser(), ALEMBIC_HEAD, ALEMBIC_REVISIONS)
    findings.append(_retention(retention))
    return findings


def _revision(revision: str | None, head: str, known: tuple[str, ...]) -> Finding:
    if revision is None:
        return Finding("database", "note", "schema: from before revisions (upgraded when next opened)")
    if revision == head:
        return Finding("database", "ok", f"schema revision {revision} (current)")
    if revision in known:
        return Finding("database", "note", f"schema revision {revision}: upgraded to {head} when next opened")
    return Finding("database", "action", f"schema revision {revision} is newer than this mcp-inspector ({head})",
                   "upgrade mcp-inspector")  # fmt: skip


def _read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the SQLite file `path`: doctor never writes, upgrades or
    re-permissions the database."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)


def _check_sqlite(path: Path, head: str, known: tuple[str, ...]) -> list[Finding]:
    if not path.exists():
        folder = next((p for p in path.parents if p.exists()), None)
        if folder is not None and not os.access(folder, os.W_OK):
            return [Finding("database", "action", f"{path} does not exist and {folder} is not writable",
                            "pick another --db or `db` in the config file")]  # fmt: skip
        return [Finding("database", "note", "not created yet: the first recording creates it (0600)")]
    findings: list[Finding] = []
    try:
        conn = _read_only(path)
    except sqlite3.Error as exc:
        return [Finding("database", "action", f"cannot open: {_one_line(exc)}")]
    try:
        result = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if result == ["ok"]:
            findings.append(Finding("database", "ok", "integrity: quick_check ok"))
        else:
            shown = "; ".join(result[:3])
            findings.append(Finding("database", "action", f"integrity: {shown}",
                                    "restore a backup, or move the file aside and start a new one"))  # fmt: skip
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        revision = None
        if "alembic_version" in names:
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            revision = str(row[0]) if row else None
        if not names:
            findings.append(Finding("database", "note", "empty: the first recording sets it up"))
        else:
            findings.append(_revision(revision, head, known))
    except sqlite3.DatabaseError as exc:
        findings.append(Finding("database", "action", f"integrity: {_one_line(exc)}",
                                "not an mcp-inspector database: move it aside or pass another --db"))  # fmt: skip
    finally:
        conn.close()
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    free = shutil.disk_usage(path.parent).free
    findings.append(Finding("database", "ok", f"size {_size(size)}, {_size(free)} free on its disk"))
    if os.name != "nt":
        findings += _permissions(path)
    return findings


def _permissions(path: Path) -> list[Finding]:
    from inspector.private_files import OTHERS, mode_text

    findings = []
    for target, want, kind in ((path, "0600", "file"), (path.parent, "0700", "folder")):
        mode = target.stat().st_mode
        shown = mode_text(mode)
        if stat.S_IMODE(mode) & OTHERS:
            findings.append(Finding("database", "action", f"{kind} {target} is {shown}: others can read it",
                                    f"chmod {want[1:]} {shlex.quote(str(target))}"))  # fmt: skip
        else:
            findings.append(Finding("database", "ok", f"{kind} permissions {shown}"))
    return findings


def _check_postgresql(db: str) -> list[Finding]:
    from sqlalchemy import create_engine

    from inspector.store.engine import (
        ALEMBIC_HEAD,
        ALEMBIC_REVISIONS,
        _stored_version,
        database_url,
        mask_secrets,
        no_driver,
    )

    try:
        engine = create_engine(database_url(db), connect_args={"connect_timeout": 10})
    except ImportError as exc:  # psycopg: the postgres extra
        return [Finding("database", "action", mask_secrets(str(no_driver(database_url(db), exc)), db))]
    except Exception as exc:
        return [Finding("database", "action", mask_secrets(f"not a usable URL: {_one_line(exc)}", db))]
    try:
        with engine.connect() as conn:
            _version, revision = _stored_version(conn)
            size: Any = conn.exec_driver_sql("SELECT pg_database_size(current_database())").scalar_one()
        return [
            Finding("database", "ok", "reachable"),
            _revision(revision, ALEMBIC_HEAD, ALEMBIC_REVISIONS),
            Finding("database", "ok", f"size {_size(int(size))}"),
        ]
    except Exception as exc:
        return [Finding("database", "action", mask_secrets(f"cannot reach it: {_one_line(exc)}", db))]
    finally:
        engine.dispose()


def _retention(retention: Any) -> Finding:
    from inspector.settings import format_duration, format_size

    if retention is None or not retention.active:
        return Finding("database", "note", "retention: none set (the database grows without limit)",
                       "set [retention] max_age / max_total_size in the config file")  # fmt: skip
    parts = []
    if retention.max_age is not None:
        parts.append(f"max_age {format_duration(retention.max_age)}")
    if retention.max_total_size is not None:
        parts.append(f"max_total_size {format_size(retention.max_total_size)}")
    if retention.max_session_size is not None:
        parts.append(f"max_session_size {format_size(retention.max_session_size)}")
    return Finding("database", "ok", "retention: " + ", ".join(parts))


# -- all of it --------------------------------------------------------------------------------------


def run_doctor(home: Path, project: Path, db: str | None = None) -> Report:
    """Every check; nothing is written anywhere."""
    from inspector.config import DEFAULT_DB
    from inspector.errors import InspectorError
    from inspector.settings import config_path, load

    report = Report()
    where = config_path()
    effective = None
    try:
        effective = load(flags={"db": (db, "--db")})
    except InspectorError as exc:
        report.config.append(
            Finding("config", "action", f"invalid: {exc}", "fix it: recorders refuse to start")
        )
    if effective is not None:
        if effective.path is not None:
            report.config.append(Finding("config", "ok", f"{where} (valid)"))
        else:
            report.config.append(Finding("config", "note", f"{where} not found (defaults in force)",
                                         "`mcp-inspect config init` writes a commented one"))  # fmt: skip
    if effective is not None:
        chosen = effective.settings.db or str(DEFAULT_DB)
        source = effective.source("db")
        retention = effective.settings.retention
    else:
        chosen = db or os.environ.get("MCP_INSPECTOR_DB") or str(DEFAULT_DB)
        source = (
            "flag --db"
            if db
            else "environment MCP_INSPECTOR_DB"
            if os.environ.get("MCP_INSPECTOR_DB")
            else "default"
        )
        retention = None
    if "://" not in chosen:
        chosen = str(Path(chosen).expanduser().absolute())
    report.database = check_database(chosen, source, retention)
    # A wrap line names the database unless the config file does (hosts start servers elsewhere).
    from_file = effective is not None and effective.source("db").startswith("config file")
    db_args = [] if from_file else ["--db", chosen]
    report.gateway, ports = check_gateway()
    report.hosts = check_hosts(home, project, db_args=db_args, gateway_ports=ports)
    recent = _recent_names(chosen)
    for host in report.hosts:
        for server in host.servers:
            server.recording = None if recent is None or not server.wrapped else server.name in recent
    return report


RECENT_S = 7 * 24 * 3600  # "recording": a session under the entry's name within this long


def _recent_names(db: str) -> set[str] | None:
    """The names of the sessions started in the last week (None: not an SQLite file we can read)."""
    import time

    path = Path(db)
    if "://" in db or not path.is_file():
        return None if "://" in db else set()
    try:
        conn = _read_only(path)
    except sqlite3.Error:
        return None
    try:
        since = time.time_ns() - RECENT_S * 1_000_000_000
        rows = conn.execute("SELECT DISTINCT name FROM session WHERE started_ns >= ?", (since,)).fetchall()
        return {str(r[0]) for r in rows if r[0] is not None}
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def check_gateway() -> tuple[list[Finding], frozenset[int]]:
    """The installed recording gateway (when `install` wrote its config): up or not; and its port."""
    from inspector.hosts import gateway

    path = gateway.config_file()
    if not path.is_file():
        return [], frozenset()
    try:
        routes = gateway.Routes(path)
        state = gateway.status()
    except Exception as exc:  # a broken gateway.toml: said, never fatal
        return [Finding("gateway", "action", f"{path}: {_one_line(exc)}")], frozenset()
    count = len(routes.routes)
    if state["up"]:
        found = Finding("gateway", "ok", f"up on {state['listen']} (pid {state['pid']}), {count} route(s)")
    else:
        found = Finding("gateway", "action", f"not running: {count} route(s) of {path} are not recorded",
                        "mcp-inspect gateway start (or a user unit: mcp-inspect gateway start --write-unit)")  # fmt: skip
    return [found], frozenset({routes.port})


def render(report: Report, console: Any, home: Path) -> None:
    """The report for a terminal (80 columns)."""
    from inspector.terminal_text import markup_safe, visible

    marks = {"ok": "[green]ok[/green]  ", "note": "[cyan]note[/cyan]", "action": "[red]fix[/red] "}

    def say(f: Finding) -> None:
        console.print(f"  {marks[f.status]} {markup_safe(f.text)}")
        if f.hint:
            console.print(f"         {markup_safe(f.hint)}", style="dim")

    console.print("[bold]Config file[/bold]")
    for f in report.config:
        say(f)
    console.print("[bold]Database[/bold]")
    for f in report.database:
        say(f)
    if report.gateway:
        console.print("[bold]Gateway[/bold]")
        for f in report.gateway:
            say(f)
    console.print("[bold]Hosts[/bold]")
    if not report.hosts:
        console.print(
            f"  [cyan]note[/cyan] no host config file found under {markup_safe(str(home))} or the project"
        )
    for h in report.hosts:
        shown = _tilde(h.path, home)
        if h.status == "broken":
            console.print(
                f"  [red]fix[/red]  {markup_safe(h.host)}: {markup_safe(shown)}: not valid JSON (the host cannot"
            )
            console.print("       read it either):", style="dim")
            console.print(f"       {visible(h.error or '')}", style="dim", markup=False, overflow="fold")
            continue
        wrapped = sum(s.wrapped for s in h.servers)
        console.print(
            f"  {markup_safe(h.host)}: {markup_safe(shown)} ({wrapped} of {len(h.servers)} wrapped)"
        )
        for s in h.servers:
            where = "" if s.scope in ("user", "project") else f" \\[{markup_safe(_tilde(s.scope, home))}]"
            if s.wrapped:
                recording = {True: ", recording", False: ", no session in the last week", None: ""}
                console.print(
                    f"    [green]ok[/green]   {markup_safe(s.name)}{where}: wrapped{recording[s.recording]}",
                    overflow="fold",
                )
                continue
            console.print(
                f"    [red]fix[/red]  {markup_safe(s.name)}{where} ({s.transport}): not recorded",
                overflow="fold",
            )
            if s.proxy_command:
                console.print("         run (and keep running):", style="dim")
                for line in _command_lines(s.proxy_command):
                    console.print(f"         {visible(line)}", overflow="fold", markup=False)
            console.print("         change these keys of its entry (the others stay):", style="dim")
            for line in _json_lines(s.fix or {}):
                console.print(f"         {visible(line)}", overflow="fold", markup=False)
            if s.masked:
                console.print(
                    "         (a \\[secret:NAME] stands for the entry's secret: keep its value there)",
                    style="dim",
                )
    console.print(
        "all well"
        if report.ok
        else "[red]something needs action[/red] (doctor changes no file: `mcp-inspect install` does)"
    )


def _tilde(path: str, home: Path) -> str:
    return "~" + path[len(str(home)) :] if path.startswith(str(home) + os.sep) else path


def doctor_command(home: Path | None, project: Path | None, db: str | None, as_json: bool) -> int:
    """`mcp-inspect doctor`'s body: the report on stdout; 0 when all is well, 1 when not."""
    from rich.console import Console

    home = (home or Path.home()).expanduser().absolute()
    project = (project or Path.cwd()).expanduser().absolute()
    report = run_doctor(home, project, db)
    if as_json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        console = Console(highlight=False, width=min(Console().width, 80))
        render(report, console, home)
    return 0 if report.ok else 1


def _json_lines(fix: dict[str, Any], width: int = 70) -> list[str]:
    """`fix` as JSON object members, one key a line, a list on as few lines as fit `width`."""
    lines = []
    for key, value in fix.items():
        head = f"{json.dumps(key)}: "
        if not isinstance(value, list):
            lines.append(head + json.dumps(value) + ",")
            continue
        words = [json.dumps(v) for v in value]
        line = head + "["
        for k, word in enumerate(words):
            piece = word + ("," if k < len(words) - 1 else "]")
            if len(line) + len(piece) + 1 > width and not line.endswith("["):
                lines.append(line)
                line = "  " + piece
            else:
                line += ("" if line.endswith("[") else " ") + piece
        lines.append(line + ",")
    if lines:
        lines[-1] = lines[-1].removesuffix(",")
    return lines


def _command_lines(command: str, width: int = 68) -> list[str]:
    """A shell command cut into lines of at most about `width` columns, joined by backslashes."""
    lines: list[str] = []
    line = ""
    for word in shlex.split(command):
        quoted = shlex.quote(word)
        if line and len(line) + len(quoted) + 3 > width:
            lines.append(line + " \\")
            line = "  " + quoted
        else:
            line = f"{line} {quoted}" if line else quoted
    return [*lines, line]
