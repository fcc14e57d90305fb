"""The network view of an HTTP session (kept importable here; the grouping is sans-IO and lives in
`inspector.protocol.http_groups`, shared with the HAR export)."""

from inspector.protocol.http_groups import HTTP_CHANNELS, group_exchanges, header_dict

__all__ = ["HTTP_CHANNELS", "group_exchanges", "header_dict"]
