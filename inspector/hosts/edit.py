"""Format-preserving edits of one host file: read it (JSON, JSONC or TOML, with the file, line and
column of a mistake), plan the change of each entry (`EntryChange`), apply the changes and revert them.

JSON and JSONC are edited by splicing the text of the values we change (`hosts/jsonc.py`);
TOML (Codex) through `tomlkit`, which round-trips everything else. Every other byte stays.
Pure: text in, text out; `read_host_file` is the one reader of a file's bytes.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from inspector.errors import HostFileError
from inspector.hosts import jsonc
from inspector.hosts.table import server_tables

__all__ = ["EntryChange", "HostFileError", "apply", "current_values", "parse_doc", "read_host_file", "revert"]


@dataclass
class EntryChange:
    """What install changed in one entry: its keys' values before (`absent`: keys it did not have)
    and after. `path` leads to the servers object, `name` is the entry's key there."""

    path: list[str]
    name: str
    transport: str  # stdio or http
    before: dict[str, Any]
    after: dict[str, Any]
    absent: list[str] = field(default_factory=list)
    route: dict[str, str] | None = None  # http: the gateway route (name, prefix, target)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntryChange:
        return cls(**data)


def read_host_file(path: Path) -> str:
    """The file's text (bytes decoded as UTF-8, line ends as they are)."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise HostFileError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def parse_doc(text: str, syntax: str, where: Path | str) -> Any:
    """The document as Python values; `HostFileError` naming `where:LINE:COL` when malformed."""
    if syntax == "toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            # Python 3.11's message ends "(at line 3, column 11)"; 3.14 also has lineno/colno.
            found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", str(exc))
            line, col = (found.group(1), found.group(2)) if found else ("1", "1")
            reason = str(exc)[: found.start()] if found else str(exc)
            raise HostFileError(f"{where}:{line}:{col}: not valid TOML: {reason}") from None
    try:
        return jsonc.parse(text, jsonc=syntax == "jsonc").plain()
    except jsonc.JsoncError as exc:
        kind = "JSON (with comments)" if syntax == "jsonc" else "JSON"
        raise HostFileError(f"{where}:{exc.line}:{exc.col}: not valid {kind}: {exc.reason}") from None


def entries(doc: Any, fmt: str, scope: str) -> list[tuple[str, list[str], str, dict[str, Any]]]:
    """(scope, path to the servers object, entry name, entry) of every server of the document."""
    out = []
    for table_scope, path, table in server_tables(doc, fmt, scope):
        for name, entry in table.items():
            if isinstance(entry, dict):
                out.append((table_scope, path, str(name), entry))
    return out


def apply(text: str, syntax: str, changes: list[EntryChange]) -> str:
    """`text` with each change's `after` values set."""
    return _edit(text, syntax, changes, revert=False)[0]


def revert(text: str, syntax: str, changes: list[EntryChange]) -> tuple[str, list[str]]:
    """`text` with each change's `before` values put back (keys it had not: removed), only where the
    value is still the one install wrote; and the `entry.key`s left alone because they were edited since."""
    return _edit(text, syntax, changes, revert=True)


def current_values(doc: Any, change: EntryChange) -> dict[str, Any] | None:
    """The entry's present values of the keys `change` touched (None: the entry is gone)."""
    node = doc
    for key in [*change.path, change.name]:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _edit(text: str, syntax: str, changes: list[EntryChange], revert: bool) -> tuple[str, list[str]]:
    kept: list[str] = []
    if syntax == "toml":
        import tomlkit

        doc = tomlkit.parse(text)
        for change in changes:
            entry: Any = doc
            for key in [*change.path, change.name]:
                entry = entry.get(key) if hasattr(entry, "get") else None
            if entry is None:
                kept.append(change.name)
                continue
            for key, value in change.after.items():
                if not revert:
                    entry[key] = value
                elif _plain(entry.get(key)) != value:
                    kept.append(f"{change.name}.{key}")
                elif key in change.absent:
                    del entry[key]
                else:
                    entry[key] = change.before[key]
        return tomlkit.dumps(doc), kept
    root = jsonc.parse(text, jsonc=True)  # one reading: every splice's offsets are of this text
    splices: list[jsonc.Splice] = []
    for change in changes:
        entry_node = jsonc.find(root, [*change.path, change.name])
        if entry_node is None or entry_node.kind != "object":
            kept.append(change.name)
            continue
        for key, value in change.after.items():
            node = entry_node.get(key)
            if not revert:
                if node is not None:
                    splices.append(jsonc.replace_value_splice(text, node, value))
                else:
                    after = "command" if entry_node.get("command") is not None else None
                    splices.append(jsonc.insert_member_splice(text, entry_node, key, value, after=after))
            elif node is None or node.plain() != value:
                kept.append(f"{change.name}.{key}")
            elif key in change.absent:
                splices.append(jsonc.remove_member_splice(text, entry_node, key))
            else:
                splices.append(jsonc.replace_value_splice(text, node, change.before[key]))
    text = jsonc.apply_splices(text, splices)
    return text, kept


def _plain(value: Any) -> Any:
    """A tomlkit item as plain Python (lists and strings compare with JSON's)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if unwrap is not None else value
