"""A session's numbers: per method and per tool / prompt / resource name, how many calls, how many
failed, how long they took (nearest-rank p50 / p95 and the max), how many bytes went each way; and
what its server's `tools/list` costs a model. `mcp-inspect stats`, `GET /api/sessions/{id}/stats`
and the UI's Overview tab all show this one computation.

The numbers, and what the Overview tab draws from the same calls (a latency histogram per method,
calls and failures over time, the slowest calls), are one SQL statement over the `message` table
(SQLite and PostgreSQL; `calls`, the common table the parts read, is computed once): the recorder
already paired each answer with its request (`answers_seq`, `latency_ns`, and the request's `method`
on the answer), so a call is its request row and its answer row grouped by the request's seq (one
sort, no join: a join of the two sides costs SQLite a scan per row). Read this way:

- `count`: the requests (and notifications) of a method; a request never answered counts, with no
  latency; `errors`: its error responses, and for `tools/call` its results with `isError: true`;
- `p50_ms`, `p95_ms`, `max_ms`: nearest-rank percentiles of the answered calls' latencies (the
  ceil(p/100 * n)-th smallest of n), None when none was answered;
- a request answered more than once (an intercepted answer replaced by the inspector, a server's
  duplicate) has one answer: the last one recorded (what the client got, for a replaced answer);
- `bytes_in`: the requests' (notifications') bytes, `bytes_out`: their answers' bytes (the
  direction of the call: into whoever answers it, out of it), `bytes`: both;
- the `name` of a `tools/call` or `prompts/get` is its `params.name`, of a `resources/read` its
  `params.uri`: one row per method with `name` None, then one per name;
- a batch's items count one by one, each as many bytes as its compact JSON, paired as the recorder
  paired them (`meta.items`), whether their requests or answers came in a batch or alone.

The name and `isError` are read from the JSON in `message.raw` inside the query (an SSE event's one
`data:` line, whatever fields come before or after it). What SQL cannot read is read in Python
first (`out_of_line`) and handed to the statement as one JSON parameter: a body stored out of line
(`store.bodies`: `raw` holds only its head), an SSE event whose data spans several lines, and the
batches' items.

`tools_list` (issue #39 item 4) reads the session's `tools/list` answers: each result's size, and,
for the last complete listing (its pages, from a request without a cursor), every tool's size as
compact JSON (name, description, schemas) in bytes and in estimated tokens (`estimate_tokens`).
`tools_cost` adds them up across several sessions: a host run's servers, listed to one model.
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
    "calls_sql",
    "estimate_tokens",
    "out_of_line",
    "session_stats",
    "tool_sizes",
    "tools_cost",
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


def _sse_sql(backend: str) -> tuple[str, str, str]:
    """The SQL of (whether a row is an SSE event with its framing, the text of its data line, whether
    another data line follows it) for `backend`. The data line's text is the event's JSON when it is
    the event's only data line, whatever other fields come before or after it; an event whose data
    spans several lines is read in Python (`out_of_line`)."""
    if backend == "sqlite":
        text = "CAST(raw AS TEXT)"
        after = f"replace(substr({text}, instr({text}, 'data:') + 5), char(13), char(10))"
        line = (
            f"CASE WHEN instr({after}, char(10)) > 0 THEN substr({after}, 1, instr({after}, char(10)) - 1) "
            f"ELSE {after} END"
        )
        return (
            f"channel = 'sse' AND substr(ltrim({text}), 1, 1) NOT IN ('{{', '[')",
            line,
            f"instr({after}, char(10) || 'data:') > 0",
        )
    text = "convert_from(raw, 'UTF8')"
    after = f"replace(substr({text}, strpos({text}, 'data:') + 5), E'\\r', E'\\n')"
    return (
        f"channel = 'sse' AND left(ltrim({text}), 1) NOT IN ('{{', '[')",
        f"split_part({after}, E'\\n', 1)",
        f"strpos({after}, E'\\ndata:') > 0",
    )


def _body_sql(backend: str) -> tuple[str, str, str]:
    """The SQL of (a row's JSON-RPC text, the condition under which it is JSON, and the JSON value of
    a path in it) for `backend`; the text is named `t` in the other two. The text of an SSE event
    whose data spans several lines is NULL: `out_of_line` reads it."""
    sse, line, several = _sse_sql(backend)
    if backend == "sqlite":
        return (
            f"CASE WHEN {sse} THEN CASE WHEN {several} THEN NULL ELSE {line} END ELSE CAST(raw AS TEXT) END",
            "parse_status = 'ok' AND body_sha256 IS NULL AND json_valid(t)",
            "json_extract(t, '$.{path}')",
        )
    # PostgreSQL 15 has no `IS JSON`: the cast is only reached for a row whose body parsed
    # (`parse_status`), kept inline, and that starts as JSON does (an SSE event: its one data line).
    return (
        f"CASE WHEN {sse} THEN CASE WHEN {several} THEN NULL ELSE {line} END "
        "ELSE convert_from(raw, 'UTF8') END",
        "parse_status = 'ok' AND body_sha256 IS NULL AND left(ltrim(t), 1) IN ('{', '[')",
        "(t::json #>> '{{{path_pg}}}')",
    )


def _path(expr: str, path: str) -> str:
    return expr.format(path=path, path_pg=path.replace(".", ","))


def _fixes_sql(backend: str) -> tuple[str, str]:
    """What Python read (`out_of_line`, the JSON parameter `:fixes`): the rows whose name and
    isError it read ([seq, name, is_error]), and the batches' items as rows of `keyed`."""
    columns = (
        "k",
        "item",
        "asked",
        "seq",
        "ts_ns",
        "kind",
        "method",
        "name",
        "size",
        "latency_ns",
        "is_error",
    )
    if backend == "sqlite":
        rows = (
            "SELECT json_extract(value, '$[0]') AS seq, json_extract(value, '$[1]') AS name, "
            "json_extract(value, '$[2]') AS is_error FROM json_each(:fixes, '$.rows')"
        )
        items = ", ".join(f"json_extract(value, '$[{i}]') AS {c}" for i, c in enumerate(columns))
        return rows, f"SELECT {items} FROM json_each(:fixes, '$.items')"
    rows = (
        "SELECT (value ->> 0)::bigint AS seq, value ->> 1 AS name, (value ->> 2)::int AS is_error "
        "FROM json_array_elements(CAST(:fixes AS json) -> 'rows') AS value"
    )
    types = ("bigint", "int", "int", "bigint", "bigint", "", "", "", "bigint", "bigint", "int")
    items = ", ".join(
        f"(value ->> {i}){'::' + t if t else ''} AS {c}"
        for i, (c, t) in enumerate(zip(columns, types, strict=True))
    )
    return rows, f"SELECT {items} FROM json_array_elements(CAST(:fixes AS json) -> 'items') AS value"


def calls_sql(backend: str) -> str:
    """The `WITH` of the statement, ending in `calls`: one row per request or notification (its seq,
    time, method, name), a batch's items included, with its one answer (its seq, latency, size,
    whether it failed). Its parameters: `:sid`, and `:fixes`, the JSON of `out_of_line`."""
    text, ok, value = _body_sql(backend)
    named_in = ", ".join(f"'{m}'" for m in NAMED)
    name_expr = " ".join(
        f"WHEN method = '{m}' THEN {_path(value, 'params.' + key)}" for m, key in NAMED.items()
    )
    true = "1" if backend == "sqlite" else "'true'"
    fixed, batched = _fixes_sql(backend)
    return f"""
WITH fixes AS ({fixed}),
batched AS ({batched}),
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
  SELECT CASE WHEN kind IN ('request', 'notification') THEN seq ELSE answers_seq END AS k, -1 AS item,
         CASE WHEN kind IN ('request', 'notification') THEN 1 ELSE 0 END AS asked,
         seq, ts_ns, kind, method, name, size, latency_ns, is_error
  FROM rows
  WHERE kind IN ('request', 'notification') OR answers_seq IS NOT NULL
  UNION ALL
  SELECT k, item, asked, seq, ts_ns, kind, method, name, size, latency_ns, is_error FROM batched
),
ranked_answers AS (
  SELECT keyed.*, CASE WHEN asked = 0 THEN
           ROW_NUMBER() OVER (PARTITION BY k, item, asked ORDER BY seq DESC) END AS nth
  FROM keyed
),
calls AS (
  SELECT MAX(CASE WHEN asked = 1 THEN seq END) AS seq,
         MAX(CASE WHEN asked = 1 THEN ts_ns END) AS ts_ns,
         MAX(CASE WHEN asked = 0 THEN seq END) AS answer_seq,
         MAX(CASE WHEN asked = 1 THEN method END) AS method,
         MAX(CASE WHEN asked = 1 AND method IN ({named_in}) THEN name END) AS name,
         SUM(CASE WHEN asked = 1 THEN size ELSE 0 END) AS bytes_in,
         SUM(CASE WHEN asked = 1 THEN 0 ELSE size END) AS bytes_out,
         MAX(CASE WHEN asked = 1 THEN NULL ELSE latency_ns END) AS latency_ns,
         MAX(CASE WHEN kind = 'error' THEN 1
                  WHEN kind = 'response' AND method = 'tools/call' AND is_error = 1 THEN 1
                  ELSE 0 END) AS failed
  FROM ranked_answers WHERE nth IS NULL OR nth = 1
  GROUP BY k, item
  HAVING MAX(asked) = 1
)
"""


# The latency histogram's bucket edges, in milliseconds (a last bucket holds what is above).
HISTOGRAM_EDGES_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
TIME_BUCKETS = 40  # errors over time: the session's span in this many equal slices
SLOWEST = 10


def _stats_sql(backend: str, *, overview: bool) -> str:
    """The one statement: the numbers, a row per method (name NULL) and per method and name (part
    0); with `overview`, from the same `calls`, the latency histogram (1), calls and failures per
    slice of the session's span (2) and the slowest calls (3). Each row is (part, method, name, and
    seven numbers whose meaning is the part's)."""
    buckets = " ".join(
        f"WHEN latency_ns < {e * 1_000_000} THEN {i}" for i, e in enumerate(HISTOGRAM_EDGES_MS)
    )
    parts = [
        """
SELECT 0 AS part, totals.method, totals.name, totals.count, totals.errors, pct.p50, pct.p95, pct.mx,
       totals.bytes_in, totals.bytes_out
FROM totals LEFT JOIN pct ON pct.method = totals.method
  AND (pct.name = totals.name OR (pct.name IS NULL AND totals.name IS NULL))"""
    ]
    if overview:
        parts += [
            f"""
SELECT 1, method, NULL, bucket, COUNT(*), NULL, NULL, NULL, NULL, NULL
FROM (SELECT method, CASE {buckets} ELSE {len(HISTOGRAM_EDGES_MS)} END AS bucket
      FROM calls WHERE latency_ns IS NOT NULL) AS h
GROUP BY method, bucket""",
            f"""
SELECT 2, NULL, NULL, slice, COUNT(*), SUM(failed), MIN(lo), MIN(width), NULL, NULL
FROM (SELECT (ts_ns - lo) * {TIME_BUCKETS} / width AS slice, failed, lo, width
      FROM (SELECT ts_ns, failed, MIN(ts_ns) OVER () AS lo,
                   MAX(ts_ns) OVER () - MIN(ts_ns) OVER () + 1 AS width FROM calls) AS spanned) AS s
GROUP BY slice""",
            f"""
SELECT 3, method, name, seq, answer_seq, latency_ns, failed, NULL, NULL, NULL
FROM (SELECT method, name, seq, answer_seq, latency_ns, failed FROM calls
      WHERE latency_ns IS NOT NULL ORDER BY latency_ns DESC, seq LIMIT {SLOWEST}) AS slow""",
        ]
    return (
        calls_sql(backend)
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
"""
        + "\nUNION ALL".join(parts)
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


def _compact_size(value: Any) -> int:
    """The bytes of `value` as compact JSON (what a tool, or a batch's item, weighs)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _name_of(method: str | None, doc: Any) -> str | None:
    params = doc.get("params") if isinstance(doc, dict) else None
    name = params.get(NAMED[method]) if method in NAMED and isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def _is_error(doc: Any) -> int:
    result = doc.get("result") if isinstance(doc, dict) else None
    return int(isinstance(result, dict) and result.get("isError") is True)


_NAMED_ROWS = (
    "((kind = 'request' AND method IN ({named})) OR (kind = 'response' AND method = 'tools/call'))".format(
        named=", ".join(f"'{m}'" for m in NAMED)
    )
)


def out_of_line(conn: Conn, session_id: int) -> dict[str, list[list[Any]]]:
    """What the statement cannot read itself, read here, as its `:fixes` parameter (JSON):

    - `rows`: [seq, name, is_error] of the rows it reads a name or `isError` from whose body is
      stored out of line, or (an SSE event) whose data spans several lines;
    - `items`: a batch's items, as rows of the statement's `keyed` (see `_batch_items`)."""
    sse, _, several = _sse_sql(conn.backend)
    which = "body_sha256 IS NOT NULL"
    kind = conn.scalar("SELECT kind FROM session WHERE id = :sid", {"sid": session_id})
    if kind != "stdio-wrap":  # only HTTP rows are SSE events: a stdio session's are not read twice
        which += f" OR (parse_status = 'ok' AND CASE WHEN {sse} THEN {several} ELSE 1 = 0 END)"
    rows = conn.rows(
        "SELECT seq, kind, method, channel, raw, body_sha256 FROM message WHERE session_id = :sid "
        f"AND {_NAMED_ROWS} AND ({which})",
        {"sid": session_id},
    )
    bodies.fill(conn, rows)
    out: list[list[Any]] = []
    for r in rows:
        doc = _json_of(bytes(r["raw"]), r["channel"])
        if not isinstance(doc, dict):
            continue
        if r["kind"] == "request":
            out.append([r["seq"], _name_of(r["method"], doc), None])
        else:
            out.append([r["seq"], None, _is_error(doc)])
    return {"rows": out, "items": _batch_items(conn, session_id)}


def _batch_items(conn: Conn, session_id: int) -> list[list[Any]]:
    """A session's batches split into their items, as rows of `keyed` [k, item, asked, seq, ts_ns,
    kind, method, name, size, latency_ns, is_error]: a request or notification of a batch is keyed
    (its batch's seq, its index); an answer by the call it answers (the recorder's pairing of each
    item, `meta.items`): (the request's seq, -1), or for a request in a batch (that batch's seq, the
    index of the request with the answer's id). An item's size is its bytes as compact JSON."""
    from inspector.protocol.jsonrpc import classify_value

    batches = conn.rows(
        "SELECT seq, ts_ns, channel, raw, body_sha256, meta FROM message "
        "WHERE session_id = :sid AND kind = 'batch' ORDER BY seq",
        {"sid": session_id},
    )
    if not batches:
        return []
    bodies.fill(conn, batches)
    asked: dict[int, dict[str, int]] = {}  # a batch's seq -> its requests' ids -> their index
    answers: list[tuple[int, Any, int, int, Any, Any, Any]] = []  # (seq, ts, index, size, item, pairing, doc)
    out: list[list[Any]] = []
    for b in batches:
        doc = _json_of(bytes(b["raw"]), b["channel"])
        if not isinstance(doc, list) or not doc:
            continue
        meta = b["meta"] if isinstance(b["meta"], dict) else {}
        listed = meta.get("items")
        pairings: list[Any] = listed if isinstance(listed, list) else []
        for i, (value, item) in enumerate(zip(doc, classify_value(doc).items, strict=True)):
            kind = item.kind._value_
            size = _compact_size(value)
            if kind in ("request", "notification"):
                if kind == "request" and item.rpc_id is not None:
                    asked.setdefault(b["seq"], {}).setdefault(item.rpc_id, i)
                name = _name_of(item.method, value)
                out.append([b["seq"], i, 1, b["seq"], b["ts_ns"], kind, item.method, name, size, None, None])
            elif kind in ("response", "error"):
                pairing = pairings[i] if i < len(pairings) and isinstance(pairings[i], dict) else {}
                answers.append((b["seq"], b["ts_ns"], i, size, item, pairing, value))
    for seq, ts_ns, _, size, item, pairing, value in answers:
        to = pairing.get("answers_seq")
        if not isinstance(to, int):
            continue
        index = asked[to].get(item.rpc_id) if to in asked else -1
        if index is None:
            continue
        latency = pairing.get("latency_ns")
        method = pairing.get("request_method")
        out.append(
            [to, index, 0, seq, ts_ns, item.kind._value_, method, None, size, latency, _is_error(value)]
        )
    if asked:  # single answers to a batch's requests
        keys = {f"b{i}": seq for i, seq in enumerate(asked)}
        found = conn.rows(
            "SELECT seq, ts_ns, kind, method, rpc_id, size, latency_ns, answers_seq, channel, raw, body_sha256 "
            f"FROM message WHERE session_id = :sid AND kind IN ('response', 'error') "
            f"AND answers_seq IN ({', '.join(':' + k for k in keys)})",
            {"sid": session_id, **keys},
        )
        bodies.fill(conn, found)
        for r in found:
            index = asked[r["answers_seq"]].get(r["rpc_id"])
            if index is None:
                continue
            doc = _json_of(bytes(r["raw"]), r["channel"])
            out.append(
                [r["answers_seq"], index, 0, r["seq"], r["ts_ns"], r["kind"], r["method"], None,
                 r["size"], r["latency_ns"], _is_error(doc)]
            )  # fmt: skip
    return out


def session_stats(store: Db | Engine, session_id: int, *, overview: bool = False) -> dict[str, Any]:
    """`{"methods": [...], "tools_list": ...}` of a session (see the module's docstring); with
    `overview`, what the UI's Overview tab draws too, from the same calls in the same statement:
    `histogram` (answered calls per method by latency bucket), `timeline` (calls and failures per
    slice of the session's span) and `slowest` (the slowest answered calls)."""
    with reading(store) as conn:
        params = {"sid": session_id, "fixes": json.dumps(out_of_line(conn, session_id))}
        found = conn.all(_stats_sql(conn.backend, overview=overview), params)
        listing = tools_list(conn, session_id)
    methods = [
        {
            "method": r[1],
            "name": r[2],
            "count": int(r[3]),
            "errors": int(r[4] or 0),
            "p50_ms": _ms(r[5]),
            "p95_ms": _ms(r[6]),
            "max_ms": _ms(r[7]),
            "bytes": int(r[8] or 0) + int(r[9] or 0),
            "bytes_in": int(r[8] or 0),
            "bytes_out": int(r[9] or 0),
        }
        for r in found
        if r[0] == 0
    ]
    # Sorted here, not by the database: the same order on every backend, whatever its collation.
    methods.sort(key=lambda m: (m["method"], m["name"] is not None, m["name"] or ""))
    out: dict[str, Any] = {"methods": methods, "tools_list": listing}
    if overview:
        out.update(_overview([r for r in found if r[0] != 0]))
    return out


def _overview(found: list[tuple[Any, ...]]) -> dict[str, Any]:
    histogram: dict[str, list[int]] = {}
    counts = [[0, 0] for _ in range(TIME_BUCKETS)]
    start = width = 0
    slowest: list[dict[str, Any]] = []
    for part, method, name, a, b, c, d, e, _, _ in found:
        if part == 1:
            histogram.setdefault(method, [0] * (len(HISTOGRAM_EDGES_MS) + 1))[int(a)] = int(b)
        elif part == 2:
            counts[min(int(a), TIME_BUCKETS - 1)] = [int(b), int(c or 0)]
            start, width = int(d), int(e)
        else:
            slowest.append(
                {
                    "seq": int(a),
                    "answer_seq": int(b),
                    "method": method,
                    "name": name,
                    "latency_ms": _ms(c),
                    "failed": bool(d),
                }
            )
    slowest.sort(key=lambda s: (-(s["latency_ms"] or 0), s["seq"]))
    return {
        "histogram": {"edges_ms": list(HISTOGRAM_EDGES_MS), "methods": dict(sorted(histogram.items()))},
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
        size = _compact_size(tool)
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


def tools_cost(store: Db | Engine, session_ids: list[int]) -> dict[str, Any]:
    """What the `tools/list` of several sessions' servers costs a model together (a host run's
    servers, all listed to one model): each server's `tools_list` (those that listed tools) and the
    sum of their last complete listings, in tools, bytes and estimated tokens."""
    servers: list[dict[str, Any]] = []
    with reading(store) as conn:
        for sid in session_ids:
            listing = tools_list(conn, sid)
            if listing is not None:
                servers.append({"session_id": sid, "tools_list": listing})
    total = sum(s["tools_list"]["bytes"] for s in servers)
    return {
        "servers": servers,
        "tools": sum(len(s["tools_list"]["tools"]) for s in servers),
        "bytes": total,
        "tokens": estimate_tokens(total),
        "token_estimate": f"bytes/{BYTES_PER_TOKEN}",
    }
