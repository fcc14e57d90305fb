"""`python -m inspector` is `mcp-inspect`."""

from inspector.cli import main

main()
