// A TypeScript SDK client with the SDK's own OAuth support (an `authProvider`), for the
// `mcp-inspect serve --auth` tests. The provider keeps everything in memory and plays the
// browser itself: it follows the authorization URL without a person (the AS approves at once)
// and takes the code from the redirect. Prints one JSON line per event.
// Usage: node serve_auth_client.mjs URL TOOL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool] = process.argv.slice(2);
const REDIRECT = "http://127.0.0.1:9/callback"; // never reached: the provider reads the Location itself

class MemoryProvider {
  constructor() {
    this.saved = {};
    this.code = undefined;
    this.issued = [];
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "ts sdk test client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    };
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(info) {
    this.saved.client = info;
    if (info.client_secret) this.issued.push(info.client_secret);
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
    this.issued.push(tokens.access_token, tokens.refresh_token);
  }
  saveCodeVerifier(verifier) {
    this.saved.verifier = verifier;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    const answer = await fetch(authorizationUrl, { redirect: "manual" });
    const location = new URL(answer.headers.get("location"));
    this.code = location.searchParams.get("code") ?? undefined;
    if (this.code) this.issued.push(this.code);
    console.log(JSON.stringify({ authorize: authorizationUrl.searchParams.get("scope"), status: answer.status }));
  }
}

const provider = new MemoryProvider();
const client = new Client({ name: "ts-serve-auth-client", version: "1.0.0" }, { capabilities: {} });
let transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
try {
  try {
    await client.connect(transport);
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.code) throw error;
    await transport.finishAuth(provider.code);
    transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await client.connect(transport);
  }
  const result = await client.callTool({ name: tool, arguments: { text: "from ts" } });
  console.log(JSON.stringify({ tool, result }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error?.message ?? error), name: error?.constructor?.name ?? null }));
}
console.log(JSON.stringify({ issued: provider.issued }));
await client.close().catch(() => {});
process.exit(0);
