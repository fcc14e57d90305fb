// Preloaded into a Node MCP server (`node --require THIS server.js stdio`): the process ends soon
// after its stdin ends, as the MCP stdio transport's shutdown expects of a server, even when a
// timer of its own is still pending. server-everything asks `roots/list` 350 ms after
// `notifications/initialized`; a client that closes its stdin before then leaves that request
// waiting on the SDK's 60 s timeout, and the inspector then waits its 2 s grace and sends SIGTERM.
// Where that grace is not what a test looks at, it spends 2 s a session for nothing.
process.stdin.on("end", () => setTimeout(() => process.exit(0), 100).unref());
