"""A self-contained HTML report of sessions: one file, inline CSS and a few lines of inline JS, no network.

For a bug report: per session its facts, the lint findings, the request/answer
pairs with latency and outcome, the timeline of every message (body folded in
a `<details>`, long bodies cut at `BODY_LIMIT` bytes with the count of what
was left out), and for a replay the behaviour diff against the session it
replayed (`diff_sessions`, the defaults of `mcp-inspect diff`). Everything is
rendered on the server side into escaped HTML, so the report reads without
JavaScript; the script only filters the timeline. A Content-Security-Policy
meta tag forbids every load but the inline style and script.

`render_*` are pure (dicts and records in, HTML text out); `report_chunks`
reads the store a session at a time.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import Engine

from inspector import __version__
from inspector.errors import NotFoundError
from inspector.lint.check import check_rows
from inspector.lint.findings import Finding
from inspector.protocol.json_depth import loads as bounded_loads
from inspector.protocol.sse import stored_body
from inspector.replay.compared import ms_text, runs_compared
from inspector.replay.diff import SessionDiff, default_ignore, diff_sessions
from inspector.store.models import Session
from inspector.store.queries import get_session, iter_messages, iter_rows

__all__ = ["BODY_LIMIT", "render_diff", "render_session", "report_chunks", "report_html"]

BODY_LIMIT = 16_384

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d1d1f;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.05em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0;width:100%}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.facts{width:auto}table.facts th{width:12em}
pre{margin:.3em 0;white-space:pre-wrap;word-break:break-all;font-size:12px;background:#f8f8fa;padding:.4em}
.c2s{color:#0b5cad}.s2c{color:#7a3e9d}.error{color:#b00020}.warning{color:#a15c00}.info{color:#555}
.badge{display:inline-block;border-radius:3px;padding:0 .35em;font-size:11px;border:1px solid currentColor}
.equal{color:#2e7d32}.changed{color:#b00020}.missing{color:#a15c00}.extra{color:#0b5cad}
.muted{color:#777}input[type=search]{width:20em;padding:.2em}
"""

_JS = """
document.querySelectorAll('input[data-filter]').forEach(function (box) {
  box.addEventListener('input', function () {
    var want = box.value.toLowerCase();
    document.querySelectorAll('#' + box.dataset.filter + ' tbody tr').forEach(function (tr) {
      tr.hidden = want !== '' && tr.textContent.toLowerCase().indexOf(want) < 0;
    });
  });
});
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _time(ns: int | None) -> str:
    if not ns:
        return ""
    return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()


def _body(channel: str, raw: bytes) -> str:
    data = stored_body(channel, raw)
    cut = len(data) - BODY_LIMIT
    shown = data[:BODY_LIMIT]
    try:
        text = _json_text(bounded_loads(shown)) if cut <= 0 else shown.decode("utf-8", "replace")
    except orjson.JSONDecodeError:
        text = shown.decode("utf-8", "replace")
    if cut > 0:
        text += f"\n… {cut:,} more bytes not shown"
    return text


def _facts(session: Mapping[str, Any]) -> str:
    started, ended = session.get("started_ns"), session.get("ended_ns")
    duration = f"{(ended - started) / 1e9:.3f} s" if started and ended else ""
    rows = [
        ("Session", f"#{session.get('id')}" + (f" {session['name']}" if session.get("name") else "")),
        ("Kind", session.get("kind")),
        ("Target", session.get("target") if isinstance(session.get("target"), str) else _json_compact(session.get("target"))),
        ("Status", session.get("status")),
        ("Started", _time(started)),
        ("Ended", _time(ended)),
        ("Duration", duration),
        ("End reason", session.get("end_reason")),
        ("Protocol version", session.get("protocol_version")),
        ("Offered version", session.get("offered_version")),
        ("Era", session.get("era")),
        ("Client", _info(session.get("client_info"))),
        ("Server", _info(session.get("server_info"))),
        ("Messages", session.get("message_count")),
    ]  # fmt: skip
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows if v not in (None, ""))
    return f'<table class="facts">{body}</table>'


def _json_compact(value: Any) -> str:
    return "" if value is None else orjson.dumps(value).decode()


def _info(info: Any) -> str:
    if not isinstance(info, dict):
        return ""
    return " ".join(str(info[k]) for k in ("name", "version") if info.get(k))


def _findings(findings: Sequence[Finding]) -> str:
    if not findings:
        return '<p class="muted">No lint findings.</p>'
    rows = "".join(
        f'<tr><td class="num">{f.seq}</td><td class="{_e(f.severity)}">{_e(f.severity)}</td>'
        f"<td>{_e(f.rule)}</td><td>{_e(f.explanation)}</td><td>{_e(f.spec_section)}</td></tr>"
        for f in findings
    )
    return (
        '<table class="findings"><thead><tr><th>Seq</th><th>Severity</th><th>Rule</th>'
        f"<th>Explanation</th><th>Spec</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _pairs(rows: Sequence[Mapping[str, Any]]) -> str:
    answers = {r["answers_seq"]: r for r in rows if r.get("answers_seq") is not None}
    out = []
    for r in rows:
        if r["kind"] != "request":
            continue
        answer = answers.get(r["seq"])
        if answer is None:
            outcome, latency, answer_seq = '<span class="warning">no answer</span>', "", ""
        else:
            outcome = (
                f'<span class="error">error {_e(answer.get("error_code"))}</span>'
                if answer["kind"] == "error"
                else "result"
            )
            latency = f"{answer['latency_ns'] / 1e6:.1f}" if answer.get("latency_ns") is not None else ""
            answer_seq = str(answer["seq"])
        out.append(
            f'<tr><td class="num">{r["seq"]}</td><td class="{_e(r["direction"])}">{_e(r["direction"])}</td>'
            f"<td>{_e(r.get('method'))}</td><td>{_e(r.get('rpc_id'))}</td>"
            f'<td class="num">{answer_seq}</td><td class="num">{latency}</td><td>{outcome}</td></tr>'
        )
    if not out:
        return '<p class="muted">No requests.</p>'
    return (
        '<table class="pairs"><thead><tr><th>Seq</th><th>Dir</th><th>Method</th><th>Id</th>'
        "<th>Answer seq</th><th>Latency ms</th><th>Outcome</th></tr></thead>"
        f"<tbody>{''.join(out)}</tbody></table>"
    )


def _timeline_row(r: Mapping[str, Any], start: int, flagged: Mapping[int, list[Finding]]) -> str:
    offset = (r["ts_ns"] - start) / 1e6
    badges = "".join(
        f' <span class="badge {_e(f.severity)}">{_e(f.rule)}</span>' for f in flagged.get(r["seq"], ())
    )
    arrow = "→" if r["direction"] == "c2s" else "←"
    http = " ".join(str(v) for v in (r.get("http_method"), r.get("http_path"), r.get("http_status")) if v)
    what = r.get("method") or (r["kind"] if r["kind"] != "http" else http)
    body = _body(r["channel"], bytes(r["raw"]))
    folded = f"<details><summary>{_e(what)}</summary><pre>{_e(body)}</pre></details>" if body else _e(what)
    return (
        f'<tr><td class="num">{r["seq"]}</td><td class="num">{offset:.1f}</td>'
        f'<td class="{_e(r["direction"])}">{arrow} {_e(r["direction"])}</td><td>{_e(r["channel"])}</td>'
        f"<td>{_e(r['kind'])}</td><td>{folded}{badges}</td><td>{_e(r.get('rpc_id'))}</td>"
        f'<td class="num">{r["size"]}</td></tr>'
    )


def _compared(summary: Mapping[str, Any]) -> str:
    """The runs-compared summary (`replay.compared.runs_compared`): buckets, then latency per method."""
    buckets = ", ".join(f'<span class="{_e(k)}">{v} {_e(k)}</span>' for k, v in summary["buckets"].items())
    rows = "".join(
        f"<tr><td>{_e(r['method']) if r['name'] is None else '&nbsp;&nbsp;' + _e(r['name'])}</td>"
        + "".join(
            f'<td class="num">{ms_text(r[k], k.endswith("delta_ms"))}</td>'
            for k in ("a_p50_ms", "b_p50_ms", "p50_delta_ms", "a_p95_ms", "b_p95_ms", "p95_delta_ms")
        )
        + "</tr>"
        for r in summary["latency"]
    )
    table = (
        '<table class="latency"><thead><tr><th>Method / name</th><th>p50 a (ms)</th><th>p50 b</th>'
        "<th>Delta</th><th>p95 a</th><th>p95 b</th><th>Delta</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if rows
        else ""
    )
    return f"<p>Runs compared: {buckets}.</p>{table}"


def render_diff(
    diff: SessionDiff, a: Mapping[str, Any], b: Mapping[str, Any], summary: Mapping[str, Any] | None = None
) -> str:
    """The diff section: the runs-compared `summary` when given, the counts, then each exchange
    (its status and bucket) with its changes (path, kind, before, after)."""
    counts = diff.counts()
    head = (_compared(summary) if summary is not None else "") + (
        f"<p>Original #{_e(a.get('id'))} against replay #{_e(b.get('id'))}: "
        + ", ".join(f'<span class="{k}">{v} {k}</span>' for k, v in counts.items())
        + (". <strong>Behaviour changed.</strong>" if diff.changed else ". No behaviour change.")
        + "</p>"
    )
    rows = []
    for x in diff.exchanges:
        changes = "".join(
            f"<tr><td>{_e(c.path)}</td><td>{_e(c.kind)}{' (volatile)' if c.volatile else ''}</td>"
            f"<td><pre>{_e(_json_text(c.before))}</pre></td><td><pre>{_e(_json_text(c.after))}</pre></td></tr>"
            for c in x.changes
        )
        detail = (
            f'<table class="changes"><thead><tr><th>Path</th><th>Change</th><th>Before</th>'
            f"<th>After</th></tr></thead><tbody>{changes}</tbody></table>"
            if changes
            else ""
        )
        bucket = f" ({_e(x.bucket)})" if x.bucket in ("regressed", "fixed") else ""
        rows.append(
            f'<tr class="exchange"><td class="{_e(x.status)}">{_e(x.status)}{bucket}</td><td>{_e(x.method)}</td>'
            f'<td>{_e(x.summary)}</td><td class="num">{_e(x.original_seq)}</td>'
            f'<td class="num">{_e(x.replay_seq)}</td><td>{detail}</td></tr>'
        )
    return (
        head + '<table class="diff"><thead><tr><th>Status</th><th>Method</th><th>Summary</th>'
        "<th>Original seq</th><th>Replay seq</th><th>Changes</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def render_session(
    session: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], findings: Sequence[Finding]
) -> Iterator[str]:
    """A session's section, in pieces (the timeline a row at a time)."""
    ref = f"s{session.get('id')}"
    title = f"Session #{session.get('id')}" + (f" {session['name']}" if session.get("name") else "")
    yield f'<section class="session" id="{_e(ref)}"><h2>{_e(title)}</h2>'
    yield "<h3>Facts</h3>" + _facts(session)
    yield f"<h3>Lint findings ({len(findings)})</h3>" + _findings(findings)
    yield "<h3>Pairs</h3>" + _pairs(rows)
    yield (
        f'<h3>Timeline ({len(rows)} messages)</h3><p><input type="search" placeholder="filter the timeline" '
        f'data-filter="{_e(ref)}-timeline"></p><table class="timeline" id="{_e(ref)}-timeline"><thead><tr>'
        "<th>Seq</th><th>+ms</th><th>Dir</th><th>Channel</th><th>Kind</th><th>Message</th><th>Id</th>"
        "<th>Bytes</th></tr></thead><tbody>"
    )
    flagged: dict[int, list[Finding]] = {}
    for f in findings:
        flagged.setdefault(f.seq, []).append(f)
    start = rows[0]["ts_ns"] if rows else 0
    for r in rows:
        yield _timeline_row(r, start, flagged)
    yield "</tbody></table>"


def _page_head(title: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f'<meta name="generator" content="mcp-inspector {_e(__version__)}">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
        f'<p class="muted">Written by mcp-inspector {_e(__version__)} on {_e(_time(_now()))}. '
        "Secrets are shown as the recording holds them: placeholders.</p>"
    )


def _now() -> int:
    import time

    return time.time_ns()


_PAGE_END = f"<script>{_JS}</script></body></html>\n"


def _diff_of(engine: Engine, a: Session, b: Session) -> SessionDiff:
    assert a.id is not None and b.id is not None
    return diff_sessions(
        list(iter_messages(engine, a.id)), list(iter_messages(engine, b.id)), ignore=default_ignore()
    )


def _diff_section(engine: Engine, a: Session, b: Session) -> str:
    assert a.id is not None and b.id is not None
    diff = _diff_of(engine, a, b)
    return render_diff(diff, a.to_json(), b.to_json(), runs_compared(engine, diff, a.id, b.id))


def report_chunks(
    engine: Engine, sessions: Sequence[Session], *, diff: tuple[Session, Session] | None = None
) -> tuple[Iterator[bytes], int]:
    """The report's bytes (a session at a time) and the number of messages it shows.

    A replay session (with the session it replayed still stored) gets its diff; `diff` adds the diff
    of two given sessions at the top (the diff view's export)."""
    counts = sum(s.message_count or 0 for s in sessions)

    def chunks() -> Iterator[bytes]:
        if diff is not None:
            a, b = diff
            title = f"Diff of sessions #{a.id} and #{b.id}"
        elif len(sessions) == 1:
            s = sessions[0]
            title = f"MCP session #{s.id}" + (f" {s.name}" if s.name else "")
        else:
            title = f"MCP sessions {', '.join(f'#{s.id}' for s in sessions)}"
        yield _page_head(title).encode()
        if diff is not None:
            a, b = diff
            yield ("<h2>Diff</h2>" + _diff_section(engine, a, b)).encode()
        for s in sessions:
            assert s.id is not None
            rows = list(iter_rows(engine, s.id))
            findings = check_rows(rows)
            for piece in render_session(s.to_json(), rows, findings):
                yield piece.encode()
            if s.kind == "replay" and s.parent_id is not None and diff is None:
                try:
                    parent = get_session(engine, s.parent_id)
                except NotFoundError:  # the original was deleted: no diff to show
                    parent = None
                if parent is not None:
                    section = _diff_section(engine, parent, s)
                    yield f"<h3>Diff against the original #{parent.id}</h3>{section}".encode()
            yield b"</section>"
        yield _PAGE_END.encode()

    return chunks(), counts


def report_html(engine: Engine, sessions: Iterable[Session], **kw: Any) -> bytes:
    """The whole report as bytes (tests, small sessions)."""
    chunks, _ = report_chunks(engine, list(sessions), **kw)
    return b"".join(chunks)
