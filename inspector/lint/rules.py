"""Every conformance rule: id, severity, summary and where the spec states it.

Severities follow the spec's wording (MUST / MUST NOT: error; SHOULD /
SHOULD NOT: warning). `since` is the first revision that states the rule; a
rule is only applied to messages of that revision or later. Pages are paths
under `https://modelcontextprotocol.io/specification/<revision>/`; the spec
texts in `shared/spec/` carry the same sections (2025-03-26 in Chinese:
4.1.1 messages, 4.1.1.3 batching, 4.2.1 lifecycle, 5.2 Streamable HTTP).
"""

from __future__ import annotations

from inspector.lint.findings import Rule, Severity

__all__ = ["RULES", "rule"]


def _stdout_rule(cls_id: str, severity: Severity, summary: str) -> Rule:
    """The rule of one class of stdout line (`protocol.stdout_lines.CLASSES`): `stdout-<class>`."""
    return Rule(f"stdout-{cls_id}", severity, summary, "Transports › stdio", "basic/transports#stdio")


_ALL = (
    Rule(
        "malformed-json",
        "error",
        "The message is not valid UTF-8 JSON: JSON-RPC messages MUST be UTF-8 encoded JSON, and stdio peers "
        "MUST NOT write anything that is not a valid MCP message.",
        "Transports › stdio",
        "basic/transports#stdio",
    ),
    Rule(
        "invalid-jsonrpc",
        "error",
        "The JSON is not a valid JSON-RPC 2.0 request, notification or response.",
        "Base protocol › Messages",
        "basic#messages",
    ),
    Rule(
        "method-not-in-revision",
        "error",
        "The method is not part of this revision's schema in this direction.",
        "Schema reference",
        "schema",
    ),
    Rule(
        "unknown-method",
        "info",
        "The method is not an MCP method of any known revision (custom or experimental); it was not checked.",
        "Schema reference",
        "schema",
    ),
    Rule(
        "invalid-shape",
        "error",
        "The message does not match this revision's schema for its method.",
        "Schema reference",
        "schema",
    ),
    Rule(
        "unknown-response-id",
        "error",
        "A response MUST carry the id of the request it answers; no pending request has this id.",
        "Base protocol › Responses",
        "basic#responses",
    ),
    Rule(
        "error-id-null",
        "error",
        "An error response MUST carry the id of the request it answers; JSON-RPC allows a null id only "
        "when that id could not be read (e.g. the request was not valid JSON).",
        "Base protocol › Responses",
        "basic#responses",
    ),
    Rule(
        "error-id-null-in-revision",
        "warning",
        "Before 2025-11-25 every response carries its request's id, a string or a number, never null "
        "(unlike JSON-RPC); a null id for a request whose id could not be read is outside this revision.",
        "Base protocol › Responses",
        "basic#responses",
    ),
    Rule(
        "duplicate-request-id",
        "error",
        "A request id MUST NOT have been used before by the same sender within the session.",
        "Base protocol › Requests",
        "basic#requests",
    ),
    Rule(
        "request-before-initialization",
        "warning",
        "The client SHOULD NOT send requests other than pings before the server answered initialize; the "
        "server SHOULD NOT send requests other than pings and logging before the initialized notification.",
        "Lifecycle › Initialization",
        "basic/lifecycle#initialization",
    ),
    Rule(
        "initialize-in-batch",
        "error",
        "The initialize request MUST NOT be part of a JSON-RPC batch.",
        "Lifecycle › Initialization",
        "basic/lifecycle#initialization",
        since="2025-03-26",
    ),
    Rule(
        "batch-not-allowed",
        "error",
        "JSON-RPC batching was removed in 2025-06-18: each message MUST be a single request, notification "
        "or response.",
        "Transports › Sending messages to the server",
        "basic/transports#sending-messages-to-the-server",
        since="2025-06-18",
    ),
    Rule(
        "client-capability-not-declared",
        "warning",
        "The server SHOULD only use capabilities the client declared (sampling, roots, elicitation).",
        "Lifecycle › Operation",
        "basic/lifecycle#operation",
    ),
    Rule(
        "server-capability-not-declared",
        "warning",
        "The client SHOULD only use capabilities the server declared (tools, resources, subscribe, prompts, "
        "logging, completions).",
        "Lifecycle › Operation",
        "basic/lifecycle#operation",
    ),
    Rule(
        "sampling-tools-not-declared",
        "error",
        "Servers MUST NOT send tool-enabled sampling requests to clients that did not declare sampling.tools.",
        "Sampling › Tools in Sampling",
        "client/sampling#tools-in-sampling",
        since="2025-11-25",
    ),
    Rule(
        "elicitation-mode-not-declared",
        "error",
        "Servers MUST NOT send elicitation requests with modes the client did not declare "
        "(an empty elicitation capability means form mode only).",
        "Elicitation › Capabilities",
        "client/elicitation#capabilities",
        since="2025-11-25",
    ),
    Rule(
        "logging-not-declared",
        "error",
        "Servers that emit log message notifications MUST declare the logging capability.",
        "Logging › Capabilities",
        "server/utilities/logging#capabilities",
    ),
    Rule(
        "list-changed-not-declared",
        "warning",
        "A list_changed notification from a peer that did not declare listChanged for that list.",
        "Lifecycle › Capability negotiation",
        "basic/lifecycle#capability-negotiation",
    ),
    Rule(
        "http-accept-header",
        "error",
        "A POST MUST send an Accept header listing application/json and text/event-stream; a GET MUST "
        "list text/event-stream.",
        "Transports › Streamable HTTP",
        "basic/transports#streamable-http",
        since="2025-03-26",
    ),
    Rule(
        "http-content-type",
        "error",
        "A POST carrying requests MUST be answered with Content-Type application/json or text/event-stream.",
        "Transports › Sending messages to the server",
        "basic/transports#sending-messages-to-the-server",
        since="2025-03-26",
    ),
    Rule(
        "http-202-with-body",
        "error",
        "A POST the server accepts that carries only responses or notifications MUST be answered "
        "202 Accepted with no body; the body of a 202 is no JSON-RPC message.",
        "Transports › Sending messages to the server",
        "basic/transports#sending-messages-to-the-server",
        since="2025-03-26",
    ),
    Rule(
        "http-get-answer",
        "error",
        "The server MUST answer a GET on the MCP endpoint with Content-Type text/event-stream (an SSE "
        "stream) or 405 Method Not Allowed; any other answer's body is no JSON-RPC message.",
        "Transports › Listening for messages from the server",
        "basic/transports#listening-for-messages-from-the-server",
        since="2025-03-26",
    ),
    Rule(
        "http-session-id-missing",
        "error",
        "When the server assigned an Mcp-Session-Id at initialization, the client MUST send it on every "
        "later HTTP request.",
        "Transports › Session management",
        "basic/transports#session-management",
        since="2025-03-26",
    ),
    Rule(
        "http-session-id-invalid",
        "error",
        "The session id MUST only contain visible ASCII characters (0x21 to 0x7E).",
        "Transports › Session management",
        "basic/transports#session-management",
        since="2025-03-26",
    ),
    Rule(
        "http-protocol-version-missing",
        "error",
        "After initialization the client MUST send the MCP-Protocol-Version header on every HTTP request.",
        "Transports › Protocol version header",
        "basic/transports#protocol-version-header",
        since="2025-06-18",
    ),
    Rule(
        "http-protocol-version-mismatch",
        "warning",
        "The MCP-Protocol-Version header SHOULD be the version negotiated during initialization.",
        "Transports › Protocol version header",
        "basic/transports#protocol-version-header",
        since="2025-06-18",
    ),
    # Authorization legs (inspector/lint/auth.py); pages of the authorization spec. The revision
    # gates (PRM and `resource` from 2025-06-18, code_challenge_methods_supported from 2025-11-25)
    # are applied by that check, so a leg before the initialize answer is still judged.
    Rule(
        "auth-401-without-resource-metadata",
        "warning",
        "A 401 SHOULD carry WWW-Authenticate with the resource_metadata URL (RFC 9728 5.1): 2025-06-18 "
        "requires it; from 2025-11-25 a server without it MUST serve the well-known metadata URI.",
        "Authorization › Protected Resource Metadata Discovery Requirements",
        "basic/authorization#protected-resource-metadata-discovery-requirements",
    ),
    Rule(
        "auth-resource-metadata-incomplete",
        "error",
        "Protected Resource Metadata MUST be a JSON object with `resource` (RFC 9728 2) and "
        "`authorization_servers` naming at least one authorization server.",
        "Authorization › Authorization Server Location",
        "basic/authorization#authorization-server-location",
    ),
    Rule(
        "auth-server-metadata-incomplete",
        "error",
        "Authorization server metadata MUST have issuer, authorization_endpoint, token_endpoint and "
        "response_types_supported (RFC 8414 2); from 2025-11-25 clients MUST refuse one without "
        "code_challenge_methods_supported.",
        "Authorization › Authorization Server Metadata Discovery",
        "basic/authorization#authorization-server-metadata-discovery",
    ),
    Rule(
        "auth-no-pkce",
        "error",
        "The authorization request MUST use PKCE with the S256 code challenge method.",
        "Authorization › Authorization Code Protection",
        "basic/authorization#authorization-code-protection",
    ),
    Rule(
        "auth-no-resource-parameter",
        "error",
        "The resource parameter (RFC 8707) MUST be included in both authorization requests and token "
        "requests (2025-06-18 and later).",
        "Authorization › Resource Parameter Implementation",
        "basic/authorization#resource-parameter-implementation",
    ),
    Rule(
        "auth-token-in-query",
        "error",
        "Access tokens MUST NOT be included in the URI query string; they go in the Authorization header.",
        "Authorization › Token Requirements",
        "basic/authorization#token-requirements",
    ),
    Rule(
        "auth-issuer-mismatch",
        "error",
        "The metadata's issuer MUST be the issuer its URL was formed from (RFC 8414 3.3), and an "
        "authorization response's iss MUST be that issuer (RFC 9207).",
        "Authorization › Authorization Server Metadata Discovery",
        "basic/authorization#authorization-server-metadata-discovery",
    ),
    # 2026-07-28 on the wire (inspector/lint/wire2026.py and shapes.py); pages of that revision.
    Rule(
        "routing-header-mismatch",
        "error",
        "Servers MUST reject requests where the values specified in the headers do not match the "
        "corresponding values in the request body (Mcp-Method, Mcp-Name, Mcp-Param-*; 400 HeaderMismatch).",
        "Transports › Server Validation",
        "basic/transports/streamable-http#server-validation",
        since="2026-07-28",
    ),
    Rule(
        "routing-header-missing",
        "error",
        "Mcp-Method (all requests) and Mcp-Name (tools/call, resources/read, prompts/get) are REQUIRED; "
        "a client MUST include an Mcp-Param-{Name} header for an x-mcp-header parameter it sends.",
        "Transports › Standard Request Headers",
        "basic/transports/streamable-http#standard-request-headers",
        since="2026-07-28",
    ),
    Rule(
        "routing-header-invalid",
        "error",
        "Clients MUST encode a value that is not plain header-safe ASCII as =?base64?{Base64EncodedValue}?=; "
        "servers MUST reject a header that contains invalid characters or a malformed encoding.",
        "Transports › Value Encoding",
        "basic/transports/streamable-http#value-encoding",
        since="2026-07-28",
    ),
    Rule(
        "protocol-version-header-mismatch",
        "error",
        "The MCP-Protocol-Version header value MUST match the io.modelcontextprotocol/protocolVersion "
        "field carried in the request body's _meta.",
        "Transports › Protocol Version Header",
        "basic/transports/streamable-http#protocol-version-header",
        since="2026-07-28",
    ),
    Rule(
        "cache-hints-missing",
        "error",
        "Servers MUST include caching hints (ttlMs, cacheScope) on complete results of tools/list, "
        "prompts/list, resources/list, resources/read and resources/templates/list.",
        "Caching",
        "server/utilities/caching",
        since="2026-07-28",
    ),
    Rule(
        "log-message-without-level",
        "error",
        "The server MUST NOT emit notifications/message for a request that does not include "
        "io.modelcontextprotocol/logLevel in its _meta.",
        "Logging › Per-request log level",
        "server/utilities/logging#per-request-log-level",
        since="2026-07-28",
    ),
    Rule(
        "session-id-in-2026",
        "warning",
        "Protocol-level sessions and the Mcp-Session-Id header were removed in 2026-07-28; a server SHOULD "
        "ignore the header and not mint or echo session ids.",
        "Transports › Earlier Streamable HTTP Revisions",
        "basic/transports/streamable-http#earlier-streamable-http-revisions",
        since="2026-07-28",
    ),
    Rule(
        "error-code-renumbered",
        "warning",
        "2026-07-28 numbers HeaderMismatch -32020, MissingRequiredClientCapability -32021 and "
        "UnsupportedProtocolVersion -32022 (not -32001/-32003/-32004; new implementations SHOULD NOT use "
        "-32000 to -32019), and servers MUST answer a missing resource with -32602, not -32002.",
        "Base protocol › Error Codes",
        "basic#error-codes",
        since="2026-07-28",
    ),
    Rule(
        "method-removed",
        "error",
        "ping, logging/setLevel, notifications/roots/list_changed and notifications/elicitation/complete "
        "were removed in 2026-07-28.",
        "Key Changes",
        "changelog",
        since="2026-07-28",
    ),
    Rule(
        "feature-deprecated",
        "info",
        "Deprecated in 2026-07-28 (Roots, Sampling, Logging, includeContext thisServer/allServers, the "
        "HTTP+SSE transport, OAuth Dynamic Client Registration): it still works, but new implementations "
        "should not adopt it.",
        "Deprecated Features",
        "deprecated",
    ),
    # Why a stdio server broke (issue 37; inspector/protocol/stdout_lines.py classifies the lines,
    # whose `LineClass` gives each finding what the clients do and the fix).
    _stdout_rule(
        "log-line", "error", "A log line on the server's stdout: stdout MUST carry only MCP messages."
    ),
    _stdout_rule("banner", "error", "A banner on the server's stdout: stdout MUST carry only MCP messages."),
    _stdout_rule(
        "pretty-json",
        "error",
        "A message printed over several lines: stdio messages are delimited by newlines and "
        "MUST NOT contain embedded newlines.",
    ),
    _stdout_rule(
        "content-length",
        "error",
        "Content-Length framed output: the stdio transport is newline-delimited JSON, without headers.",
    ),
    _stdout_rule("bom", "error", "A UTF-8 byte order mark before a message: it is not valid JSON."),
    _stdout_rule("crlf", "info", "Messages end with CRLF; both SDKs accept it, a strict reader may not."),
    _stdout_rule(
        "partial-line",
        "warning",
        "The server's last stdout line had no newline: messages are delimited by newlines.",
    ),
    Rule(
        "server-crashed",
        "error",
        "The server wrote a traceback (or stack, or panic) to stderr and answered nothing more: the "
        "request in flight then was never answered.",
        "Transports › stdio",
        "basic/transports#stdio",
    ),
    # What a tools/list costs a model (issue #39; thresholds in `lint/sizes.py`).
    Rule(
        "tool-description-large",
        "info",
        "A tool's description is unusually large (over 2,048 bytes, ~512 tokens): every client hands it "
        "to the model with every request; keep the description to what the model needs to choose the tool.",
        "Server features › Tools › Listing tools",
        "server/tools#listing-tools",
    ),
    Rule(
        "tools-list-large",
        "info",
        "The tools/list is unusually large (its tools over 40,000 bytes, ~10,000 tokens): the model "
        "reads it before the conversation starts; fewer tools or shorter descriptions and schemas cost less.",
        "Server features › Tools › Listing tools",
        "server/tools#listing-tools",
    ),
    Rule(
        "revision-unknown",
        "info",
        "No known protocol revision applies (no initialize exchange, header or per-request version, or an "
        "unknown version): version-specific checks were skipped.",
        "Versioning",
        "basic/lifecycle#version-negotiation",
    ),
    Rule(
        "skills-invalid-shape",
        "error",
        "A message of the Skills extension (skills/list, skills/get, resources/directory/read) does not have "
        "the shape SEP-2640 states: entries carry uri, frontmatter (name, description) and resources "
        '({uri, digest: sha256:<hex>, size} for every file, SKILL.md included, or "dynamic").',
        "Schema › ServerCapabilities.extensions (SEP-2640 Skills: modelcontextprotocol.io/seps/2640-skills-extension)",
        "schema#servercapabilities",
    ),
    Rule(
        "skills-extension-not-declared",
        "warning",
        "A client SHOULD call skills/list, skills/get and resources/directory/read only on a server that "
        "declared the io.modelcontextprotocol/skills extension (resources/directory/read: with directoryRead: "
        "true).",
        "Schema › ServerCapabilities.extensions (SEP-2640 Skills: modelcontextprotocol.io/seps/2640-skills-extension)",
        "schema#servercapabilities",
    ),
)

RULES: dict[str, Rule] = {r.id: r for r in _ALL}


def rule(rule_id: str) -> Rule:
    """The rule with this id."""
    return RULES[rule_id]
