"""mcp-inspector: a record/replay debugging inspector for the Model Context Protocol."""
