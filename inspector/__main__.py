"""`python -m inspector` is `mcp-inspect`."""

from inspector.entry import main

main()
