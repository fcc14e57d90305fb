// "Serve as mock server": the commands that play this session's server side to a real client
// (over stdio from a client's config, or over HTTP at a URL). The UI shows them; you run them.
import { useEffect, useState } from "react";
import { api, unwrap, type MockCommands, type Session } from "../api/client";
import { CopyButton, Dialog } from "./Dialog";

export function Snippet({ text, testId, copyLabel }: { text: string; testId: string; copyLabel: string }) {
  return (
    <div className="snippet">
      <pre className="mono" data-testid={testId} tabIndex={0}>
        {text}
      </pre>
      <CopyButton text={text} label={copyLabel} testId={`${testId}-copy`} />
    </div>
  );
}

export function MockServerDialog({ session, onClose }: { session: Session; onClose: () => void }) {
  const [doc, setDoc] = useState<MockCommands | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .GET("/api/sessions/{session_id}/mock-server", { params: { path: { session_id: session.id } } })
      .then(unwrap)
      .then(setDoc, (e: Error) => setError(e.message));
  }, [session.id]);
  return (
    <Dialog title={`Serve session #${session.id} as a mock server`} onClose={onClose} testId="mock-dialog" wide>
      <p className="muted">
        The mock answers each request with the recorded response (matched by method and params), sends the
        recorded notifications and server requests, and records its own session. Run one of these in a terminal
        or a client config.
      </p>
      {error && <p className="error">{error}</p>}
      {!doc && !error && <p className="muted">Loading…</p>}
      {doc && (
        <>
          <h3>stdio: in your MCP client's config</h3>
          <Snippet
            text={JSON.stringify(doc.stdio.client_config, null, 2)}
            testId="mock-config"
            copyLabel="Copy config"
          />
          <p className="muted">or as a command line:</p>
          <Snippet text={doc.stdio.shell} testId="mock-stdio" copyLabel="Copy command" />
          <h3>Streamable HTTP</h3>
          <Snippet text={doc.http.shell} testId="mock-http" copyLabel="Copy command" />
          <p className="muted">then point your client at:</p>
          <Snippet text={doc.http.url} testId="mock-url" copyLabel="Copy URL" />
          <p className="muted small">
            Port {doc.http.port} was free when this was shown. Recording database: <code>{doc.db}</code>
          </p>
        </>
      )}
    </Dialog>
  );
}
