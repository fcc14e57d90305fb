"""Golden lint findings: sessions under `tests/` and their expected findings, checked in.

`tests/unit/lint_golden/*.json` hold recorded sessions (the rows the recorder's builder made for
the rule cases, clean sessions, the benchmark's generated session, and made-up sessions of every
mix the lint must tell apart) with the findings the lint gave for them when they were written.
`tests/unit/test_lint_golden.py` lints them again and compares. `python -m tests.lint_golden`
writes the files again (after a deliberate change of what the lint finds: review the diff).
"""

from __future__ import annotations

import base64
import copy
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from inspector.lint.check import check_rows
from inspector.store import schema
from inspector.store.models import StoredRow

GOLDEN = Path(__file__).parent / "unit" / "lint_golden"

Rows = list[dict[str, Any]]


def _encode(value: Any) -> Any:
    """Bytes as JSON: text when they are UTF-8, else base64."""
    if isinstance(value, bytes):
        try:
            return {"$utf8": value.decode()}
        except UnicodeDecodeError:
            return {"$bytes": base64.b64encode(value).decode()}
    raise TypeError(type(value))


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$bytes"}:
            return base64.b64decode(value["$bytes"])
        if set(value) == {"$utf8"}:
            return value["$utf8"].encode()
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _columns() -> tuple[str, ...]:

    return tuple(c.name for c in schema.message.columns)


def _written(row: dict[str, Any]) -> dict[str, Any]:
    """A row without its empty columns (`_read` puts them back)."""
    return {k: v for k, v in row.items() if v is not None}


def _read(row: dict[str, Any]) -> dict[str, Any]:
    return {**dict.fromkeys(_columns()), **_decode(row)}


def findings(rows: Rows) -> list[dict[str, Any]]:
    """The lint's findings of `rows` (a copy: the lint never sees the golden rows themselves)."""
    stored = typing.cast(list[StoredRow], copy.deepcopy(rows))
    return [f.to_json() for f in check_rows(stored)]


def load(name: str) -> dict[str, dict[str, Any]]:
    """The sessions of one golden file: name -> {"rows": [...], "findings": [...]}."""
    data = orjson.loads((GOLDEN / f"{name}.json").read_bytes())
    return {
        key: {"rows": [_read(r) for r in s["rows"]] if "rows" in s else None, "findings": s["findings"]}
        for key, s in data.items()
    }


def write(name: str, sessions: dict[str, Rows]) -> None:
    """Lint `sessions` and write them with their findings to the golden file `name` (the rows too,
    unless `name` is in `MADE_AGAIN`: made again by the test)."""
    GOLDEN.mkdir(exist_ok=True)
    out: dict[str, Any] = {}
    for key, rows in sessions.items():
        out[key] = {"findings": findings(rows)}
        if name not in MADE_AGAIN:
            out[key]["rows"] = [_written(r) for r in rows]
    (GOLDEN / f"{name}.json").write_bytes(
        orjson.dumps(out, default=_encode, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
    )


def rule_cases() -> dict[str, Rows]:
    from tests.unit.test_lint_rules import CASES

    return {rule_id: CASES[rule_id]()[0] for rule_id in sorted(CASES)}


def clean_sessions() -> dict[str, Rows]:
    """Sessions that keep every rule: each revision over stdio and HTTP, an OAuth flow, 2026 wire."""
    from tests.lint_auth_recordings import good_flow
    from tests.lint_recordings import Http, Stdio, notification, request, result
    from tests.lint_wire_recordings import clean

    out: dict[str, Rows] = {}
    caps = {"tools": {"listChanged": True}, "logging": {}, "prompts": {}, "resources": {"subscribe": True}}
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        s = Stdio().handshake(version, client={"roots": {"listChanged": True}}, server=caps)
        s.send("c2s", request(1, "tools/list"))
        s.send("s2c", result(1, {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}))
        s.send(
            "c2s",
            request(2, "tools/call", {"name": "echo", "arguments": {"m": 1}, "_meta": {"progressToken": 2}}),
        )
        s.send("s2c", notification("notifications/progress", {"progressToken": 2, "progress": 1, "total": 2}))
        s.send("s2c", notification("notifications/message", {"level": "info", "data": "x"}))
        s.send("s2c", result(2, {"content": [{"type": "text", "text": "x" * 600}], "isError": False}))
        s.send("s2c", notification("notifications/tools/list_changed"))
        s.send("c2s", request(3, "resources/subscribe", {"uri": "file:///a"}))
        s.send("s2c", result(3, {}))
        s.send("s2c", request(1, "roots/list"))
        s.send("c2s", result(1, {"roots": []}))
        s.send("c2s", notification("notifications/roots/list_changed"))
        out[f"stdio-{version}"] = s.rows
        h = Http().handshake(version if version != "2024-11-05" else "2025-03-26")
        h.post(request(1, "tools/list"), Http.headers(version), answer=result(1, {"tools": []}))
        out[f"http-{version}"] = h.rows
    flow, _ = good_flow()
    out["oauth-2025-11-25"] = flow.rows
    out["wire-2026-07-28"] = clean().rows
    return out


def bench_session() -> dict[str, Rows]:
    """The benchmark's generated session (`bench.scale_lint`), 3,000 rows."""
    import tempfile

    from bench.scale_lint import generate_session
    from inspector.store import open_engine
    from inspector.store.queries import iter_rows

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "b.db"
        sid = generate_session(db, 3_000, name="bench")
        engine = open_engine(db)
        try:
            rows = [dict(r) for r in iter_rows(engine, sid)]
        finally:
            engine.dispose()
    for row in rows:
        row.pop("lint", None)  # what the writer's lint pass would store
    return {"bench-3000": typing.cast(Rows, rows)}


def made_up_sessions(count: int = 120) -> dict[str, Rows]:
    """Sessions drawn from `tests.unit.test_lint_made_up.sessions` (handshakes of every revision or
    none, repeated and orphan ids, valid and broken shapes, per-request versions, undeclared
    capabilities, batches, stderr lines, bad bytes)."""
    import warnings

    from hypothesis.errors import NonInteractiveExampleWarning

    from tests.unit.test_lint_made_up import sessions

    out: dict[str, Rows] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        while len(out) < count:
            rows = sessions().example()
            if len(rows) >= 5:
                out[f"made-up-{len(out):03d}"] = rows
    return out


# Golden files without their rows: the sessions are made again, the same each time (`bench.scale_lint`).
MADE_AGAIN = frozenset({"bench"})

FILES: dict[str, Callable[[], dict[str, Rows]]] = {
    "rule_cases": rule_cases,
    "clean": clean_sessions,
    "bench": bench_session,
    "made_up": made_up_sessions,
}


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:] or FILES:
        write(name, FILES[name]())
        print(f"wrote {GOLDEN / name}.json")
