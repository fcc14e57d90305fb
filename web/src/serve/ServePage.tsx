// The mock server workspace (/serve, /serve/:sessionId): the clients connected to `mcp-inspect serve`;
// push sampling, elicitation, roots, logging or any message to one, and see its answers checked.
import { useState } from "react";
import { Link, useParams } from "react-router";
import { JsonBox } from "../client/Content";
import { ElicitationForm } from "./ElicitationForm";
import { LoggingForm, RawForm, RootsForm, SamplingForm, ToolsForm } from "./Forms";
import { serveApi, type Json, type PushOut, type ServedClient } from "./api";
import { useServed, useTraffic, type Row } from "./hooks";
import { StartServer } from "./StartServer";
import "../client/client.css";
import "./serve.css";

const TABS = ["Sampling", "Elicitation", "Roots", "Logging", "Raw", "Tools"] as const;

type Sent = { n: number; method: string; params: Json | null; kind: "request" | "notification"; out?: PushOut; error?: string };

export function ServePage() {
  const { sessionId } = useParams();
  const { clients, processes, error, load } = useServed();
  if (error) return <p className="error empty">{error}</p>;
  if (clients === null) return <p className="empty">Loading…</p>;
  const chosen = sessionId ? clients.find((c) => c.sessionId === Number(sessionId)) : undefined;
  if (chosen) return <Workspace key={chosen.sessionId} client={chosen} reload={load} />;
  return (
    <div className="client-connect">
      <h2>Mock server</h2>
      <p>
        Start a mock server here (or in a terminal: <code>mcp-inspect serve [SCENARIO] [--http 127.0.0.1:PORT]</code>{" "}
        with the same <code>--db</code> as this UI), point your client at it, and its connections appear below.
      </p>
      <StartServer onChange={load} />
      <p className="muted">
        {processes} serve process(es) running; {clients.length} client(s) connected.
      </p>
      {sessionId && <p className="error">No client connected in session {sessionId}.</p>}
      <h3>Connected clients</h3>
      <ul className="served-list">
        {clients.map((c) => (
          <li key={c.sessionId}>
            <Link to={`/serve/${c.sessionId}`}>
              #{c.sessionId} {String((c.client.clientInfo as Json | undefined)?.name ?? "client")}
            </Link>{" "}
            <span className="muted">
              {c.protocolVersion ?? "not initialized"} {c.closed ? "· disconnected" : ""}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Workspace({ client, reload }: { client: ServedClient; reload: () => void }) {
  const [tab, setTab] = useState<(typeof TABS)[number]>("Elicitation");
  const [sent, setSent] = useState<Sent[]>([]);
  const [counter, setCounter] = useState(0);
  const sid = client.sessionId;
  const traffic = useTraffic(sid);

  const record = (entry: Sent) => setSent((all) => [entry, ...all.filter((s) => s.n !== entry.n)]);
  const send = (method: string, params: Json | null) => {
    const entry: Sent = { n: counter, method, params, kind: "request" };
    setCounter((c) => c + 1);
    record(entry);
    serveApi.request(sid, method, params).then(
      (out) => record({ ...entry, out }),
      (e: Error) => record({ ...entry, error: e.message }),
    );
  };
  const notify = (method: string, params: Json | null) => {
    const entry: Sent = { n: counter, method, params, kind: "notification" };
    setCounter((c) => c + 1);
    serveApi.notify(sid, method, params).then(
      () => record(entry),
      (e: Error) => record({ ...entry, error: e.message }),
    );
  };
  const info = client.client.clientInfo as Json | undefined;
  return (
    <div className="client-workspace">
      <div className="toolbar client-head">
        <strong>{String(info?.name ?? "client")}</strong> <span className="muted">{String(info?.version ?? "")}</span>
        <span className="badge">{client.protocolVersion ?? "?"}</span>
        <Link to={`/sessions/${sid}`}>session #{sid}</Link>
        {client.closed && <span className="error">disconnected</span>}
        {!client.canPush && !client.closed && (
          <span className="error">stateless 2026-07-28 client: requests only travel inside input_required results, notifications on its subscriptions/listen streams</span>
        )}
        <span className="grow" />
        <Link to="/serve">all clients</Link>
      </div>
      <div className="client-body">
        <div className="client-main">
          <details className="serve-caps" open>
            <summary>Client capabilities</summary>
            <JsonBox value={client.client.capabilities ?? {}} />
          </details>
          <div className="tabs">
            {TABS.map((t) => (
              <button key={t} className={`tab ${t === tab ? "active" : ""}`} onClick={() => setTab(t)}>
                {t}
              </button>
            ))}
          </div>
          {tab === "Sampling" && <SamplingForm send={send} />}
          {tab === "Elicitation" && <ElicitationForm send={send} notify={notify} />}
          {tab === "Roots" && <RootsForm send={send} />}
          {tab === "Logging" && <LoggingForm notify={notify} />}
          {tab === "Raw" && <RawForm send={send} notify={notify} />}
          {tab === "Tools" && (
            <ToolsForm
              client={client}
              put={(tool, announce) => serveApi.putTool(sid, tool, announce).then(reload, (e: Error) => alert(e.message))}
              remove={(name, announce) => serveApi.removeTool(sid, name, announce).then(reload, (e: Error) => alert(e.message))}
            />
          )}
        </div>
        <aside className="client-side" aria-label="Answers">
          <h3>Sent</h3>
          {sent.length === 0 && <p className="muted">Nothing sent yet.</p>}
          {sent.map((s) => (
            <SentItem key={s.n} item={s} />
          ))}
          <h3>Traffic (live)</h3>
          <Traffic rows={traffic} />
        </aside>
      </div>
    </div>
  );
}

function SentItem({ item }: { item: Sent }) {
  const answer = item.out?.answer;
  return (
    <div className="result sent-item" data-method={item.method}>
      <div>
        <strong>{item.method}</strong> <span className="muted">{item.kind}</span>{" "}
        {item.out?.latencyMs != null && <span className="latency">{item.out.latencyMs.toFixed(1)} ms</span>}
      </div>
      {item.error && <p className="error">{item.error}</p>}
      {item.kind === "request" && !item.out && !item.error && <p className="muted">waiting for the client…</p>}
      {item.out && answer === null && <p className="error">no answer in time</p>}
      {answer && (
        <div className="client-answer">
          <JsonBox value={answer} />
        </div>
      )}
      {item.out && (
        <ul className="findings">
          {item.out.findings.length === 0 && <li className="ok">follows the spec</li>}
          {item.out.findings.map((f, i) => (
            <li key={i} className={f.level}>
              {f.level}: {f.text} <span className="muted">({f.rule})</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Traffic({ rows }: { rows: Row[] }) {
  if (rows.length === 0) return <p className="muted">No message since this page opened.</p>;
  return (
    <ol className="serve-traffic" data-testid="serve-traffic">
      {rows.map((r) => (
        <li key={r.seq} data-direction={r.direction} data-method={r.method ?? ""}>
          <span className="muted">#{r.seq}</span> {r.direction === "c2s" ? "client →" : "→ client"}{" "}
          <strong>{r.method ?? r.kind}</strong> <code className="preview">{r.preview.slice(0, 160)}</code>
        </li>
      ))}
    </ol>
  );
}
