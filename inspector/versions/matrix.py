"""The version matrix: what one server did under each protocol revision, built from recorded sessions.

Sans-IO. The probe (`inspector.versions.probe`) records one session per
revision; this module reads those sessions' rows back and never talks to a
server, so the matrix of a past run is rebuilt exactly from its recordings.

The probe's shape is defined here and used by both sides: the handshake
(`initialize`, or `server/discover` for 2026-07-28), then for each list the
server declared a capability for (`PROBE_LISTS`), pages following
`nextCursor` (at most `MAX_PAGES`). Whatever the session holds after that is
the replay of a recorded session's client requests.

A column per revision (`Column`): the outcome of the negotiation
(`accepted`, `counter-offer`: the server answered another revision,
`refused`: an error answer to the handshake, `failed`: no answer at all),
server info, capabilities, items per list, field presence (`fields.py`),
replayed requests, errors. `build_matrix` turns columns into rows; a row
`differs` when its values are not all equal among the revisions that
answered (the negotiation rows: among all revisions).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types
import orjson
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from inspector.store.models import Message
from inspector.versions.fields import field_paths, flatten_capabilities

__all__ = [
    "HANDSHAKE_METHODS",
    "MAX_PAGES",
    "PROBE_LISTS",
    "Column",
    "ReplayStep",
    "build_matrix",
    "column_of",
    "declared_lists",
    "replay_steps",
    "next_cursor",
    "parse_revisions",
]

# (capability, method, the result's item list)
PROBE_LISTS: tuple[tuple[str, str, str], ...] = (
    ("tools", "tools/list", "tools"),
    ("resources", "resources/list", "resources"),
    ("resources", "resources/templates/list", "resourceTemplates"),
    ("prompts", "prompts/list", "prompts"),
)
HANDSHAKE_METHODS = frozenset({"initialize", "server/discover"})
MAX_PAGES = 100
ANSWERED = ("accepted", "counter-offer")


def parse_revisions(text: str | None) -> list[str]:
    """`2025-06-18,2025-11-25` as a list; every known revision when empty.

    A well-formed date that is not a known revision is allowed (it is offered through `initialize`,
    which shows how the server counter-offers); anything else raises `ValueError`."""
    if text is None or not text.strip():
        return list(KNOWN_PROTOCOL_VERSIONS)
    out: list[str] = []
    for part in text.split(","):
        revision = part.strip()
        if not revision:
            continue
        try:
            if len(revision) != 10:
                raise ValueError(revision)
            datetime.date.fromisoformat(revision)
        except ValueError:
            known = ", ".join(KNOWN_PROTOCOL_VERSIONS)
            raise ValueError(
                f"{revision!r} is not a protocol revision (YYYY-MM-DD; known: {known})"
            ) from None
        if revision not in out:
            out.append(revision)
    if not out:
        raise ValueError("no revision given")
    return out


def declared_lists(capabilities: Any) -> list[tuple[str, str]]:
    """The (method, item key) of every list the server declared a capability for, in probe order."""
    if not isinstance(capabilities, dict):
        return []
    return [(method, key) for cap, method, key in PROBE_LISTS if capabilities.get(cap) is not None]


def next_cursor(response: dict[str, Any] | None) -> str | None:
    """The `nextCursor` of a list page, if the server gave one."""
    result = (response or {}).get("result")
    cursor = result.get("nextCursor") if isinstance(result, dict) else None
    return cursor if isinstance(cursor, str) and cursor else None


@dataclass
class ReplayStep:
    """A client request of a recorded session, replayed against each revision, and the server's recorded answer (None: never answered)."""

    method: str
    params: Any
    response: dict[str, Any] | None


def replay_steps(rows: Iterable[Message]) -> list[ReplayStep]:
    """The client's requests in order, each with its answer."""
    requests: dict[int, ReplayStep] = {}
    order: list[ReplayStep] = []
    for m in rows:
        if m.direction == "c2s" and m.kind == "request":
            doc = _load(m.body)
            if isinstance(doc, dict):
                x = ReplayStep(str(doc.get("method")), doc.get("params"), None)
                requests[m.seq] = x
                order.append(x)
        elif m.direction == "s2c" and m.kind in ("response", "error") and m.answers_seq in requests:
            doc = _load(m.body)
            if isinstance(doc, dict):
                requests[m.answers_seq].response = doc
    return order


def _load(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _error_text(response: dict[str, Any] | None) -> str | None:
    if response is None:
        return "no answer"
    err = response.get("error")
    if isinstance(err, dict):
        return f"{err.get('code')} {err.get('message', '')}".strip()
    return None


@dataclass
class Column:
    """What the server did under one revision."""

    revision: str
    session_id: int | None
    handshake: str
    outcome: str = "failed"  # accepted | counter-offer | refused | failed
    negotiated: str | None = None
    supported_versions: list[str] | None = None
    error: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, str] = field(default_factory=dict)
    lists: dict[str, str | int] = field(default_factory=dict)  # method -> items, or why not
    fields: Counter[str] = field(default_factory=Counter)
    replayed: list[tuple[str, str]] = field(default_factory=list)  # (method, outcome)
    errors: dict[str, str] = field(default_factory=dict)  # method -> error texts
    findings: Counter[str] = field(default_factory=Counter)  # "severity: rule" -> count (inspector.lint)

    def to_json(self) -> dict[str, Any]:
        """The per-revision summary of the JSON matrix (`session_id` links the recording)."""
        return {
            "revision": self.revision,
            "session_id": self.session_id,
            "handshake": self.handshake,
            "outcome": self.outcome,
            "negotiated": self.negotiated,
            "supported_versions": self.supported_versions,
            "error": self.error,
        }


def column_of(
    revision: str, session_id: int | None, rows: Iterable[Message], end_reason: str | None = None
) -> Column:
    """Read one probe session back into its column."""
    rows = list(rows)
    exchanges = replay_steps(rows)
    handshake = "server/discover" if revision in MODERN_PROTOCOL_VERSIONS else "initialize"
    col = Column(revision, session_id, handshake)
    first = exchanges[0] if exchanges and exchanges[0].method in HANDSHAKE_METHODS else None
    result = (first.response or {}).get("result") if first is not None else None
    if first is not None and first.response is not None and not isinstance(result, dict):
        col.handshake, col.outcome, col.error = first.method, "refused", _error_text(first.response)
        return col
    if first is None or not isinstance(result, dict):
        col.error = (end_reason or "the server could not be reached") + _stderr_tail(rows)
        return col
    col.handshake = first.method
    _read_handshake(col, first.method, result)
    for x in exchanges[1:]:
        error = _error_text(x.response)
        if error is not None:
            col.errors[x.method] = "; ".join(filter(None, [col.errors.get(x.method), error]))
    rest = _read_lists(col, result.get("capabilities"), exchanges[1:])
    for x in rest:
        col.replayed.append((x.method, _replay_outcome(x.response)))
        if x.response is not None and isinstance(x.response.get("result"), dict):
            col.fields.update(
                {f"replay {x.method} {p}": n for p, n in field_paths(x.response["result"]).items()}
            )
    return col


def _stderr_tail(rows: Sequence[Message]) -> str:
    """The server's last stderr line, which usually says why it did not answer."""
    lines = [m.raw_text() or "" for m in rows if m.channel == "stderr"]
    last = next((line.strip() for line in reversed(lines) if line.strip()), None)
    return f" (server stderr: {last[:300]})" if last else ""


def _read_handshake(col: Column, method: str, result: dict[str, Any]) -> None:
    if method == "initialize":
        version = result.get("protocolVersion")
        col.negotiated = version if isinstance(version, str) else None
        col.outcome = "accepted" if col.negotiated == col.revision else "counter-offer"
        info = result.get("serverInfo")
    else:
        versions = result.get("supportedVersions")
        col.supported_versions = (
            [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []
        )
        accepted = col.revision in col.supported_versions
        col.negotiated = col.revision if accepted else None
        col.outcome = "accepted" if accepted else "counter-offer"
        meta = result.get("_meta")
        info = meta.get(mcp_types.SERVER_INFO_META_KEY) if isinstance(meta, dict) else None
    col.server_info = info if isinstance(info, dict) else {}
    col.capabilities = flatten_capabilities(result.get("capabilities"))
    shallow = {k: ({} if k == "capabilities" else v) for k, v in result.items()}
    col.fields.update({f"{method} {p}": n for p, n in field_paths(shallow).items()})


def _read_lists(col: Column, capabilities: Any, exchanges: Sequence[ReplayStep]) -> list[ReplayStep]:
    """Consume the probe's list pages (as the probe sent them); return what follows (the replay)."""
    declared = dict(declared_lists(capabilities))
    for _cap, method, _key in PROBE_LISTS:
        if method not in declared:
            col.lists[method] = "not declared"
    i = 0
    for method, key in declared.items():
        items: int | str = 0
        pages = 0
        while i < len(exchanges) and exchanges[i].method == method and pages < MAX_PAGES:
            x = exchanges[i]
            i += 1
            pages += 1
            error = _error_text(x.response)
            if error is not None:
                items = f"error {error}"
                break
            result = (x.response or {}).get("result") or {}
            found = result.get(key)
            if isinstance(items, int) and isinstance(found, list):
                items += len(found)
            col.fields.update({f"{method} {p}": n for p, n in field_paths(result).items()})
            if next_cursor(x.response) is None:
                break
        col.lists[method] = items if pages else "not probed"
    return list(exchanges[i:])


def _replay_outcome(response: dict[str, Any] | None) -> str:
    error = _error_text(response)
    if error is not None:
        return f"error {error}" if response is not None else error
    result = (response or {}).get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return "ok (isError)"
    return "ok"


def _row(section: str, key: str, values: dict[str, Any], compare: Sequence[str]) -> dict[str, Any]:
    seen = {orjson.dumps(values.get(r)) for r in compare}
    return {"section": section, "key": key, "values": values, "differs": len(seen) > 1}


def build_matrix(columns: Sequence[Column], *, run: str | None = None, target: Any = None) -> dict[str, Any]:
    """The matrix as one JSON document: `columns` (per revision) and `rows` (per fact)."""
    revs = [c.revision for c in columns]
    answered = [c for c in columns if c.outcome in ANSWERED]
    among = [c.revision for c in answered]
    rows: list[dict[str, Any]] = []

    def add(section: str, key: str, get: Any, compare: Sequence[str] = among) -> None:
        values = {c.revision: (get(c) if c.outcome in ANSWERED else None) for c in columns}
        rows.append(_row(section, key, values, compare))

    rows.append(_row("negotiation", "handshake", {c.revision: c.handshake for c in columns}, revs))
    rows.append(_row("negotiation", "outcome", {c.revision: c.outcome for c in columns}, revs))
    rows.append(_row("negotiation", "negotiated", {c.revision: c.negotiated for c in columns}, revs))
    if any(c.supported_versions is not None for c in columns):
        values = {
            c.revision: ", ".join(c.supported_versions) if c.supported_versions else None for c in columns
        }
        rows.append(_row("negotiation", "supported versions", values, revs))
    rows.append(_row("negotiation", "error", {c.revision: c.error for c in columns}, revs))
    for key in _union(c.server_info for c in answered):
        add("server", f"serverInfo.{key}", lambda c, k=key: _scalar(c.server_info.get(k)))
    for key in _union(c.capabilities for c in answered):
        add("capabilities", key, lambda c, k=key: c.capabilities.get(k))
    for _cap, method, _key in PROBE_LISTS:
        add("items", method, lambda c, m=method: c.lists.get(m))
    for key in sorted(_union(c.fields for c in answered)):
        add("fields", key, lambda c, k=key: c.fields.get(k))
    longest = max((len(c.replayed) for c in answered), default=0)
    for i in range(longest):
        method = next(c.replayed[i][0] for c in answered if i < len(c.replayed))
        add("replay", f"{i + 1}. {method}", lambda c, i=i: c.replayed[i][1] if i < len(c.replayed) else None)
    for key in _union(c.errors for c in answered):
        add("errors", key, lambda c, k=key: c.errors.get(k))
    for severity in ("error", "warning"):
        add("conformance", f"{severity}s", lambda c, s=severity: _count(c.findings, f"{s}: "))
    for key in sorted(_union(c.findings for c in answered)):
        add("conformance", key, lambda c, k=key: c.findings.get(k, 0))
    return {
        "run": run,
        "target": target,
        "revisions": revs,
        "columns": [c.to_json() for c in columns],
        "rows": rows,
    }


def _count(findings: Counter[str], prefix: str) -> int:
    return sum(n for key, n in findings.items() if key.startswith(prefix))


def _union(dicts: Iterable[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for d in dicts:
        for key in d:
            seen.setdefault(str(key), None)
    return list(seen)


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return orjson.dumps(value).decode()
