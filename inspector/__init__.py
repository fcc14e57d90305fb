"""mcp-inspector: a record/replay debugging inspector for the Model Context Protocol."""

__version__ = "0.1.0"
