// A TypeScript SDK client for the `mcp-inspect serve` tests: answers sampling, roots and elicitation
// with fixed values, calls the tools named on the command line and prints one JSON line per call.
// Usage: node serve_client.mjs (stdio COMMAND ARG... | http URL) -- TOOL[@MS]...
// MS: the call's timeout in milliseconds (5000 by default): a shorter one for a call that is
// expected to time out (a tool that never answers) keeps the run short.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const target = argv.slice(0, sep);
const tools = argv.slice(sep + 1);

const client = new Client(
  { name: "ts-serve-test-client", version: "1.0.0" },
  { capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: { form: {}, url: {} } } },
);
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "hello from the ts sdk" },
  model: "ts-model",
  stopReason: "endTurn",
}));
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///ts/project", name: "ts project" }],
}));
client.setRequestHandler(ElicitRequestSchema, async (request) =>
  request.params.mode === "url" ? { action: "accept" } : { action: "accept", content: { name: "Grace" } },
);

const transport =
  target[0] === "http"
    ? new StreamableHTTPClientTransport(new URL(target[1]))
    : new StdioClientTransport({ command: target[1], args: target.slice(2), stderr: "inherit" });
await client.connect(transport);
console.log(JSON.stringify({ connected: client.getServerVersion(), protocol: transport.protocolVersion ?? null }));
for (const spec of tools) {
  const [name, ms] = spec.split("@");
  try {
    const result = await client.callTool({ name, arguments: { text: "hi", prompt: "hello?" } }, undefined, {
      timeout: ms ? Number(ms) : 5000,
    });
    console.log(JSON.stringify({ tool: name, result }));
  } catch (error) {
    console.log(JSON.stringify({ tool: name, error: String(error?.message ?? error), code: error?.code ?? null }));
  }
}
await client.close();
