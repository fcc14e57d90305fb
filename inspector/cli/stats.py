"""`mcp-inspect stats SID`: a session's numbers per method and per tool / prompt / resource name, and
what its `tools/list` costs a model (`inspector.store.stats`), as a table that fits 80 columns or
as one JSON document.

A read command: it opens the store over DB-API (`store.opening`), as `sessions` and `show` do, and
loads neither SQLAlchemy nor the web stack."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from inspector.cli.common import DbOption
from inspector.terminal_text import visible, visible_json

__all__ = ["render", "stats"]

WIDTH = 80
# count, errors, p50, p95, max, bytes: right-aligned, after the method / name column
_NUMBERS = (("count", 6), ("errors", 6), ("p50 ms", 9), ("p95 ms", 9), ("max ms", 9), ("bytes", 8))
_LABEL = WIDTH - sum(w + 1 for _, w in _NUMBERS)


def _fit(text: str, width: int) -> str:
    """`text` cut to `width` characters (an ellipsis marks the cut), padded."""
    return (text if len(text) <= width else text[: width - 1] + "…").ljust(width)


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 100_000 else f"{value / 1000:.0f}s"


def _size(value: int) -> str:
    if value < 100_000:
        return str(value)
    if value < 100_000_000:
        return f"{value / 1000:.0f}k"
    return f"{value / 1_000_000:.0f}M"


def _line(label: str, cells: list[str]) -> str:
    return _fit(label, _LABEL) + "".join(" " + c.rjust(w) for c, (_, w) in zip(cells, _NUMBERS, strict=True))


def render(found: dict[str, Any]) -> list[str]:
    """The lines `stats` prints (each at most 80 columns; recorded names made terminal-safe)."""
    lines = [_line("method / name", [h for h, _ in _NUMBERS]), "-" * WIDTH]
    for row in found["methods"]:
        label = visible(row["method"]) if row["name"] is None else "  " + visible(row["name"])
        lines.append(
            _line(
                label,
                [
                    str(row["count"]),
                    str(row["errors"]),
                    _ms(row["p50_ms"]),
                    _ms(row["p95_ms"]),
                    _ms(row["max_ms"]),
                    _size(row["bytes"]),
                ],
            )
        )
    if not found["methods"]:
        lines.append("(no requests or notifications)")
    listing = found.get("tools_list")
    if listing:
        results = listing["results"]
        lines += [
            "",
            f"tools/list: {len(listing['tools'])} tools, {listing['bytes']} bytes, "
            f"~{listing['tokens']} tokens (estimated: {listing['token_estimate']})",
            f"  {len(results)} result(s): "
            + ", ".join(f"#{r['seq']} {r['bytes']} B" for r in results[:5])
            + (", …" if len(results) > 5 else ""),
            _fit("tool", WIDTH - 30)
            + " "
            + "bytes".rjust(9)
            + " "
            + "tokens".rjust(9)
            + " "
            + "descr B".rjust(9),
        ]
        for tool in listing["tools"]:
            lines.append(
                _fit("  " + visible(tool["name"] or "?"), WIDTH - 30)
                + " "
                + str(tool["bytes"]).rjust(9)
                + " "
                + str(tool["tokens"]).rjust(9)
                + " "
                + str(tool["description_bytes"]).rjust(9)
            )
    return [_fit(line, WIDTH).rstrip() for line in lines]


def stats(
    session: Annotated[str, typer.Argument(help="A session id, a session's name, or 'last'.")] = "last",
    db: DbOption = None,
    json_out: Annotated[
        bool,
        typer.Option(
            "--json",
            help='One JSON document: {"methods": [{"method", "name", "count", "errors", "p50_ms", '
            '"p95_ms", "max_ms", "bytes", "bytes_in", "bytes_out"}, ...], "tools_list": ...}.',
        ),
    ] = False,
) -> None:
    """Show a session's numbers: per method, and per tool / prompt / resource name, how many calls,
    how many failed (error responses and isError results), their latency (nearest-rank p50 / p95,
    max; unanswered requests count but have none) and bytes; then what its tools/list costs a model
    (bytes and estimated tokens, per tool)."""
    import orjson

    from inspector.config import default_db
    from inspector.store.opening import open_db
    from inspector.store.queries import get_session
    from inspector.store.stats import session_stats

    store = open_db(db or default_db(), create=False)
    try:
        found = get_session(store, session)
        assert found.id is not None
        numbers = session_stats(store, found.id)
    finally:
        store.dispose()
    out = sys.stdout
    if json_out:
        out.write(visible_json(orjson.dumps(numbers).decode()) + "\n")
        return
    out.write("\n".join(render(numbers)) + "\n")
