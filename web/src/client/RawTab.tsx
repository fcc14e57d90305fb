// The raw composer: any text sent as one message (valid, a batch, or not JSON at all), an
// automatic id for requests, and the history of what was sent and what came back.
// "Edit and resend" opens it with `?resend=SESSION:SEQ`: the recorded message's body, prefilled.
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { api, unwrap } from "../api/client";
import { JsonBox } from "./Content";
import { clientApi } from "./api";

type Sent = { text: string; received: unknown[]; error?: string };

let nextId = 1;
const template = () => JSON.stringify({ jsonrpc: "2.0", id: `raw-${nextId++}`, method: "ping" }, null, 2);

export function RawTab({ clientId }: { clientId: string }) {
  const [text, setText] = useState(template);
  const [history, setHistory] = useState<Sent[]>([]);
  const [busy, setBusy] = useState(false);
  const [source, setSource] = useState<string | null>(null);
  const [params] = useSearchParams();
  const resend = params.get("resend");
  useEffect(() => {
    const m = /^(\d+):(\d+)$/.exec(resend ?? "");
    if (!m) return;
    const path = { session_id: Number(m[1]), seq: Number(m[2]) };
    api
      .GET("/api/sessions/{session_id}/messages/{seq}/resend", { params: { path } })
      .then(unwrap)
      .then(
        (doc) => {
          setText(doc.text);
          setSource(`Editing message #${doc.seq} of session ${doc.session_id}: change it, then send.`);
        },
        (e: Error) => setSource(`Could not load the message to resend: ${e.message}`),
      );
  }, [resend]);
  async function send() {
    setBusy(true);
    try {
      const out = await clientApi.raw(clientId, text);
      setHistory((h) => [{ text, received: out.received }, ...h]);
    } catch (e) {
      setHistory((h) => [{ text, received: [], error: (e as Error).message }, ...h]);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="pane raw-composer">
      {source && (
        <p className="muted small" data-testid="resend-source">
          {source}
        </p>
      )}
      <textarea className="wide-input code" rows={8} aria-label="raw message" value={text} onChange={(e) => setText(e.target.value)} />
      <div className="actions">
        <button onClick={send} disabled={busy || !text}>
          Send raw
        </button>
        <button onClick={() => setText(template())}>New request (next id)</button>
      </div>
      <ol className="history" aria-label="raw history">
        {history.map((h, i) => (
          <li key={history.length - i} className="card">
            <pre className="raw-text">{h.text}</pre>
            {h.error && <p className="error">{h.error}</p>}
            {h.received.length ? (
              h.received.map((m, j) => <JsonBox key={j} value={m} />)
            ) : (
              <p className="muted small">no answer from the server within the wait (see the session timeline)</p>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
