"""The exceptions mcp-inspector raises for a user's mistake or an environment problem.

Bad bytes on the wire are never exceptions: they are recorded with a parse
status. Everything here carries a message meant for the person at the
terminal; the CLI prints it and exits non-zero.

    InspectorError
    ├── StoreError               the recording database cannot be used
    │   ├── CorruptDatabaseError     not an SQLite database, or damaged
    │   └── SchemaTooNewError        written by a newer mcp-inspector
    ├── NotFoundError            a session (or message) that does not exist
    ├── MissingSecretsError      a recorded command's [secret:NAME] placeholders were not given
    ├── MissingExtraError        a feature whose packages are an extra that is not installed
    └── SpawnError               the wrapped server command could not start
"""

from __future__ import annotations

__all__ = [
    "CorruptDatabaseError",
    "InspectorError",
    "MissingExtraError",
    "MissingSecretsError",
    "NotFoundError",
    "SchemaTooNewError",
    "SpawnError",
    "StoreError",
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
