"""The inspector's settings: the config file, the environment and flags, each value with its source.

Where a value comes from, lowest first:

    default  <  config file  <  environment (MCP_INSPECTOR_*)  <  a command's flag

The config file is TOML, `$MCP_INSPECTOR_CONFIG` if set, else `config.toml` in
the user's config directory (`platformdirs`: `~/.config/mcp-inspector/` on
Linux, `~/Library/Application Support/mcp-inspector/` on macOS). A missing
file is no error; a bad one is one line naming the file and the key.

    db = "~/mcp-recordings/inspector.db"     # or postgresql://...
    redact = ["x-tenant-key"]                 # more names to redact, as --redact

    [retention]                               # applied by every recorder and `prune`
    max_age = "30d"                           # s, m, h, d, w
    max_total_size = "2GB"                    # B, kB, MB, GB, KiB, MiB, GiB
    max_session_size = "200MB"
    keep_labelled = true                      # labelled (and pinned) sessions are kept

    [storage]
    compress_above = "4KiB"                   # larger bodies are stored zstd-compressed
    dedup_above = "4KiB"                      # identical larger bodies are stored once
    max_record_bytes = "32MiB"                # a longer message keeps this much, its size and SHA-256

    [[servers]]                               # per-server rules, the first match wins
    match = "*github*"                        # glob on the session name, command line or URL
    record = "metadata"                       # full, metadata (no bodies) or paused
    redact = ["x-github-token"]

`load()` reads them (no caching: a long-running `ui` re-reads when asked);
`Effective.sources` says where each dotted key's value came from.

The settings are dataclasses, their one definition: the defaults, and in the
annotations what each key holds (`Size`, `Duration`: the value goes through
`parse_size`/`parse_duration`). `from_doc` builds them from a TOML/environment
document, checking each key against its annotation. This module imports only
the standard library: every command (`call`, `wrap`'s store thread, the
recorders) reads the settings without loading a validation library.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from inspector.errors import InspectorError, SettingsError
from inspector.settings_sources import ENV, config_path

__all__ = [
    "ENV",
    "MAX_RECORD_BYTES",
    "Effective",
    "Retention",
    "ServerRule",
    "Settings",
    "Storage",
    "config_path",
    "format_duration",
    "format_size",
    "from_doc",
    "load",
    "parse_duration",
    "parse_size",
]

_UNITS = {
    "": 1, "b": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4,
    "k": 1024, "m": 1024**2, "g": 1024**3,
}  # fmt: skip
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_size(value: Any) -> int:
    """Bytes from `4096`, `"4KiB"`, `"500MB"`, `"2 GB"` (kB/MB/GB are powers of 1000, KiB... of 1024)."""
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a size cannot be negative: {value}")
        return value
    text = str(value).strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([A-Za-z]*)", text)
    if m is None or m.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {value!r} (e.g. 4096, 64KiB, 500MB, 2GB)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def parse_duration(value: Any) -> float:
    """Seconds from `3600`, `"90m"`, `"12h"`, `"30d"`, `"2w"`."""
    if isinstance(value, bool):
        raise ValueError(f"not a duration: {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(f"a duration cannot be negative: {value}")
        return float(value)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smhdw]?)", str(value).strip().lower())
    if m is None:
        raise ValueError(f"not a duration: {value!r} (e.g. 3600, 90m, 12h, 30d, 2w)")
    return float(m.group(1)) * _SECONDS[m.group(2) or "s"]


_SHOW_UNITS = (("GB", 1000**3), ("MB", 1000**2), ("kB", 1000))
_SHOW_BINARY = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))


def format_size(value: int) -> str:
    """`4KiB`, `2GB`, `200MB`, `1234 B`: exact when a unit divides it, else one decimal."""
    for unit, factor in sorted((*_SHOW_BINARY, *_SHOW_UNITS), key=lambda u: -u[1]):
        if value >= factor and value % factor == 0:
            return f"{value // factor}{unit}"
    for unit, factor in _SHOW_UNITS:
        if value >= factor:
            return f"{value / factor:.1f}{unit}"
    return f"{value} B"


def format_duration(seconds: float) -> str:
    """`30d`, `2w`, `12h`, `90m`, `45s` (the largest unit that divides it)."""
    whole = int(seconds)
    if whole != seconds:
        return f"{seconds}s"
    for unit, factor in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= factor and whole % factor == 0:
            return f"{whole // factor}{unit}"
    return f"{whole}s"


class Parsed:
    """Annotation metadata: the steps a TOML or environment value goes through to become the field's
    value (each may raise ValueError, whose text is the error's)."""

    def __init__(self, *steps: Callable[[Any], Any]) -> None:
        self.steps = steps

    def __call__(self, value: Any) -> Any:
        for step in self.steps:
            value = step(value)
        return value

    def __repr__(self) -> str:
        return f"Parsed({', '.join(step.__name__ for step in self.steps)})"


Size = Annotated[int, Parsed(parse_size)]
Duration = Annotated[float, Parsed(parse_duration)]


@dataclass
class Retention:
    """What recorders and `prune` may remove: sessions older than `max_age`, the oldest sessions while
    the store is over `max_total_size`, sessions over `max_session_size`. None: no such limit."""

    max_age: Duration | None = None
    max_total_size: Size | None = None
    max_session_size: Size | None = None
    keep_labelled: bool = True

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.max_age, self.max_total_size, self.max_session_size))


def _at_least_a_kibibyte(value: int) -> int:
    if value < 1024:
        raise ValueError(f"must be at least 1KiB, got {value}")
    return value


# The default cap of one recorded message: above the tens of MB that are recorded whole (DESIGN.md,
# principle 1), and half the recorder's 64 MiB budget of unwritten rows (`max_pending_bytes`), which
# a row larger than it never fitted into: such a message was dropped from the record altogether.
MAX_RECORD_BYTES = 32 * 1024 * 1024


@dataclass
class Storage:
    """How message bodies are stored: compressed above a size, identical ones once, none longer than
    `max_record_bytes` (the rest of a longer message is forwarded, counted and hashed, not kept)."""

    compress_above: Size = 4096
    dedup_above: Size = 4096
    max_record_bytes: Annotated[int, Parsed(parse_size, _at_least_a_kibibyte)] = MAX_RECORD_BYTES


@dataclass
class ServerRule:
    """A rule for the servers whose session name, command line or URL matches `match` (a glob)."""

    match: str
    record: Literal["full", "metadata", "paused"] = "full"
    redact: list[str] = field(default_factory=list)

    def matches(self, *candidates: str | None) -> bool:
        pattern = self.match.lower()
        return any(c is not None and fnmatch.fnmatchcase(c.lower(), pattern) for c in candidates)


@dataclass
class Settings:
    db: str | None = None
    redact: list[str] = field(default_factory=list)
    retention: Retention = field(default_factory=Retention)
    storage: Storage = field(default_factory=Storage)
    servers: list[ServerRule] = field(default_factory=list)

    def rule_for(self, *, name: str | None = None, command: list[str] | str | None = None,
                 url: str | None = None) -> ServerRule | None:  # fmt: skip
        """The first per-server rule matching this session's name, command line or URL."""
        line = " ".join(command) if isinstance(command, list) else command
        return next((rule for rule in self.servers if rule.matches(name, line, url)), None)


# -- reading a document into them -----------------------------------------------------------------


def _bad(loc: tuple[str | int, ...], message: str) -> SettingsError:
    return SettingsError(".".join(str(p) for p in loc) or "(top level)", message)


T = TypeVar("T")
_BOOLS = {
    "true": True, "t": True, "yes": True, "y": True, "on": True, "1": True,
    "false": False, "f": False, "no": False, "n": False, "off": False, "0": False,
}  # fmt: skip


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations, resolved (this module's are strings: `from __future__`)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls, include_extras=True)
    return hints


def _value(annotation: Any, value: Any, loc: tuple[str | int, ...]) -> Any:
    """`value` as `annotation` holds it, or SettingsError naming `loc`."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        parse = next((m for m in annotation.__metadata__ if isinstance(m, Parsed)), None)
        if parse is None:
            return _value(typing.get_args(annotation)[0], value, loc)
        try:
            return parse(value)
        except ValueError as exc:
            raise _bad(loc, str(exc)) from None
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(annotation)
        if value is None and type(None) in options:
            return None
        (one,) = [o for o in options if o is not type(None)]
        return _value(one, value, loc)
    if origin is Literal:
        allowed = typing.get_args(annotation)
        if value not in allowed or isinstance(value, bool):
            words = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
            raise _bad(loc, f"should be {words}, not {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list | tuple):
            raise _bad(loc, f"should be a list, not {value!r}")
        (item,) = typing.get_args(annotation)
        return [_value(item, v, (*loc, i)) for i, v in enumerate(value)]
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        return _record(annotation, value, loc)
    if annotation is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int | str) and str(value).strip().lower() in _BOOLS:
            return _BOOLS[str(value).strip().lower()]
        raise _bad(loc, f"should be a boolean, not {value!r}")
    if annotation is str:
        if not isinstance(value, str):
            raise _bad(loc, f"should be a string, not {value!r}")
        return value
    raise TypeError(f"{loc}: no reading for {annotation!r}")  # a settings class this does not know


def _record(cls: type[T], doc: Any, loc: tuple[str | int, ...]) -> T:
    if not isinstance(doc, Mapping):
        raise _bad(loc, f"should be a table, not {doc!r}")
    hints = _hints(cls)
    for key in doc:
        if key not in hints:
            raise _bad((*loc, key), "unknown setting")
    values = {name: _value(hints[name], doc[name], (*loc, name)) for name in hints if name in doc}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if (
            f.name not in values
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ):
            raise _bad((*loc, f.name), "required, missing")
    return cls(**values)


def from_doc(cls: type[T], doc: Mapping[str, Any]) -> T:
    """`cls` (Settings, Retention, ...) from a TOML/environment document: each key checked against
    its annotation (SettingsError names the first bad key and what is wrong)."""
    return _record(cls, doc, ())


@dataclass
class Effective:
    """The settings in force and, per dotted key that is not a default, where its value came from
    (`config file <path>`, `environment MCP_INSPECTOR_...`, `flag --...`)."""

    settings: Settings
    sources: dict[str, str] = field(default_factory=dict)
    path: Path | None = None  # the config file read (None: there was none)
    looked_at: Path | None = None  # where the config file was looked for

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")


def _set(doc: dict[str, Any], key: str, value: Any) -> None:
    *parents, last = key.split(".")
    for part in parents:
        doc = doc.setdefault(part, {})
    doc[last] = value


def _flat(doc: Mapping[str, Any], prefix: str = "") -> list[str]:
    keys: list[str] = []
    for k, v in doc.items():
        if isinstance(v, Mapping):
            keys.extend(_flat(v, f"{prefix}{k}."))
        else:
            keys.append(f"{prefix}{k}")
    return keys


def _checked(where: str, doc: dict[str, Any]) -> Settings:
    try:
        return from_doc(Settings, doc)
    except SettingsError as exc:
        raise InspectorError(f"{where}: {exc}") from None


def load(
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, tuple[Any, str]] | None = None,
    path: Path | None = None,
) -> Effective:
    """The effective settings. `flags`: dotted key -> (value, the flag's name) for the flags a command
    was given (None values are skipped). A bad file, variable or flag raises InspectorError."""
    env = os.environ if environ is None else environ
    where = path or config_path(env)
    doc: dict[str, Any] = {}
    sources: dict[str, str] = {}
    read: Path | None = None
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except OSError as exc:
        raise InspectorError(f"{where}: cannot read the config file: {exc.strerror}") from None
    if text is not None:
        import tomllib  # only when there is a file to parse

        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InspectorError(f"{where}: not valid TOML: {exc}") from None
        read = where
        _checked(str(where), doc)
        sources.update((key, f"config file {where}") for key in _flat(doc))
    for key, var in ENV.items():
        value = env.get(var)
        if value:
            _set(doc, key, [v.strip() for v in value.split(",") if v.strip()] if key == "redact" else value)
            sources[key] = f"environment {var}"
            _checked(f"environment {var}", doc)
    for key, (value, flag) in (flags or {}).items():
        if value is None:
            continue
        _set(doc, key, value)
        sources[key] = f"flag {flag}"
        _checked(f"flag {flag}", doc)
    return Effective(_checked("settings", doc), sources, read, where)
