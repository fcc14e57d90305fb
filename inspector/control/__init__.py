"""The control channel of intercepting processes: IO around the sans-IO `inspector.intercept`.

`server` (the loopback listener a `--intercept` process starts: `start_control`), `announce` (the
files that say where each listener is), `remote` (calling them from another process) and `watch`
(`mcp-inspect intercept watch`, the terminal client). What a request does to an interceptor is
`Interceptor.commands` (`inspector.intercept.engine.Commands`): this package imports
nothing of `inspector.intercept`, which imports `server` where a process starts its channel.
"""
