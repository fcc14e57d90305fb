"""The one exception tree of mcp-inspector: every exception class is defined here.

Bad bytes on the wire are never exceptions: they are recorded with a parse
status. An `InspectorError` carries a message meant for the person at the
terminal (the CLI prints it and exits non-zero; the API answers 4xx with it).
The others are signals between our own parts, caught where they are raised
for: none reaches a user as it is.

    Exception
    ├── InspectorError               a user's mistake or an environment problem
    │   ├── StoreError                   the recording database cannot be used
    │   │   ├── CorruptDatabaseError         not an SQLite database, or damaged
    │   │   └── SchemaTooNewError            written by a newer mcp-inspector
    │   ├── NotFoundError                a session (or message) that does not exist
    │   ├── MissingSecretsError          a recorded command's [secret:NAME] placeholders were not given
    │   ├── MissingExtraError            a feature whose packages are an extra that is not installed
│   ├── SpawnError                   the wrapped server command could not start
    │   ├── RuntimeDirError              the runtime directory is not safe to use
    │   ├── HostFileError                a host's MCP config file that cannot be read or parsed (FILE:LINE:COL)
    │   ├── RulesError                   an intercept rules file (or live rule) that cannot be used
    │   ├── InterceptRemoteError         an intercepting process not found, or it refused
    │   ├── ScenarioError                a scenario file that cannot be read
    │   ├── SkillVerificationError       a skill file whose size, digest or frontmatter differs (SEP-2640)
    │   ├── HarFormatError               a HAR file that is not HAR 1.2
    │   ├── FileFormatError              a session file's line that is not the format
    │   ├── SettingsError                a settings value (config file, variable, flag) its key does not take
    │   └── AuthFailure                  an OAuth flow's expectation failed (step, expectation id)
    ├── ControlError                 a control channel (intercept's, serve's) refuses a request: HTTP status
    ├── RequestError                 an `Endpoint` handler answers with a JSON-RPC error
    ├── ResponseTimeout              no response with that id arrived in time
    ├── ConnectionClosed             our connection's server side is gone
    ├── RequestCancelled             the mock client's user cancelled a request in flight
    ├── Unsupported                  the server did not declare the capability (mock client)
    ├── NotSubscribed                unsubscribing from a URI not subscribed to (mock client)
    ├── UpstreamError                the proxy's upstream failed (the proxy answers 502)
    │   ├── ConnectError                 no connection (refused, unknown host, TLS)
    │   │   └── ConnectTimeout               not within the connect timeout
    │   ├── RemoteProtocolError          not HTTP/1.1, or closed before the response's end
    │   └── RequestBodyError             the request body could not be sent whole
    ├── StartFailed                  the UI's hosted client could not start its server
    ├── ServeStartFailed             the UI's serve process exited before it was ready
    ├── NotLean                      lint's lean schema copy cannot handle a part: use the original
    └── HandedOff                    wrap's copies went to a finishing process before the session
    ValueError
    ├── TemplateError                a scenario placeholder whose path has no value
    ├── BadRetry                     a 2026-07-28 retry a mock server refuses (-32602; mock/session.py)
    └── JsoncError                   text that is not JSON (or JSONC): the line and column (hosts/jsonc.py)
    RuntimeError
    └── BlobMissingError             a row names a blob the store does not hold
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthFailure",
    "BlobMissingError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectionClosed",
    "ControlError",
    "CorruptDatabaseError",
    "FileFormatError",
    "HandedOff",
    "HarFormatError",
    "InspectorError",
    "MissingExtraError",
    "InterceptRemoteError",
    "MissingSecretsError",
    "NotFoundError",
    "NotLean",
    "NotSubscribed",
    "RemoteProtocolError",
    "RequestBodyError",
    "RequestCancelled",
    "RequestError",
    "ResponseTimeout",
    "RulesError",
    "RuntimeDirError",
    "HostFileError",
    "ScenarioError",
    "SchemaTooNewError",
    "ServeStartFailed",
    "SettingsError",
    "SkillVerificationError",
    "SpawnError",
    "StartFailed",
    "StoreError",
    "TemplateError",
    "JsoncError",
    "Unsupported",
    "UpstreamError",
]


class InspectorError(Exception):
    """Base class: an error with a message meant for the user."""


class StoreError(InspectorError):
    """The recording database cannot be opened or written."""


class CorruptDatabaseError(StoreError):
    """The database file is not an SQLite database or is damaged."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer version of mcp-inspector."""


class NotFoundError(InspectorError):
    """A session or message that does not exist."""


class SpawnError(InspectorError):
    """The server command could not be started.

    `exit_code` is what a shell exits with for the same failure: 127 when the
    command is not found, 126 when it is found but cannot be executed.
    """

    def __init__(self, message: str, exit_code: int = 126) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class MissingSecretsError(InspectorError):
    """A command copied from a recording holds `[secret:NAME]` placeholders that nobody supplied."""


class MissingExtraError(InspectorError):
    """A feature whose packages are an optional extra (pyproject's optional-dependencies) that is
    not installed: PostgreSQL (`postgres`: psycopg), OpenTelemetry export (`otel`: the SDK)."""

    def __init__(self, feature: str, extra: str) -> None:
        super().__init__(
            f"{feature} needs the {extra} extra: pip install 'mcp-inspector[{extra}]' "
            f"(or uv tool install 'mcp-inspector[{extra}]')"
        )
        self.extra = extra


class RuntimeDirError(InspectorError):
    """The runtime directory is not safe to use (owned by someone else, open to others, a link)."""


class HostFileError(InspectorError):
    """A host's MCP config file (Claude Desktop's, VS Code's, Codex's...) that cannot be read or
    parsed: the message names FILE:LINE:COL; the file is left as it is."""


class RulesError(InspectorError):
    """A rules file (or a rule given live) that cannot be used; the message says where."""


class InterceptRemoteError(InspectorError):
    """An intercepting process could not be found or refused a request; the message says why."""


class ScenarioError(InspectorError):
    """A scenario file that cannot be read or does not follow the format."""


class SkillVerificationError(InspectorError):
    """A skill file (SEP-2640) that does not match its `skills/list` entry (size, digest, or the
    SKILL.md frontmatter): its content is not used. `uri` is the file, `check` size|digest|frontmatter."""

    def __init__(self, uri: str, check: str, message: str) -> None:
        super().__init__(f"skill file {uri}: {message}")
        self.uri = uri
        self.check = check


class HarFormatError(InspectorError):
    """A HAR file that is not what HAR 1.2 says, with where."""


class FileFormatError(InspectorError):
    """A line that is not what the format says, with its number (1-based)."""

    def __init__(self, line: int, message: str, source: str = "") -> None:
        where = f"{source}:{line}" if source else f"line {line}"
        super().__init__(f"{where}: {message}")
        self.line = line


class SettingsError(InspectorError):
    """A settings value that its key does not take: `key` is its dotted place (`servers.0.record`),
    `message` what is wrong; `settings.load` adds where the value came from."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


class AuthFailure(InspectorError):
    """The flow stopped because an expectation failed: `expectation` is a short id, e.g. `issuer-mismatch`."""

    def __init__(self, step: str, expectation: str, message: str, spec: str = "") -> None:
        super().__init__(f"authorization failed at {step}: {message}")
        self.step = step
        self.expectation = expectation
        self.spec = spec


class ControlError(Exception):
    """A control channel (an intercepting process's, `serve`'s) refuses a request: `status` is the HTTP
    status it answers with, the message its reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RequestError(Exception):
    """Raised by an `on_request` handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ResponseTimeout(Exception):
    """No response with that id arrived in time."""


class ConnectionClosed(Exception):
    """The server side is gone (EOF, process exit, stream closed)."""


class RequestCancelled(Exception):
    """The user cancelled the request while it was in flight."""

    def __init__(self, item: Any) -> None:
        super().__init__(
            f"request {item.key} ({item.method}) was cancelled: {item.cancel_reason or 'no reason given'}"
        )
        self.item = item


class Unsupported(Exception):
    """The server did not declare the capability (or the revision has no such method)."""


class NotSubscribed(Exception):
    """Unsubscribing from a URI the client is not subscribed to."""


class UpstreamError(Exception):
    """Talking to the upstream server failed (the proxy answers 502, or cuts the response short)."""


class ConnectError(UpstreamError):
    """No connection to the upstream server (refused, unknown host, TLS handshake failed)."""


class ConnectTimeout(ConnectError):
    """The connection was not established within the connect timeout."""


class RemoteProtocolError(UpstreamError):
    """The server sent something that is not HTTP/1.1, or closed the connection before the response's end."""


class RequestBodyError(UpstreamError):
    """The request body could not be sent whole (its source ended early or failed)."""


class StartFailed(Exception):
    """The server could not be started or did not complete the handshake."""


class ServeStartFailed(Exception):
    """The serve process exited (or stayed silent) before it was ready; the text is its output."""


class NotLean(Exception):
    """A part of the schema the lean copy does not handle: use the original validator alone."""


class HandedOff(Exception):
    """The copies went to a finishing process before this store created its session."""


class TemplateError(ValueError):
    """A placeholder whose path has no value in the context."""


class BadRetry(ValueError):
    """A 2026-07-28 retry the server refuses (-32602): a requestState it did not issue, or
    inputResponses that are not objects."""


class JsoncError(ValueError):
    """Not valid JSON (or JSONC): `line` and `col` (1-based) say where, `reason` what."""

    def __init__(self, message: str, text: str, offset: int) -> None:
        self.line = text.count("\n", 0, offset) + 1
        self.col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        self.reason = message
        super().__init__(f"line {self.line} column {self.col}: {message}")


class BlobMissingError(RuntimeError):
    """A row names a blob the store does not hold (a damaged store)."""
