// "Edit and resend" (/client/resend/:sessionId/:seq): choose where a recorded client message goes,
// a connected mock client or a new connection to the recorded session's target; the client
// workspace then opens its raw composer with the message prefilled (?resend=SESSION:SEQ).
import { useEffect, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { clientApi, VERSIONS } from "./api";
import "./client.css";

type Source = components["schemas"]["ResendOut"];

export function ResendPage() {
  const { sessionId, seq } = useParams();
  const navigate = useNavigate();
  const [doc, setDoc] = useState<Source | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState("2025-11-25");
  useEffect(() => {
    const path = { session_id: Number(sessionId), seq: Number(seq) };
    api
      .GET("/api/sessions/{session_id}/messages/{seq}/resend", { params: { path } })
      .then(unwrap)
      .then(setDoc, (e: Error) => setError(e.message));
  }, [sessionId, seq]);
  const open = (clientId: string) => navigate(`/client/${clientId}?resend=${sessionId}:${seq}`);

  async function connect() {
    if (!doc?.target) return;
    setBusy(true);
    setError(null);
    try {
      const created = await clientApi.create({
        target: doc.target as components["schemas"]["ClientTarget"],
        protocol_version: version,
        headers: {},
        timeout: 60,
        responders: {},
      });
      open(created.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (error && !doc) return <p className="error empty">{error}</p>;
  if (!doc) return <p className="empty">Loading…</p>;
  const target = doc.target ? (doc.target.command ? (doc.target.command as string[]).join(" ") : String(doc.target.url)) : null;
  return (
    <div className="client-connect">
      <div className="card stack">
        <h2>
          Edit and resend #{doc.seq} of session {doc.session_id}
        </h2>
        <pre className="raw-text">{doc.text}</pre>
        <h3>Send it from</h3>
        {doc.clients.length === 0 && <p className="muted">No mock client is connected.</p>}
        <ul aria-label="connected clients">
          {doc.clients.map((c) => (
            <li key={String(c.id)}>
              <button onClick={() => open(String(c.id))}>
                Use {String(c.id)} ({Array.isArray(c.target) ? c.target.join(" ") : String(c.target)})
              </button>
              {c.same_target ? <span className="muted small"> same target as the recording</span> : null}
            </li>
          ))}
        </ul>
        {target ? (
          <div className="actions">
            <button disabled={busy} onClick={connect}>
              {busy ? "Connecting…" : `Connect to ${target}`}
            </button>
            <select aria-label="protocol version" value={version} onChange={(e) => setVersion(e.target.value)}>
              {VERSIONS.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </div>
        ) : (
          <p className="muted">The recorded session has no target to connect to: connect a client first.</p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
