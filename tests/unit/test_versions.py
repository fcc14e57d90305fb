"""SessionFacts from the wire (handshake and stateless eras) and method_allowed's gates."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from inspector.protocol.correlate import Correlator
from inspector.protocol.jsonrpc import classify
from inspector.protocol.versions import KNOWN_PROTOCOL_VERSIONS, SessionFacts, method_allowed

PV = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPS = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# Real wire examples captured from the SDK.
SDK_DISCOVER = (
    b'{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":'
    b'"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcp","version":"0.1.0"},'
    b'"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}}'
)
SDK_DISCOVER_RESULT = (
    b'{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"private","capabilities":{"tools":{"listChanged":true}},'
    b'"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":0,"_meta":'
    b'{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":""}}}}'
)
SDK_INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":'
    b'{"roots":{"listChanged":true}},"clientInfo":{"name":"mcp","version":"0.1.0"}}}'
)


class Session:
    """A correlator and SessionFacts fed together, as the builder does."""

    def __init__(self) -> None:
        self.corr = Correlator()
        self.facts = SessionFacts()
        self.seq = 0

    def send(self, direction: str, message: bytes | dict[str, Any] | list[Any]) -> bool:
        self.seq += 1
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        msg = classify(body)
        pairing = self.corr.observe(self.seq, self.seq, direction, msg)
        return self.facts.observe(direction, msg, pairing)


def initialize(version: str = "2025-06-18", id_: int = 0) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {"sampling": {}},
            "clientInfo": {"name": "client", "version": "1"},
        },
    }


def init_result(version: str = "2025-06-18", id_: int = 0) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "result": {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "server", "version": "2"},
        },
    }


def discover(version: str = "2026-07-28", id_: int = 1, **meta: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "server/discover",
        "params": {"_meta": {PV: version, **meta}},
    }


def discover_result(versions: list[Any], id_: int = 1, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": {"supportedVersions": versions, **extra}}


# --- handshake era ----------------------------------------------------------------


def test_fresh_facts_are_empty() -> None:
    f = SessionFacts()
    assert f.snapshot() == {
        "era": None,
        "offered_version": None,
        "protocol_version": None,
        "client_info": None,
        "server_info": None,
        "client_capabilities": None,
        "server_capabilities": None,
        "supported_versions": None,
        "discover_fallback": False,
        "initialized": False,
        "events": [],
    }


def test_initialize_handshake() -> None:
    s = Session()
    assert s.send("c2s", initialize("2025-06-18")) is True
    f = s.facts
    assert f.era == "handshake"
    assert f.offered_version == "2025-06-18"
    assert f.protocol_version is None
    assert f.client_info == {"name": "client", "version": "1"}
    assert f.client_capabilities == {"sampling": {}}
    assert f.events == ["initialize offered 2025-06-18"]

    assert s.send("s2c", init_result("2025-06-18")) is True
    assert f.protocol_version == "2025-06-18"
    assert f.server_info == {"name": "server", "version": "2"}
    assert f.server_capabilities == {"tools": {}}
    assert f.events == ["initialize offered 2025-06-18"]  # no counter-offer
    assert f.discover_fallback is False

    assert f.initialized is False
    assert s.send("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}) is True
    assert f.initialized is True
    assert s.send("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}) is False


def test_sdk_initialize_bytes() -> None:
    s = Session()
    s.send("c2s", SDK_INITIALIZE)
    assert s.facts.era == "handshake"
    assert s.facts.offered_version == "2025-11-25"
    assert s.facts.client_info == {"name": "mcp", "version": "0.1.0"}
    assert s.facts.client_capabilities == {"roots": {"listChanged": True}}


def test_counter_offer_is_an_event() -> None:
    s = Session()
    s.send("c2s", initialize("2099-01-01"))
    s.send("s2c", init_result("2025-11-25"))
    assert s.facts.offered_version == "2099-01-01"
    assert s.facts.protocol_version == "2025-11-25"
    assert s.facts.events == ["initialize offered 2099-01-01", "server counter-offered 2025-11-25"]


def test_initialize_refused() -> None:
    s = Session()
    s.send("c2s", initialize())
    assert s.send("s2c", {"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "bad"}}) is True
    assert s.facts.protocol_version is None
    assert s.facts.events[-1] == "initialize refused with -32602"


def test_only_the_initialize_answer_sets_server_facts() -> None:
    s = Session()
    s.send("c2s", initialize(id_=0))
    s.send("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert (
        s.send("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "x", "tools": []}}) is False
    )
    assert s.facts.protocol_version is None
    assert s.facts.server_info is None


def test_initialize_from_the_server_side_is_ignored() -> None:
    s = Session()
    assert s.send("s2c", initialize()) is False
    assert s.facts.era is None


def test_orphan_initialize_like_result_is_ignored() -> None:
    s = Session()
    assert s.send("s2c", init_result()) is False
    assert s.facts.protocol_version is None


def test_initialize_with_odd_params() -> None:
    s = Session()
    s.send(
        "c2s",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": 5, "clientInfo": "me"},
        },
    )
    assert s.facts.era == "handshake"
    assert s.facts.offered_version is None
    assert s.facts.client_info is None
    assert s.facts.client_capabilities is None


def test_meta_version_in_handshake_era_does_not_switch_era() -> None:
    s = Session()
    s.send("c2s", initialize("2025-11-25"))
    s.send("s2c", init_result("2025-11-25"))
    s.send(
        "c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {PV: "2026-07-28"}}}
    )
    assert s.facts.era == "handshake"
    assert s.facts.protocol_version == "2025-11-25"


# --- stateless era ----------------------------------------------------------------


def test_sdk_discover_exchange() -> None:
    s = Session()
    assert s.send("c2s", SDK_DISCOVER) is True
    f = s.facts
    assert f.era == "stateless"
    assert f.offered_version == "2026-07-28"
    assert f.protocol_version is None  # not until the server agrees
    assert f.client_info == {"name": "mcp", "version": "0.1.0"}
    assert f.client_capabilities == {"roots": {"listChanged": True}}

    assert s.send("s2c", SDK_DISCOVER_RESULT) is True
    assert f.supported_versions == ["2026-07-28"]
    assert f.server_capabilities == {"tools": {"listChanged": True}}
    assert f.server_info == {"name": "demo", "version": ""}
    assert f.protocol_version == "2026-07-28"
    assert f.era == "stateless"
    assert f.discover_fallback is False
    assert f.events == []


def test_discover_result_without_the_offered_version() -> None:
    s = Session()
    s.send("c2s", discover("2026-07-28"))
    s.send("s2c", discover_result(["2027-01-01", 5]))
    assert s.facts.supported_versions == ["2027-01-01"]
    assert s.facts.protocol_version is None


def test_discover_result_with_bad_supported_versions() -> None:
    s = Session()
    s.send("c2s", discover())
    s.send("s2c", discover_result("2026-07-28"))  # type: ignore[arg-type]
    assert s.facts.supported_versions is None
    assert s.facts.protocol_version is None


def test_stateless_request_sets_protocol_version_and_client_facts() -> None:
    s = Session()
    changed = s.send(
        "c2s",
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "x",
                "_meta": {PV: "2026-07-28", CLIENT_INFO: {"name": "c"}, CLIENT_CAPS: {"roots": {}}},
            },
        },
    )
    assert changed is True
    f = s.facts
    assert f.era == "stateless"
    assert f.offered_version == "2026-07-28"
    assert f.protocol_version == "2026-07-28"
    assert f.client_info == {"name": "c"}
    assert f.client_capabilities == {"roots": {}}


def test_empty_client_capabilities_in_meta_are_recorded() -> None:
    s = Session()
    s.send("c2s", discover(**{CLIENT_CAPS: {}}))
    assert s.facts.client_capabilities == {}


def test_empty_client_capabilities_in_initialize_are_recorded() -> None:
    s = Session()
    msg = initialize()
    msg["params"]["capabilities"] = {}
    s.send("c2s", msg)
    assert s.facts.client_capabilities == {}


def test_later_stateless_requests_keep_known_client_info() -> None:
    s = Session()
    s.send("c2s", SDK_DISCOVER)
    s.send("s2c", SDK_DISCOVER_RESULT)
    changed = s.send(
        "c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {PV: "2026-07-28"}}}
    )
    assert changed is False
    assert s.facts.client_info == {"name": "mcp", "version": "0.1.0"}
    assert s.facts.offered_version == "2026-07-28"


def test_request_without_meta_version_teaches_nothing() -> None:
    s = Session()
    assert (
        s.send("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {}}}) is False
    )
    assert s.send("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) is False
    assert s.facts.era is None


def test_sdk_fallback_discover_refused_then_initialize() -> None:
    s = Session()
    s.send("c2s", SDK_DISCOVER)
    s.send("s2c", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}})
    assert s.facts.events == ["server/discover refused with -32601"]
    assert s.facts.era == "stateless"
    s.send("c2s", SDK_INITIALIZE)
    f = s.facts
    assert f.discover_fallback is True
    assert f.era == "handshake"
    assert f.offered_version == "2025-11-25"
    s.send("s2c", init_result("2025-11-25", id_=1))
    assert f.protocol_version == "2025-11-25"
    assert f.server_info == {"name": "server", "version": "2"}
    assert f.events == [
        "server/discover refused with -32601",
        "initialize offered 2025-11-25",
    ]


def test_initialize_after_successful_discover_is_not_a_fallback() -> None:
    s = Session()
    s.send("c2s", SDK_DISCOVER)
    s.send("s2c", SDK_DISCOVER_RESULT)
    s.send("c2s", initialize())
    assert s.facts.discover_fallback is False


def test_facts_from_a_batch() -> None:
    s = Session()
    assert s.send("c2s", [initialize("2025-03-26"), {"jsonrpc": "2.0", "method": "notifications/x"}]) is True
    assert s.facts.offered_version == "2025-03-26"
    s.send("s2c", [init_result("2025-03-26")])
    assert s.facts.protocol_version == "2025-03-26"


def test_observe_returns_false_for_unrelated_traffic() -> None:
    s = Session()
    s.send("c2s", initialize())
    s.send("s2c", init_result())
    before = s.facts.snapshot()
    assert s.send("c2s", {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}) is False
    assert s.send("s2c", {"jsonrpc": "2.0", "id": 5, "result": {"tools": []}}) is False
    assert s.send("s2c", b"not json") is False
    assert s.facts.snapshot() == before


def test_discover_result_with_empty_meta_has_no_server_info() -> None:
    s = Session()
    s.send("c2s", discover())
    s.send("s2c", discover_result(["2026-07-28"], _meta={}))
    assert s.facts.server_info is None


def test_discover_result_without_meta_has_no_server_info() -> None:
    s = Session()
    s.send("c2s", discover())
    s.send("s2c", discover_result(["2026-07-28"]))
    assert s.facts.server_info is None


# --- method_allowed ----------------------------------------------------------------


def test_known_versions() -> None:
    assert (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS) == KNOWN_PROTOCOL_VERSIONS
    assert "2026-07-28" in MODERN_PROTOCOL_VERSIONS
    assert {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} <= set(HANDSHAKE_PROTOCOL_VERSIONS)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_handshake_versions(version: str) -> None:
    assert method_allowed("initialize", version, "c2s") is True
    assert method_allowed("notifications/initialized", version, "c2s") is True
    assert method_allowed("server/discover", version, "c2s") is False
    assert method_allowed("subscriptions/listen", version, "c2s") is False
    assert method_allowed("tools/call", version, "c2s") is True
    assert method_allowed("sampling/createMessage", version, "s2c") is True
    assert method_allowed("roots/list", version, "s2c") is True


def test_stateless_version() -> None:
    v = "2026-07-28"
    assert method_allowed("server/discover", v, "c2s") is True
    assert method_allowed("subscriptions/listen", v, "c2s") is True
    assert method_allowed("initialize", v, "c2s") is False
    assert method_allowed("notifications/initialized", v, "c2s") is False
    assert method_allowed("tools/call", v, "c2s") is True
    assert method_allowed("sampling/createMessage", v, "s2c") is False
    assert method_allowed("notifications/progress", v, "s2c") is True


def test_elicitation_arrived_in_2025_06_18() -> None:
    assert method_allowed("elicitation/create", "2025-03-26", "s2c") is False
    assert method_allowed("elicitation/create", "2025-06-18", "s2c") is True


def test_direction_matters() -> None:
    assert method_allowed("tools/call", "2025-11-25", "s2c") is False
    assert method_allowed("sampling/createMessage", "2025-11-25", "c2s") is False
    assert method_allowed("notifications/message", "2025-11-25", "s2c") is True
    assert method_allowed("notifications/message", "2025-11-25", "c2s") is False
    assert method_allowed("notifications/cancelled", "2025-11-25", "c2s") is True
    assert method_allowed("notifications/cancelled", "2025-11-25", "s2c") is True


def test_unknown_method_is_not_allowed() -> None:
    assert method_allowed("no/such/method", "2025-11-25", "c2s") is False


@pytest.mark.parametrize("version", ["2099-01-01", "", "latest", "2025-11-25 "])
def test_unknown_version_gives_none(version: str) -> None:
    assert method_allowed("initialize", version, "c2s") is None
    assert method_allowed("tools/call", version, "s2c") is None


def test_method_allowed_matches_mcp_types_tables() -> None:
    from mcp_types import methods

    for table, direction in (
        (methods.CLIENT_REQUESTS, "c2s"),
        (methods.CLIENT_NOTIFICATIONS, "c2s"),
        (methods.SERVER_REQUESTS, "s2c"),
        (methods.SERVER_NOTIFICATIONS, "s2c"),
    ):
        for method, version in table:
            assert method_allowed(method, version, direction) is True, (method, version, direction)
