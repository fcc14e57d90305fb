// The official TypeScript SDK's client auth (an OAuthClientProvider given to the Streamable HTTP
// transport) against an MCP URL: registers, authorizes (the authorization URL is fetched without
// following redirects, as a browser would open it against a server that approves at once; the code
// comes back in the Location), finishes the auth, reconnects, calls `whoami` and prints one JSON
// line: the tool's text and the secrets it handled (for the test's secrets scan).
// Usage: node oauth_ts_client.mjs URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.argv[2]);
const redirectUrl = "http://127.0.0.1:9/callback"; // never reached: the Location is read instead
let location = null;

const provider = {
  get redirectUrl() {
    return redirectUrl;
  },
  get clientMetadata() {
    return {
      client_name: "ts-sdk-oauth-client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  },
  clientInformation() {
    return this._client;
  },
  saveClientInformation(info) {
    this._client = info;
  },
  tokens() {
    return this._tokens;
  },
  saveTokens(tokens) {
    this._tokens = tokens;
  },
  async redirectToAuthorization(authorizationUrl) {
    const response = await fetch(authorizationUrl, { redirect: "manual" });
    location = response.headers.get("location");
  },
  saveCodeVerifier(verifier) {
    this._verifier = verifier;
  },
  codeVerifier() {
    return this._verifier;
  },
};

async function connect() {
  const client = new Client({ name: "ts-sdk-oauth-client", version: "1.0.0" }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || location === null) throw error;
    const code = new URL(location).searchParams.get("code");
    await transport.finishAuth(code);
    const again = new Client({ name: "ts-sdk-oauth-client", version: "1.0.0" }, { capabilities: {} });
    await again.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return again;
  }
}

const client = await connect();
const result = await client.callTool({ name: "whoami", arguments: {} });
await client.close();
const code = new URL(location).searchParams.get("code");
console.log(
  JSON.stringify({
    text: result.content[0].text,
    secrets: [
      provider._tokens.access_token,
      provider._tokens.refresh_token,
      provider._client.client_secret ?? null,
      code,
      provider._verifier,
    ],
  }),
);
