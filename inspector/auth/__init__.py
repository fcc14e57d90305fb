"""OAuth 2.1 authorization for the mock client, per MCP revision (issue #15).

The core is sans-IO: `flow.authorize` is a generator that yields the HTTP
requests to make (`steps.Step`, each with the spec's expectation) and is sent
the responses; it never opens a socket. `runner` drives it with httpx,
records every leg into the session (`meta.auth_step`) and keeps tokens and
client registrations in a user-only file (`store`), never in the database.

- `steps`: request/response/step types and `AuthFailure` (which expectation failed);
- `discovery`: WWW-Authenticate, RFC 9728 resource metadata, RFC 8414/OIDC metadata, 2025-03-26 fallbacks;
- `registration`: pre-registered client, Client ID Metadata Document, RFC 7591 registration;
- `pkce`: S256 verifier/challenge and the check that the AS advertises it;
- `tokens`: scope selection, token endpoint auth (secrets, private_key_jwt), code exchange,
  client_credentials, refresh, RFC 9207 `iss`;
- `dpop`: RFC 9449 keys and proofs, when the AS binds tokens to a key;
- `flow`: the whole authorization as one generator;
- `store`: tokens per issuer + resource in a 0600 file;
- `callback`: the loopback redirect listener; `runner`: the httpx driver.
"""
