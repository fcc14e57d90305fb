"""A session's numbers: per method and per tool / prompt / resource name, how many calls, how many
failed, how long they took (nearest-rank p50 / p95 and the max), how many bytes went each way; and
what its server's `tools/list` costs a model. `mcp-inspect stats`, `GET /api/sessions/{id}/stats`
and the UI's Overview tab all show this one computation.

The numbers are one SQL statement over the `message` table (SQLite and PostgreSQL): the recorder
already paired each answer with its request (`answers_seq`, `latency_ns`, and the request's
`method` on the answer), so a call is its request row and its answer row grouped by the request's
seq (one sort, no join: a join of the two sides costs SQLite a scan per row). Read this way:

- `count`: the requests (and notifications) of a method; a request never answered counts, with no
  latency; `errors`: its error responses, and for `tools/call` its results with `isError: true`;
- `p50_ms`, `p95_ms`, `max_ms`: nearest-rank percentiles of the answered calls' latencies (the
  ceil(p/100 * n)-th smallest of n), None when none was answered;
- a request answered more than once (an intercepted answer replaced by the inspector, a server's
  duplicate) has one answer: the last one recorded (what the client got, for a replaced answer);
- `bytes_in`: the requests' (notifications') bytes, `bytes_out`: their answers' bytes (the
  direction of the call: into whoever answers it, out of it), `bytes`: both;
- the `name` of a `tools/call` or `prompts/get` is its `params.name`, of a `resources/read` its
  `params.uri`: one row per method with `name` None, then one per name.

The name and `isError` are read from the JSON in `message.raw` (an SSE row's `data:` line) inside
the query. A body stored out of line (`store.bodies`: `raw` holds only its head) is read whole in
Python first, for those rows only, and handed to the query as a JSON parameter.

Batches (`kind` `batch`) are not broken up: their items count under no method.

`tools_list` (issue #39 item 4) reads the session's `tools/list` answers: each result's size, and,
for the last complete listing (its pages, from a request without a cursor), every tool's size as
compact JSON (name, description, schemas) in bytes and in estimated tokens (`estimate_tokens`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from inspector.store import bodies
from inspector.store.db import Conn, reading

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from inspector.store.db import Db

__all__ = [
    "BYTES_PER_TOKEN",
    "NAMED",
    "estimate_tokens",
    "session_stats",
    "tool_sizes",
    "tools_list",
]

# The methods whose calls are also counted per name, and where the name is.
NAMED: dict[str, str] = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

# Tokens are estimated, not counted: a model's tokenizer is not something the inspector can ship for
# every model (tiktoken's encodings are downloaded on first use, not in its wheel), and for JSON and
# English prose about four bytes make one token in the tokenizers in use (OpenAI's o200k_base,
# Anthropic's). `estimate_tokens` is ceil(bytes / 4): good to within a few tens of percent.
BYTES_PER_TOKEN = 4


def estimate_tokens(size: int) -> int:
    """The estimated tokens of `size` bytes of JSON or prose: ceil(size / BYTES_PER_TOKEN)."""
    return -(-size // BYTES_PER_TOKEN)


def _body_sql(backend: str) -> tuple[str, str, str]:
    """The SQL of (a row's JSON-RPC text, the condition under which it is JSON, and the JSON
    value of a path in it) for `backend`; the text is named `t` in the path expression."""
    if backend == "sqlite":
        text = (
            "CASE WHEN channel = 'sse' AND substr(ltrim(CAST(raw AS TEXT)), 1, 1) NOT IN ('{', '[') "
            "THEN substr(CAST(raw AS TEXT), instr(CAST(raw AS TEXT), 'data:') + 5) "
            "ELSE CAST(raw AS TEXT) END"
        )
        return (
            text,
            "parse_status = 'ok' AND body_sha256 IS NULL AND json_valid(t)",
            "json_extract(t, '$.{path}')",
        )
    # PostgreSQL 15 has no `IS JSON`: the cast is only reached for a row whose body parsed
    # (`parse_status`), kept inline, and (an SSE row) whose `data:` line is the last line of the
    # event, which is then its whole body. (An SSE row framed otherwise gives no name, on SQLite too:
    # what follows its `data:` line is not JSON.)
    utf8 = "convert_from(raw, 'UTF8')"
    text = (
        f"CASE WHEN channel = 'sse' AND left(ltrim({utf8}), 1) NOT IN ('{{', '[') "
        f"THEN substr({utf8}, position('data:' in {utf8}) + 5) ELSE {utf8} END"
    )
    rest = "rtrim(t, E' \\r\\n\\t')"
    ok = (
        "parse_status = 'ok' AND body_sha256 IS NULL AND (channel <> 'sse' OR (left(ltrim(t), 1) IN ('{', '[') "
        f"AND position(E'\\n' in {rest}) = 0 AND position(E'\\r' in {rest}) = 0))"
    )
    return text, ok, "(t::json #>> '{{{path_pg}}}')"


def _path(expr: str, path: str) -> str:
    return expr.format(path=path, path_pg=path.replace(".", ","))


def _fixes_sql(backend: str) -> str:
    """The rows whose bodies Python read (out of line): `:fixes`, a JSON array of [seq, name, is_error]."""
    if backend == "sqlite":
        return (
            "SELECT json_extract(value, '$[0]') AS seq, json_extract(value, '$[1]') AS name, "
            "json_extract(value, '$[2]') AS is_error FROM json_each(:fixes)"
        )
    return (
        "SELECT (value ->> 0)::bigint AS seq, value ->> 1 AS name, (value ->> 2)::int AS is_error "
        "FROM json_array_elements(CAST(:fixes AS json)) AS value"
    )


def _calls_sql(backend: str) -> str:
    """The `WITH` of every statement here, ending in `calls`: one row per request or notification
    (its seq, time, method, name) with its one answer (its seq, latency, size, whether it failed)."""
    text, ok, value = _body_sql(backend)
    named_in = ", ".join(f"'{m}'" for m in NAMED)
    name_expr = " ".join(
        f"WHEN method = '{m}' THEN {_path(value, 'params.' + key)}" for m, key in NAMED.items()
    )
    true = "1" if backend == "sqlite" else "'true'"
    return f"""
WITH fixes AS ({_fixes_sql(backend)}),
texts AS (
  SELECT seq, ts_ns, kind, method, size, answers_seq, latency_ns, channel, parse_status, body_sha256,
         CASE WHEN (kind = 'request' AND method IN ({named_in}))
                OR (kind = 'response' AND method = 'tools/call') THEN {text} END AS t
  FROM message
  WHERE session_id = :sid AND kind IN ('request', 'notification', 'response', 'error')
),
rows AS (
  SELECT texts.seq, ts_ns, kind, method, size, answers_seq, latency_ns,
         CASE WHEN f.seq IS NOT NULL THEN f.name WHEN t IS NOT NULL AND {ok} THEN
           CASE WHEN kind = 'request' THEN CASE {name_expr} END END END AS name,
         CASE WHEN f.seq IS NOT NULL THEN f.is_error WHEN t IS NOT NULL AND {ok} AND kind = 'response' THEN
           CASE WHEN {_path(value, "result.isError")} = {true} THEN 1 ELSE 0 END END AS is_error
  FROM texts LEFT JOIN fixes f ON f.seq = texts.seq
),
keyed AS (
  SELECT CASE WHEN kind IN ('request', 'notification') THEN seq ELSE answers_seq END AS k,
         kind IN ('request', 'notification') AS asked,
         seq, ts_ns, kind, method, name, size, latency_ns, is_error,
         CASE WHEN kind IN ('response', 'error') THEN
           ROW_NUMBER() OVER (PARTITION BY answers_seq ORDER BY seq DESC) END AS nth
  FROM rows
  WHERE kind IN ('request', 'notification') OR answers_seq IS NOT NULL
),
calls AS (
  SELECT MAX(CASE WHEN asked THEN seq END) AS seq,
         MAX(CASE WHEN asked THEN ts_ns END) AS ts_ns,
         MAX(CASE WHEN NOT asked THEN seq END) AS answer_seq,
         MAX(CASE WHEN asked THEN method END) AS method,
         MAX(CASE WHEN asked AND method IN ({named_in}) THEN name END) AS name,
         SUM(CASE WHEN asked THEN size ELSE 0 END) AS bytes_in,
         SUM(CASE WHEN asked THEN 0 ELSE size END) AS bytes_out,
         MAX(CASE WHEN asked THEN NULL ELSE latency_ns END) AS latency_ns,
         MAX(CASE WHEN kind = 'error' THEN 1
                  WHEN kind = 'response' AND method = 'tools/call' AND is_error = 1 THEN 1
                  ELSE 0 END) AS failed,
         MAX(CASE WHEN asked THEN 1 ELSE 0 END) AS has_request
  FROM keyed WHERE nth IS NULL OR nth = 1
  GROUP BY k
  HAVING MAX(CASE WHEN asked THEN 1 ELSE 0 END) = 1
)
"""


def _stats_sql(backend: str) -> str:
    """The statement of the numbers: a row per method (name NULL) and per method and name."""
    return (
        _calls_sql(backend)
        + """,
levels AS (
  SELECT method, NULL AS name, bytes_in, bytes_out, latency_ns, failed FROM calls
  UNION ALL
  SELECT method, name, bytes_in, bytes_out, latency_ns, failed FROM calls WHERE name IS NOT NULL
),
ranked AS (
  SELECT method, name, latency_ns,
         ROW_NUMBER() OVER (PARTITION BY method, name ORDER BY latency_ns) AS rn,
         COUNT(*) OVER (PARTITION BY method, name) AS n
  FROM levels WHERE latency_ns IS NOT NULL
),
pct AS (
  SELECT method, name,
         MAX(CASE WHEN rn = (50 * n + 99) / 100 THEN latency_ns END) AS p50,
         MAX(CASE WHEN rn = (95 * n + 99) / 100 THEN latency_ns END) AS p95,
         MAX(latency_ns) AS mx
  FROM ranked GROUP BY method, name
),
totals AS (
  SELECT method, name, COUNT(*) AS count, SUM(failed) AS errors,
         SUM(bytes_in) AS bytes_in, SUM(bytes_out) AS bytes_out
  FROM levels GROUP BY method, name
)
SELECT totals.method, totals.name, totals.count, totals.errors, pct.p50, pct.p95, pct.mx,
       totals.bytes_in, totals.bytes_out
FROM totals LEFT JOIN pct ON pct.method = totals.method
  AND (pct.name = totals.name OR (pct.name IS NULL AND totals.name IS NULL))
ORDER BY totals.method, totals.name IS NOT NULL, totals.name
"""
    )


# The latency histogram's bucket edges, in milliseconds (a last bucket holds what is above).
HISTOGRAM_EDGES_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
TIME_BUCKETS = 40  # errors over time: the session's span in this many equal slices
SLOWEST = 10


def _histogram_sql(backend: str) -> str:
    cases = " ".join(f"WHEN latency_ns < {e * 1_000_000} THEN {i}" for i, e in enumerate(HISTOGRAM_EDGES_MS))
    return (
        _calls_sql(backend)
        + f"""
SELECT method, CASE {cases} ELSE {len(HISTOGRAM_EDGES_MS)} END AS bucket, COUNT(*)
FROM calls WHERE latency_ns IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
"""
    )


def _timeline_sql(backend: str) -> str:
    return (
        _calls_sql(backend)
        + f""",
span AS (SELECT MIN(ts_ns) AS lo, MAX(ts_ns) - MIN(ts_ns) + 1 AS width FROM calls)
SELECT (calls.ts_ns - span.lo) * {TIME_BUCKETS} / span.width AS bucket, COUNT(*), SUM(failed),
       MIN(span.lo), MIN(span.width)
FROM calls, span GROUP BY 1 ORDER BY 1
"""
    )


def _slowest_sql(backend: str) -> str:
    return (
        _calls_sql(backend)
        + f"""
SELECT seq, answer_seq, method, name, latency_ns, failed FROM calls
WHERE latency_ns IS NOT NULL ORDER BY latency_ns DESC, seq LIMIT {SLOWEST}
"""
    )


def _ms(ns: Any) -> float | None:
    return None if ns is None else round(int(ns) / 1e6, 3)


def _json_of(raw: bytes, channel: str) -> Any:
    from inspector.protocol.json_depth import loads
    from inspector.protocol.sse import stored_body

    try:  # a body nested past any recursion limit is read with its deep levels as text
        return loads(stored_body(channel, raw))
    except ValueError:
        return None


def _out_of_line(conn: Conn, session_id: int) -> list[list[Any]]:
    """[seq, name, is_error] of the rows the query reads a name or `isError` from whose body is
    stored out of line: read whole here."""
    named_in = ", ".join(f"'{m}'" for m in NAMED)
    rows = conn.rows(
        "SELECT seq, kind, method, channel, raw, body_sha256 FROM message WHERE session_id = :sid "
        f"AND body_sha256 IS NOT NULL AND ((kind = 'request' AND method IN ({named_in})) "
        "OR (kind = 'response' AND method = 'tools/call'))",
        {"sid": session_id},
    )
    bodies.fill(conn, rows)
    out: list[list[Any]] = []
    for r in rows:
        doc = _json_of(bytes(r["raw"]), r["channel"])
        if not isinstance(doc, dict):
            continue
        if r["kind"] == "request":
            params = doc.get("params")
            name = params.get(NAMED[r["method"]]) if isinstance(params, dict) else None
            out.append([r["seq"], name if isinstance(name, str) else None, None])
        else:
            result = doc.get("result")
            out.append([r["seq"], None, int(isinstance(result, dict) and result.get("isError") is True)])
    return out


def session_stats(store: Db | Engine, session_id: int, *, overview: bool = False) -> dict[str, Any]:
    """`{"methods": [...], "tools_list": ...}` of a session (see the module's docstring); with
    `overview`, what the UI's Overview tab draws too, from the same calls: `histogram` (answered
    calls per method by latency bucket), `timeline` (calls and failures per slice of the session's
    span) and `slowest` (the slowest answered calls)."""
    more: dict[str, Any] = {}
    with reading(store) as conn:
        fixes = _out_of_line(conn, session_id)
        params = {"sid": session_id, "fixes": json.dumps(fixes)}
        found = conn.all(_stats_sql(conn.backend), params)
        listing = tools_list(conn, session_id)
        if overview:
            more = _overview(conn, params)
    methods = [
        {
            "method": r[0],
            "name": r[1],
            "count": int(r[2]),
            "errors": int(r[3] or 0),
            "p50_ms": _ms(r[4]),
            "p95_ms": _ms(r[5]),
            "max_ms": _ms(r[6]),
            "bytes": int(r[7] or 0) + int(r[8] or 0),
            "bytes_in": int(r[7] or 0),
            "bytes_out": int(r[8] or 0),
        }
        for r in found
    ]
    return {"methods": methods, "tools_list": listing, **more}


def _overview(conn: Conn, params: dict[str, Any]) -> dict[str, Any]:
    histogram: dict[str, list[int]] = {}
    for method, bucket, n in conn.all(_histogram_sql(conn.backend), params):
        histogram.setdefault(method, [0] * (len(HISTOGRAM_EDGES_MS) + 1))[int(bucket)] = int(n)
    slices = conn.all(_timeline_sql(conn.backend), params)
    start, width = (int(slices[0][3]), int(slices[0][4])) if slices else (0, 0)
    counts = [[0, 0] for _ in range(TIME_BUCKETS)]
    for bucket, n, failed, _, _ in slices:
        counts[min(int(bucket), TIME_BUCKETS - 1)] = [int(n), int(failed or 0)]
    slowest = [
        {
            "seq": int(seq),
            "answer_seq": int(answer),
            "method": method,
            "name": name,
            "latency_ms": _ms(latency),
            "failed": bool(failed),
        }
        for seq, answer, method, name, latency, failed in conn.all(_slowest_sql(conn.backend), params)
    ]
    return {
        "histogram": {"edges_ms": list(HISTOGRAM_EDGES_MS), "methods": histogram},
        "timeline": {
            "start_ns": start,
            "slice_ns": -(-width // TIME_BUCKETS) if width else 0,
            "calls": [c[0] for c in counts],
            "errors": [c[1] for c in counts],
        },
        "slowest": slowest,
    }


def tool_sizes(tools: list[Any]) -> list[dict[str, Any]]:
    """Each tool of a `tools/list` result: its name, its size as compact JSON (what a client hands a
    model: name, description, schemas), its description's size, both in bytes and estimated tokens."""
    out = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        size = len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode())
        description = tool.get("description")
        described = len(description.encode()) if isinstance(description, str) else 0
        name = tool.get("name")
        out.append(
            {
                "name": name if isinstance(name, str) else None,
                "bytes": size,
                "tokens": estimate_tokens(size),
                "description_bytes": described,
                "description_tokens": estimate_tokens(described),
            }
        )
    return out


def tools_list(conn: Conn, session_id: int) -> dict[str, Any] | None:
    """The size of the session's `tools/list` answers (None: there is none): each result's, and
    each tool's of the last complete listing, with totals."""
    rows = conn.rows(
        "SELECT a.seq, a.size, a.channel, a.raw, a.body_sha256, q.channel AS q_channel, q.raw AS q_raw, "
        "q.body_sha256 AS q_body_sha256 FROM message a JOIN message q ON q.session_id = a.session_id "
        "AND q.seq = a.answers_seq WHERE a.session_id = :sid AND a.method = 'tools/list' "
        "AND a.kind = 'response' ORDER BY a.seq",
        {"sid": session_id},
    )
    if not rows:
        return None
    bodies.fill(conn, rows)
    requests = [{"raw": r["q_raw"], "body_sha256": r["q_body_sha256"]} for r in rows]
    bodies.fill(conn, requests)
    results: list[dict[str, Any]] = []
    listing: list[Any] = []
    for r, q in zip(rows, requests, strict=True):
        doc = _json_of(bytes(r["raw"]), r["channel"])
        result = doc.get("result") if isinstance(doc, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        tools = tools if isinstance(tools, list) else []
        request = _json_of(bytes(q["raw"]), r["q_channel"])
        params = request.get("params") if isinstance(request, dict) else None
        first_page = not (isinstance(params, dict) and params.get("cursor") is not None)
        if first_page:
            listing = []
        listing.extend(tools)
        results.append({"seq": r["seq"], "bytes": int(r["size"]), "tools": len(tools)})
    sizes = tool_sizes(listing)
    total = sum(t["bytes"] for t in sizes)
    return {
        "results": results,
        "tools": sizes,
        "bytes": total,
        "tokens": estimate_tokens(total),
        "token_estimate": f"bytes/{BYTES_PER_TOKEN}",
    }
