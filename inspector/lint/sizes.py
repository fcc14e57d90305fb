"""What a server's `tools/list` costs a model (issue #39): an `info` finding on a `tools/list` result
whose one tool's description, or whose whole list, is unusually large. A client hands every tool's
name, description and schemas to the model on every turn: a large list is context spent before the
conversation starts.

Sizes are bytes of compact JSON (`store.stats.tool_sizes`, as `mcp-inspect stats` counts them),
tokens estimated as bytes / 4 (`store.stats.estimate_tokens`). The thresholds:

- `DESCRIPTION_BYTES`: one tool's description above 2,048 bytes (~512 tokens): a description is
  what the model reads to choose the tool; this much is documentation, not a description;
- `LIST_BYTES`: a whole list above 40,000 bytes (~10,000 tokens) of tools: the size of the tool
  lists of the largest public servers, several times that of a typical one.
"""

from __future__ import annotations

from typing import Any

from inspector.store.stats import estimate_tokens, tool_sizes

__all__ = ["DESCRIPTION_BYTES", "LIST_BYTES", "tools_list_hits"]

DESCRIPTION_BYTES = 2048
LIST_BYTES = 40_000


def tools_list_hits(result: Any) -> tuple[tuple[str, str], ...]:
    """The size findings (rule id, explanation) of one `tools/list` result."""
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list) or not tools:
        return ()
    sizes = tool_sizes(tools)
    hits: list[tuple[str, str]] = []
    large = [t for t in sizes if t["description_bytes"] > DESCRIPTION_BYTES]
    if large:
        named = ", ".join(f"{t['name']!r} ({t['description_bytes']} bytes)" for t in large[:5])
        more = f" and {len(large) - 5} more" if len(large) > 5 else ""
        hits.append(
            (
                "tool-description-large",
                f"{len(large)} tool description(s) above {DESCRIPTION_BYTES} bytes: {named}{more}",
            )
        )
    total = sum(t["bytes"] for t in sizes)
    if total > LIST_BYTES:
        hits.append(
            (
                "tools-list-large",
                f"{len(sizes)} tools take {total} bytes (~{estimate_tokens(total)} tokens, estimated as "
                f"bytes/4), above {LIST_BYTES} bytes",
            )
        )
    return tuple(hits)
