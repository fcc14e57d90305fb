"""The official MCP conformance suite's client command, shipped (`mcp-inspect conformance client`).

`client.py` is the adapter the suite runs once per scenario: our mock client
(`inspector/mock/client.py`) doing what the scenario asks of a client, in one
process and one recorded session.
"""
