// One run of a TypeScript SDK client over Streamable HTTP, as a desktop host makes it: connect
// (initialize), list tools, call `echo`, list resources and prompts, close. Prints one JSON line.
// Usage: node ts_run_client.mjs URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "ts-run-client", version: "1.2.3" });
await client.connect(transport);
const tools = await client.listTools();
const echo = await client.callTool({ name: "echo", arguments: { text: "hello" } });
const resources = await client.listResources();
const prompts = await client.listPrompts();
console.log(
  JSON.stringify({
    server: client.getServerVersion()?.name ?? null,
    protocol: transport.protocolVersion ?? null,
    session: transport.sessionId ?? null,
    tools: tools.tools.map((t) => t.name),
    echo: echo.content?.[0]?.text ?? null,
    echo_error: echo.isError ?? false,
    resources: resources.resources.map((r) => r.uri),
    prompts: prompts.prompts.map((p) => p.name),
  }),
);
await client.close();
