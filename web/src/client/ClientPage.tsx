// The "Connect" workspace (/client, /client/:clientId): connect a mock client, then use the
// server's tools, resources, prompts and a raw composer while answering its requests in the inbox.
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { live } from "../api/live";
import { ConnectForm } from "./ConnectForm";
import { FlowDebugger } from "./auth/FlowDebugger";
import { Inbox } from "./Inbox";
import { PromptsTab, ResourcesTab } from "./ListTabs";
import { RawTab } from "./RawTab";
import { Responders } from "./Responders";
import { ToolsTab } from "./ToolsTab";
import { InFlightPanel, ListChangedHints, LogPane, PingButton } from "./Activity";
import { TasksTab } from "./TasksTab";
import { useActivity } from "./work";
import { WorkspacePanels } from "./WorkspacePanels";
import { JsonBox } from "./Content";
import { clientApi, type ClientDetail, type ClientSummary } from "./api";
import "./client.css";

const TABS = ["Tools", "Resources", "Prompts", "Tasks", "Log", "Raw"] as const;

export function ClientPage() {
  const { clientId } = useParams();
  return clientId ? <Workspace key={clientId} clientId={clientId} /> : <ConnectPage />;
}

function ConnectPage() {
  const navigate = useNavigate();
  const [clients, setClients] = useState<ClientSummary[]>([]);
  useEffect(() => {
    clientApi.list().then((l) => setClients(l.items), () => undefined);
  }, []);
  return (
    <div className="client-connect">
      <ConnectForm onConnected={(id) => navigate(`/client/${id}`)} />
      <FlowDebugger />
      {clients.length > 0 && (
        <div className="card">
          <h3>Open clients</h3>
          <ul>
            {clients.map((c) => (
              <li key={c.id}>
                <Link to={`/client/${c.id}`}>{c.id}</Link> {Array.isArray(c.target) ? c.target.join(" ") : c.target}{" "}
                <span className="muted">
                  {c.protocol_version} · {c.state}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function Workspace({ clientId }: { clientId: string }) {
  const navigate = useNavigate();
  const [detail, setDetail] = useState<ClientDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const activity = useActivity(clientId);
  const [tab, setTab] = useState<(typeof TABS)[number]>(() => (location.search.includes("resend=") ? "Raw" : "Tools"));

  const latest = useRef(0); // live events trigger overlapping loads: only the newest one may land
  const load = useCallback(() => {
    const n = ++latest.current;
    return clientApi.get(clientId).then(
      (d) => n === latest.current && setDetail(d),
      (e: Error) => setError(e.message),
    );
  }, [clientId]);
  useEffect(() => {
    load();
    return live.listen(
      (event) => {
        // client_activity (requests, progress, logs...) is followed by useActivity instead.
        if (event.type.startsWith("client_") && event.type !== "client_activity" && "client_id" in event && event.client_id === clientId)
          load();
      },
      () => load(),
    );
  }, [clientId, load]);

  if (error) return <p className="error empty">{error}</p>;
  if (!detail || !activity) return <p className="empty">Loading…</p>;
  const target = Array.isArray(detail.target) ? detail.target.join(" ") : detail.target;
  return (
    <div className="client-workspace">
      <div className="toolbar client-head">
        <strong>{target}</strong>
        <span className="badge">{detail.protocol_version}</span>
        <span className={detail.state === "connected" ? "muted" : "error"}>
          {detail.state}
          {detail.error ? `: ${detail.error}` : ""}
        </span>
        <PingButton clientId={clientId} />
        <span className="grow" />
        {detail.session_id !== null && <Link to={`/sessions/${detail.session_id}`}>Recorded session timeline</Link>}
        <button
          onClick={async () => {
            await clientApi.close(clientId);
            navigate("/client");
          }}
        >
          Disconnect
        </button>
      </div>
      <nav className="tabs" role="tablist">
        {TABS.map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? "tab active" : "tab"} onClick={() => setTab(t)}>
            {t}
            {t === "Log" && activity.logs.length ? ` (${activity.logs.length})` : ""}
            {t === "Tasks" && activity.tasks.length ? ` (${activity.tasks.length})` : ""}
          </button>
        ))}
      </nav>
      <ListChangedHints clientId={clientId} activity={activity} />
      <div className="client-body">
        <div className="client-main">
          {tab === "Tools" && <ToolsTab clientId={clientId} activity={activity} />}
          {tab === "Resources" && <ResourcesTab clientId={clientId} activity={activity} />}
          {tab === "Prompts" && <PromptsTab clientId={clientId} activity={activity} />}
          {tab === "Tasks" && <TasksTab clientId={clientId} activity={activity} />}
          {tab === "Log" && <LogPane clientId={clientId} activity={activity} />}
          {tab === "Raw" && <RawTab clientId={clientId} />}
        </div>
        <aside className="client-side">
          <Inbox clientId={clientId} items={detail.inbox} />
          <InFlightPanel clientId={clientId} activity={activity} />
          <Responders clientId={clientId} current={(detail.config.responders ?? {}) as Record<string, unknown>} />
          <WorkspacePanels clientId={clientId} detail={detail} />
          <details>
            <summary>Server notifications ({detail.notifications.length})</summary>
            {detail.notifications.slice(-20).map((n, i) => (
              <JsonBox key={i} value={n} />
            ))}
          </details>
          <details>
            <summary>Handshake</summary>
            <JsonBox value={detail.handshake} />
          </details>
        </aside>
      </div>
    </div>
  );
}
