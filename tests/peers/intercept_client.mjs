// A TypeScript SDK client for the intercept tests: calls tools given as one JSON argument
// ([{tool, args, timeout}]) on a stdio server and prints one JSON line per call (result or error).
// Usage: node intercept_client.mjs CALLS_JSON COMMAND ARG...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [callsJson, command, ...args] = process.argv.slice(2);
const client = new Client({ name: "ts-intercept-test-client", version: "1.0.0" }, { capabilities: {} });
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
await client.connect(transport);
for (const call of JSON.parse(callsJson)) {
  const started = Date.now();
  try {
    const result = await client.callTool({ name: call.tool, arguments: call.args }, undefined, {
      timeout: call.timeout ?? 10000,
    });
    console.log(JSON.stringify({ tool: call.tool, result, ms: Date.now() - started }));
  } catch (error) {
    console.log(
      JSON.stringify({ tool: call.tool, error: String(error?.message ?? error), code: error?.code ?? null }),
    );
  }
}
await client.close();
