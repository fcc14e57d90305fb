"""MCP Apps (the `io.modelcontextprotocol/ui` extension) rendered from recordings.

- `catalog`: which recorded tools declare a view (`_meta.ui.resourceUri`), which
  `ui://` resources were listed and read, which tool calls can be opened as a view.
- `policy`: the view's Content-Security-Policy from its `_meta.ui.csp`, and the
  iframe `allow` attribute from its `_meta.ui.permissions`.
- `grants`: single-use capability ids behind which the view document is served.

Sans-IO: the API routes (`inspector.api.routes_apps`) read the store and call these.
"""

from inspector.apps.catalog import APP_MIME_TYPE, EXTENSION_ID, AppCatalog, build_catalog
from inspector.apps.grants import ViewGrant, ViewGrants
from inspector.apps.policy import allow_attribute, view_csp

__all__ = [
    "APP_MIME_TYPE",
    "EXTENSION_ID",
    "AppCatalog",
    "ViewGrant",
    "ViewGrants",
    "allow_attribute",
    "build_catalog",
    "view_csp",
]
