"""The MCP hosts' config files: where they are (`table`), reading and format-preserving editing
(`jsonc`, `edit`), what `install` changed (`changes`), the recording gateway behind their HTTP
entries (`gateway`) and `install`/`uninstall` themselves (`install`)."""
