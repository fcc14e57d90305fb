"""Mock client and mock server: play one side of MCP to a real peer."""
