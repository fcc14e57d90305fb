"""Tokens and client registrations kept per issuer + resource in a user-only (0600) JSON file.

Never in the recordings database (the recording holds placeholders). The file
is `$MCP_INSPECTOR_AUTH_FILE`, else `auth.json` in the user's config folder
(`$XDG_CONFIG_HOME/mcp-inspector`, else `~/.config/mcp-inspector`), created
0700/0600 by `private_files`; it is rewritten as a new 0600 file renamed over
the old one (a rename replaces a planted link, never follows it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from inspector.auth.flow import Authorized
from inspector.auth.registration import ClientIdentity
from inspector.auth.tokens import Tokens
from inspector.private_files import atomic_write, make_private_dirs

__all__ = ["AuthStore", "auth_file"]

AUTH_FILE_ENV = "MCP_INSPECTOR_AUTH_FILE"


def auth_file() -> Path:
    """Where tokens are kept (see the module docstring)."""
    given = os.environ.get(AUTH_FILE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mcp-inspector" / "auth.json"


class AuthStore:
    """The file's content: `clients` by issuer, `grants` by "issuer resource"."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or auth_file()

    def _read(self) -> dict[str, Any]:
        try:
            with open(self.path, "rb") as f:
                data = json.loads(f.read() or b"{}")
        except FileNotFoundError:
            return {}
        except ValueError:
            return {}  # unreadable: start over rather than fail the connection
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        make_private_dirs(self.path.parent)
        atomic_write(self.path, json.dumps(data, indent=1).encode(), mode=0o600, follow_links=False)

    def clients(self) -> dict[str, ClientIdentity]:
        """Registered clients by issuer."""
        out = {}
        for issuer, doc in self._read().get("clients", {}).items():
            if isinstance(doc, dict) and isinstance(doc.get("client_id"), str):
                out[issuer] = ClientIdentity(
                    doc["client_id"],
                    doc.get("client_secret"),
                    doc.get("source") or "dcr",
                    doc.get("auth_method"),
                    doc.get("redirect_uri"),  # a DCR client is reused only with the URI it registered
                )
        return out

    def grant_for(self, server_url: str) -> Authorized | None:
        """The last grant for this server URL (its tokens, client, issuer, endpoints)."""
        doc = self._read().get("servers", {}).get(server_url)
        if not isinstance(doc, dict):
            return None
        try:
            return Authorized(
                Tokens.from_json(doc["tokens"]),
                ClientIdentity(**doc["client"]),
                doc["issuer"],
                doc.get("resource"),
                doc["metadata"],
                doc.get("scope"),
                doc.get("dpop") if isinstance(doc.get("dpop"), dict) else None,
            )
        except (KeyError, TypeError):
            return None

    def save(self, server_url: str, done: Authorized) -> None:
        """Keep a grant (and its client, when registered dynamically, for reuse with the issuer)."""
        data = self._read()
        if done.client.source == "dcr":
            data.setdefault("clients", {})[done.issuer] = done.client.to_json()
        data.setdefault("grants", {})[f"{done.issuer} {done.resource or ''}"] = done.tokens.to_json()
        data.setdefault("servers", {})[server_url] = {
            "tokens": done.tokens.to_json(),
            "client": done.client.to_json(),
            "issuer": done.issuer,
            "resource": done.resource,
            "metadata": done.metadata,
            "scope": done.scope,
            "dpop": done.dpop,  # the key the tokens are bound to (a private JWK): this file only
        }
        self._write(data)
