"""What a recording holds of MCP Apps: view tools, `ui://` resources, tool calls to open.

Input is the session's recorded exchanges (request and answer bodies, parsed),
in seq order: `tools/list`, `resources/list`, `resources/read` and `tools/call`.
The catalog keeps the newest declaration of each tool and resource (a server
may list again after `list_changed`), the text of each read `ui://` resource,
and every recorded call, so that a view's own requests can be answered from
the recording (`answer`: same tool and arguments, or same resource URI).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["APP_MIME_TYPE", "EXTENSION_ID", "AppCatalog", "AppRequest", "build_catalog", "ui_meta"]

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
METHODS = ("tools/list", "resources/list", "resources/read", "tools/call")


@dataclass(frozen=True)
class AppRequest:
    """One recorded request of an App (a tools/call or resources/read) with its answer (None: never answered)."""

    seq: int  # the request's seq
    method: str
    params: dict[str, Any]
    answer_seq: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


def ui_meta(obj: Any) -> dict[str, Any]:
    """`_meta.ui` of a tool, resource or content item ({} when absent or malformed)."""
    if not isinstance(obj, dict):
        return {}
    meta = obj.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def _is_app_mime(mime: Any) -> bool:
    return isinstance(mime, str) and mime.replace(" ", "").lower() == APP_MIME_TYPE


@dataclass
class AppCatalog:
    """The Apps of one recorded session."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> declaration
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)  # uri -> summary
    calls: list[AppRequest] = field(default_factory=list)  # every recorded tools/call
    reads: list[AppRequest] = field(default_factory=list)  # every recorded resources/read

    def view_uri(self, tool: str) -> str | None:
        decl = self.tools.get(tool)
        uri = ui_meta(decl).get("resourceUri")
        if uri is None and isinstance(decl, dict) and isinstance(decl.get("_meta"), dict):
            uri = decl["_meta"].get("ui/resourceUri")  # the draft's older flat key
        return uri if isinstance(uri, str) and uri.startswith("ui://") else None

    def view_calls(self) -> list[AppRequest]:
        """The recorded calls of tools that declare a view."""
        return [c for c in self.calls if self.view_uri(str(c.params.get("name"))) is not None]

    def call(self, seq: int) -> AppRequest | None:
        return next((c for c in self.calls if c.seq == seq), None)

    def content(self, uri: str) -> dict[str, Any] | None:
        """The newest recorded content item of `uri` (text and its `_meta`), or None."""
        for read in reversed(self.reads):
            if read.params.get("uri") != uri or read.result is None:
                continue
            for item in read.result.get("contents") or []:
                if isinstance(item, dict) and item.get("uri", uri) == uri:
                    return item
        return None

    def answer(self, method: str, params: Any) -> AppRequest | None:
        """The recorded exchange that answers a view's request: the newest one with the same tool and
        arguments (tools/call) or the same URI (resources/read); None when the recording has none."""
        if not isinstance(params, dict):
            return None
        if method == "tools/call":
            name, args = params.get("name"), params.get("arguments") or {}
            found = [
                c
                for c in self.calls
                if c.params.get("name") == name and (c.params.get("arguments") or {}) == args
            ]
        elif method == "resources/read":
            found = [r for r in self.reads if r.params.get("uri") == params.get("uri")]
        else:
            return None
        answered = [e for e in found if e.result is not None or e.error is not None]
        return answered[-1] if answered else None


def build_catalog(exchanges: list[AppRequest]) -> AppCatalog:
    """The catalog of a session's exchanges (seq order)."""
    cat = AppCatalog()
    for ex in exchanges:
        result = ex.result or {}
        if ex.method == "tools/list":
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    cat.tools[tool["name"]] = tool
        elif ex.method == "resources/list":
            for res in result.get("resources") or []:
                uri = res.get("uri") if isinstance(res, dict) else None
                if isinstance(uri, str) and (uri.startswith("ui://") or _is_app_mime(res.get("mimeType"))):
                    entry = cat.resources.setdefault(uri, {"uri": uri})
                    entry.update(listed=res, list_seq=ex.seq)
        elif ex.method == "resources/read":
            cat.reads.append(ex)
            uri = ex.params.get("uri")
            if isinstance(uri, str) and uri.startswith("ui://"):
                entry = cat.resources.setdefault(uri, {"uri": uri})
                entry["read_seq"] = ex.seq
        elif ex.method == "tools/call":
            cat.calls.append(ex)
    # Tools only keep a view when it is a ui:// URI (a host renders nothing else).
    cat.tools = {n: t for n, t in cat.tools.items() if cat.view_uri(n) is not None}
    return cat
