"""Sans-IO MCP protocol core: framing, JSON-RPC classification, correlation, version facts.

Nothing in this package does IO (no sockets, processes, clocks or database);
a guard test enforces it.
"""

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
