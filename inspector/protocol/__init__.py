"""Sans-IO MCP protocol core: framing, JSON-RPC classification, correlation, version facts.

Nothing in this package does IO (no sockets, processes, clocks or database);
a guard test enforces it.

Importing the package imports none of its modules: each name below is loaded from its module on
first use (`from inspector.protocol import Kind` imports `jsonrpc` only), so a reader that needs
one small module of the package (`client_identity` for `mcp-inspect show`) does not load framing,
correlation and the version tables with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.protocol.correlate import Correlator, Pairing, Pending, opposite
    from inspector.protocol.framing import Cut, Line, LineFramer
    from inspector.protocol.jsonrpc import Classified, Kind, ParseStatus, classify, classify_value, id_key
    from inspector.protocol.versions import KNOWN_PROTOCOL_VERSIONS, SessionFacts, method_allowed

__all__ = [
    "KNOWN_PROTOCOL_VERSIONS",
    "Classified",
    "Correlator",
    "Cut",
    "Kind",
    "Line",
    "LineFramer",
    "Pairing",
    "ParseStatus",
    "Pending",
    "SessionFacts",
    "classify",
    "classify_value",
    "id_key",
    "method_allowed",
    "opposite",
]

# Each exported name -> the module of this package that defines it.
_HOME = {
    **dict.fromkeys(("Correlator", "Pairing", "Pending", "opposite"), "correlate"),
    **dict.fromkeys(("Cut", "Line", "LineFramer"), "framing"),
    **dict.fromkeys(("Classified", "Kind", "ParseStatus", "classify", "classify_value", "id_key"), "jsonrpc"),
    **dict.fromkeys(("KNOWN_PROTOCOL_VERSIONS", "SessionFacts", "method_allowed"), "versions"),
}


def __getattr__(name: str) -> Any:
    """An exported name, from its module (imported now if it was not yet)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # `__import__` rather than importlib's `import_module`: `python -X importtime` lists it
    value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
    globals()[name] = value  # the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])
