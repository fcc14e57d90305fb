// A TypeScript SDK client for the `proxy --faults` tests: runs the tool calls given as JSON and prints
// one JSON line per call (its result or error, the progress seen, the session id before and after).
// Usage: node intercept_http_client.mjs URL '[{"tool": "echo", "args": {...}, "timeout": 2000, "progress": false}]'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, callsJson] = process.argv.slice(2);
const calls = JSON.parse(callsJson);

const transport = new StreamableHTTPClientTransport(new URL(url), {
  reconnectionOptions: {
    initialReconnectionDelay: 100,
    maxReconnectionDelay: 1000,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 3,
  },
});
const client = new Client({ name: "ts-intercept-client", version: "1.0.0" });
await client.connect(transport);
console.log(JSON.stringify({ connected: client.getServerVersion()?.name ?? null, session: transport.sessionId }));
for (const call of calls) {
  const progress = [];
  const before = transport.sessionId;
  const started = Date.now();
  const line = { tool: call.tool, args: call.args, session_before: before };
  try {
    line.result = await client.callTool({ name: call.tool, arguments: call.args }, undefined, {
      timeout: call.timeout ?? 5000,
      onprogress: call.progress ? (p) => progress.push(p.progress) : undefined,
    });
  } catch (error) {
    line.error = String(error?.message ?? error);
    line.code = error?.code ?? null;
  }
  line.ms = Date.now() - started;
  line.progress = progress;
  line.session_after = transport.sessionId;
  console.log(JSON.stringify(line));
}
await client.close();
