// The side panels of the client workspace that answer the server: the roots list (answers
// roots/list; saving notifies the server when roots.listChanged was declared), URL elicitations
// (consent before opening, completion, retry of a request that failed with -32042), and the
// inbox history (every answer, who gave it, how long it took).
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import { JsonBox } from "./Content";
import { openableUrl } from "./openableUrl";
import type { ClientDetail, Json, Rpc } from "./api";

type Root = { uri: string; name?: string };
type Elicitation = {
  elicitation_id: string;
  url: string;
  domain: string;
  punycode: boolean;
  openable?: boolean; // the server's judgement (http/https only); the page checks again
  message: string;
  source: string;
  state: string;
  retry: { method: string; params: unknown } | null;
};
type HistoryItem = ClientDetail["inbox_history"][number];

export function rootProblem(uri: string): string | null {
  try {
    const u = new URL(uri);
    return u.protocol === "file:" ? null : `${uri}: a root must be a file:// URI`;
  } catch {
    return `${uri || "(empty)"}: not a URI`;
  }
}

export function WorkspacePanels({ clientId, detail }: { clientId: string; detail: ClientDetail }) {
  return (
    <>
      <RootsPanel clientId={clientId} roots={(detail.roots ?? null) as Root[] | null} />
      {detail.elicitations.length > 0 && (
        <UrlElicitations clientId={clientId} items={detail.elicitations as unknown as Elicitation[]} />
      )}
      <InboxHistory items={detail.inbox_history} />
    </>
  );
}

function RootsPanel({ clientId, roots }: { clientId: string; roots: Root[] | null }) {
  const [rows, setRows] = useState<Root[]>(roots ?? []);
  const [status, setStatus] = useState<string | null>(null);
  const saved = JSON.stringify(roots);
  useEffect(() => setRows(JSON.parse(saved) ?? []), [saved]); // follow what the client holds
  const problems = rows.map((r) => rootProblem(r.uri)).filter((p): p is string => p !== null);
  async function save() {
    setStatus(null);
    try {
      const body = { roots: rows.map((r) => (r.name ? { uri: r.uri, name: r.name } : { uri: r.uri })) };
      const out = await api
        .PUT("/api/clients/{client_id}/roots", { params: { path: { client_id: clientId } }, body })
        .then(unwrap);
      setStatus(out.notified ? "saved; notifications/roots/list_changed sent" : "saved (listChanged not declared)");
    } catch (e) {
      setStatus((e as Error).message);
    }
  }
  const set = (i: number, patch: Partial<Root>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <details className="roots-panel" open={roots !== null}>
      <summary>Roots {roots === null ? "(not set: roots/list goes to the inbox)" : `(${roots.length})`}</summary>
      {rows.map((r, i) => (
        <div key={i} className="actions small root-row">
          <input aria-label={`root ${i + 1} uri`} placeholder="file:///path" value={r.uri} onChange={(e) => set(i, { uri: e.target.value })} />
          <input aria-label={`root ${i + 1} name`} placeholder="name" value={r.name ?? ""} onChange={(e) => set(i, { name: e.target.value })} />
          <button className="link" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
            remove
          </button>
        </div>
      ))}
      {problems.map((p) => (
        <p key={p} className="error small">
          {p}
        </p>
      ))}
      <div className="actions">
        <button onClick={() => setRows([...rows, { uri: "file:///" }])}>Add root</button>
        <button disabled={problems.length > 0} onClick={save}>
          Save roots
        </button>
      </div>
      {status && <p className="muted small" role="status">{status}</p>}
    </details>
  );
}

function UrlElicitations({ clientId, items }: { clientId: string; items: Elicitation[] }) {
  return (
    <section aria-label="URL elicitations" className="stack">
      <h3>URL elicitations</h3>
      {items.map((e) => (
        <UrlElicitationCard key={e.elicitation_id} clientId={clientId} item={e} />
      ))}
    </section>
  );
}

function UrlElicitationCard({ clientId, item }: { clientId: string; item: Elicitation }) {
  const [consent, setConsent] = useState(false);
  const [result, setResult] = useState<Rpc | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function retry() {
    setError(null);
    try {
      const out = await api
        .POST("/api/clients/{client_id}/elicitations/{elicitation_id}/retry", {
          params: { path: { client_id: clientId, elicitation_id: item.elicitation_id } },
        })
        .then(unwrap);
      setResult(out as Rpc);
    } catch (e) {
      setError((e as Error).message);
    }
  }
  return (
    <div className="card stack small url-elicitation" data-state={item.state} data-id={item.elicitation_id}>
      <div className="dialog-head">
        <span>{item.message}</span>
        <span className="grow" />
        <span className="badge" data-testid="elicitation-state">
          {item.state}
        </span>
      </div>
      <span>
        Domain: <strong>{item.domain || "(not a valid URL)"}</strong>
        {item.punycode && <span className="error"> (Punycode: it may imitate another domain)</span>}
      </span>
      <code className="raw-text">{item.url}</code>
      {item.source === "error" && !(item.openable !== false && openableUrl(item.url)) && (
        <p className="error" data-testid="url-refused">
          Not an http(s) URL: it is shown, never opened.
        </p>
      )}
      {item.source === "error" && (
        <>
          <label className="check">
            <input type="checkbox" checked={consent} onChange={(e) => setConsent(e.target.checked)} /> I want to
            open this URL
          </label>
          <div className="actions">
            <button
              disabled={!consent || item.openable === false || !openableUrl(item.url)}
              onClick={() => openableUrl(item.url) && window.open(item.url, "_blank", "noopener,noreferrer")}
            >
              Open URL
            </button>
            {item.retry && (
              <button onClick={retry}>
                Retry {item.retry.method}
                {item.state === "complete" ? " (completed)" : ""}
              </button>
            )}
          </div>
        </>
      )}
      {error && <p className="error">{error}</p>}
      {result && <JsonBox value={result} />}
    </div>
  );
}

function InboxHistory({ items }: { items: HistoryItem[] }) {
  return (
    <details className="inbox-history">
      <summary>Inbox history ({items.length})</summary>
      <ol className="history" aria-label="inbox history">
        {items.map((h) => (
          <li key={`${h.key}-${h.received}`} className="card small" data-method={h.method} data-by={h.by ?? ""}>
            <strong>{h.method}</strong> · {h.by} · {h.waiting_s.toFixed(2)} s
            {h.answer && <JsonBox value={h.answer as Json} />}
          </li>
        ))}
      </ol>
    </details>
  );
}
