"""`mcp-inspect install` / `uninstall`: every MCP server of the chosen hosts' config files put
behind the inspector, and taken back out.

- A stdio entry's `command` becomes the absolute path of mcp-inspect (or this Python with
  `-m inspector`), its `args` `wrap --name ENTRY --host KEY --host-file FILE [--db DB] -- <the
  original command and args>`; its other keys (env, cwd, type...) stay.
- An HTTP entry's URL becomes a route of the one recording gateway (`hosts/gateway.py`:
  `http://127.0.0.1:PORT/ENTRY/<the original path>`); its headers stay in the entry and pass through.

Every selected file is read and planned first: one malformed file (named FILE:LINE:COL) stops
the whole run before anything is written. Then each file gets its change record and backup
(`hosts/changes.py`) and is replaced atomically. A second install finds every entry wrapped and
changes nothing; `uninstall` gives back the original bytes when the file is as install left it,
else reverts only the keys install set that still hold what it set.
"""

from __future__ import annotations

import contextlib
import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from inspector.errors import InspectorError
from inspector.hosts import changes, gateway
from inspector.hosts.command import inspector_argv, is_wrapped_command
from inspector.hosts.edit import (
    EntryChange,
    apply,
    current_values,
    entries,
    parse_doc,
    read_host_file,
    revert,
)
from inspector.hosts.table import HOSTS, URL_KEYS, HostFileSpec, host_files
from inspector.private_files import atomic_write

__all__ = [
    "FilePlan",
    "plan_install",
    "plan_uninstall",
    "select",
    "write_all",
    "write_uninstall",
]


def select(hosts: list[str], all_hosts: bool, home: Path, project: Path) -> list[HostFileSpec]:
    """The host files of the named hosts (keys of `HOSTS`), or of every host with `all_hosts`."""
    unknown = [h for h in hosts if h not in HOSTS]
    if unknown:
        raise InspectorError(f"unknown host {unknown[0]!r}: choose from {', '.join(HOSTS)} (or --all)")
    if not hosts and not all_hosts:
        raise InspectorError(f"name the hosts ({', '.join(HOSTS)}) or give --all")
    chosen = set(HOSTS) if all_hosts else set(hosts)
    return [spec for spec in host_files(home, project) if spec.key in chosen]


@dataclass
class FilePlan:
    """One host file's change: its text before and after, and what to say."""

    spec: HostFileSpec
    before: bytes
    after: bytes
    changes: list[EntryChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    restore: bool = False  # uninstall: the original bytes come back whole

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """The change as a unified diff (the file's text as it is: print it through `visible`)."""
        old = self.before.decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        where = str(self.spec.path)
        return "".join(difflib.unified_diff(old, new, f"{where} (now)", f"{where} (after)"))


def _stdio_change(spec: HostFileSpec, path: list[str], name: str, entry: dict[str, Any],
                  db: str | None) -> EntryChange | None:  # fmt: skip
    command = entry["command"]
    args: list[Any] = entry["args"] if isinstance(entry.get("args"), list) else []
    original = [str(command), *(str(a) for a in args)]
    if is_wrapped_command(original):
        return None
    inspector = inspector_argv()
    db_args = ["--db", db] if db else []
    new_args = [*inspector[1:], "wrap", "--name", name, "--host", spec.key, "--host-file", str(spec.path),
                *db_args, "--", *original]  # fmt: skip
    before: dict[str, Any] = {"command": command}
    absent = []
    if "args" in entry:
        before["args"] = entry["args"]
    else:
        absent.append("args")
    return EntryChange(path, name, "stdio", before, {"command": inspector[0], "args": new_args}, absent)


def _http_change(path: list[str], name: str, entry: dict[str, Any], url_key: str,
                 routes: gateway.Routes) -> EntryChange | str | None:  # fmt: skip
    url = entry[url_key]
    if routes.is_gateway_url(url):
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{name}: {url_key} is not an http(s) URL, left alone"
    route = routes.route_for(name, url)
    local = routes.client_url(route, url)
    return EntryChange(path, name, "http", {url_key: url}, {url_key: local}, [], route)


def plan_install(specs: list[HostFileSpec], db: str | None, routes: gateway.Routes) -> list[FilePlan]:
    """Every found file's change (nothing written). `HostFileError` for the first malformed file."""
    plans = []
    for spec in specs:
        if not spec.path.is_file():
            continue
        text = read_host_file(spec.path)
        doc = parse_doc(text, spec.syntax, spec.path)
        plan = FilePlan(spec, text.encode("utf-8"), b"")
        for _scope, path, name, entry in entries(doc, spec.fmt, spec.scope):
            url_key = next((k for k in URL_KEYS if isinstance(entry.get(k), str)), None)
            change: EntryChange | str | None = None
            if isinstance(entry.get("command"), str):
                change = _stdio_change(spec, path, name, entry, db)
            elif url_key is not None:
                change = _http_change(path, name, entry, url_key, routes)
            else:
                plan.notes.append(f"{name}: neither a command nor a URL, left alone")
                continue
            if change is None:
                plan.notes.append(f"{name}: already wrapped")
            elif isinstance(change, str):
                plan.notes.append(change)
            else:
                plan.changes.append(change)
        plan.after = apply(text, spec.syntax, plan.changes).encode("utf-8") if plan.changes else plan.before
        parse_doc(plan.after.decode("utf-8"), spec.syntax, spec.path)  # our own edit must read back
        plans.append(plan)
    return plans


def plan_uninstall(specs: list[HostFileSpec]) -> list[FilePlan]:
    """Every installed file's way back (nothing written). `HostFileError` for a malformed one."""
    plans = []
    for spec in specs:
        record = changes.load_record(spec.path)
        if record is None:
            continue
        recorded = [EntryChange.from_json(c) for c in record.get("entries", [])]
        if not spec.path.is_file():
            plans.append(FilePlan(spec, b"", b"", recorded, ["the file is gone: nothing to give back"]))
            continue
        text = read_host_file(spec.path)
        now = text.encode("utf-8")
        original = changes.original_bytes(spec.path)
        if (
            record.get("pristine")
            and original is not None
            and changes.digest(now) == record.get("written_sha256")
        ):
            plans.append(FilePlan(spec, now, original, recorded, restore=True))
            continue
        doc = parse_doc(text, spec.syntax, spec.path)
        live = [c for c in recorded if current_values(doc, c) is not None]
        notes = [f"{c.name}: the entry is gone" for c in recorded if c not in live]
        after, kept = revert(text, spec.syntax, live)
        notes += [f"{k}: changed since install, left as it is" for k in kept]
        plans.append(FilePlan(spec, now, after.encode("utf-8"), recorded, notes))
    return plans


def write_install(plan: FilePlan) -> None:
    """Record, back up (the first time) and replace the file."""
    record = changes.load_record(plan.spec.path)
    if record is None:
        record = {"file": str(plan.spec.path), "host": plan.spec.key, "pristine": True, "entries": []}
        original: bytes | None = plan.before
    else:
        original = None
        # Edited by someone else since our last write: its first bytes are no longer the way back.
        record["pristine"] = bool(record.get("pristine")) and changes.digest(plan.before) == record.get(
            "written_sha256"
        )
    record["entries"] = [*record.get("entries", []), *(c.as_json() for c in plan.changes)]
    record["written_sha256"] = changes.digest(plan.after)
    changes.save_record(plan.spec.path, record, original)
    atomic_write(plan.spec.path, plan.after)


def write_all(plans: list[FilePlan]) -> None:
    """`write_install` each changed file; if one cannot be written, the ones before it get their
    bytes and change records back, and the error names the file: no host is left half-changed."""
    done: list[tuple[FilePlan, dict[str, Any] | None]] = []
    for plan in (p for p in plans if p.changed):
        previous = changes.load_record(plan.spec.path)
        try:
            write_install(plan)
        except OSError as exc:
            for written, record in [*done, (plan, previous)]:
                with contextlib.suppress(OSError):
                    if written is not plan:
                        atomic_write(written.spec.path, written.before)
                    if record is None:
                        changes.drop_record(written.spec.path)
                    else:
                        changes.save_record(written.spec.path, record, None)
            raise InspectorError(
                f"{plan.spec.path}: cannot write it ({exc.strerror or exc}); no host file was changed"
            ) from None
        done.append((plan, previous))


def write_uninstall(plan: FilePlan) -> None:
    """Give the file back (whole or key by key) and forget its change record."""
    if plan.changed:
        atomic_write(plan.spec.path, plan.after)
    changes.drop_record(plan.spec.path)


def route_names(plans: list[FilePlan]) -> set[str]:
    return {c.route["name"] for p in plans for c in p.changes if c.route}
