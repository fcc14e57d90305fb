"""The official conformance suite run against our client: the adapter (client.py) and the runner (suite.py)."""
