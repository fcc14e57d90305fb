// The network view of an HTTP session: each HTTP exchange with its headers (secrets redacted), timing,
// SSE stream and event ids, and the JSON-RPC messages it carried, like a browser's network panel.
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, unwrap, type HttpExchangeOut, type Session } from "../api/client";
import { arrows, clock, duration } from "../format";
import { RoutingHeaders, routingProblems } from "./RoutingHeaders";

export function Network({ session }: { session: Session }) {
  const [exchanges, setExchanges] = useState<HttpExchangeOut[]>([]);
  const [error, setError] = useState<string | null>(null);
  const navigate = useNavigate();
  const selected = useParams().exchange ?? null;

  useEffect(() => {
    api
      .GET("/api/sessions/{session_id}/exchanges", { params: { path: { session_id: session.id } } })
      .then(unwrap)
      .then(setExchanges, (e: Error) => setError(e.message));
  }, [session.id, session.message_count]);

  const current = exchanges.find((x) => x.id === selected) ?? null;
  const t0 = exchanges[0]?.started_ns ?? 0;
  return (
    <div className={`network ${current ? "with-detail" : ""}`}>
      {error && <p className="error">{error}</p>}
      <table className="grid" data-testid="exchanges">
        <thead>
          <tr>
            <th>method</th>
            <th>path</th>
            <th>status</th>
            <th>type</th>
            <th className="num">messages</th>
            <th>start</th>
            <th className="num">time</th>
          </tr>
        </thead>
        <tbody>
          {exchanges.map((x) => (
            <tr
              key={x.id}
              data-testid="exchange"
              className={x.id === selected ? "selected" : ""}
              onClick={() => navigate(`/sessions/${session.id}/network/${encodeURIComponent(x.id)}`)}
            >
              <td className="mono">
                {x.method ?? ""}
                {routingProblems(x.routing) > 0 && (
                  <span className="badge error" title="routing headers disagree with the body" data-testid="routing-flag">
                    ✗ headers
                  </span>
                )}
              </td>
              <td className="mono">{x.path ?? ""}</td>
              <td className={x.status && x.status >= 400 ? "error" : ""}>{x.status ?? "…"}</td>
              <td>{x.sse ? <span className="badge">SSE</span> : "JSON"}</td>
              <td className="num">{x.messages.length}</td>
              <td className="muted">+{duration(x.started_ns - t0)}</td>
              <td className="num">{duration(x.duration_ns)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!exchanges.length && !error && <p className="empty">No HTTP exchanges recorded in this session.</p>}
      {current && (
        <aside className="detail" data-testid="exchange-detail">
          <div className="detail-head">
            <h2 className="mono">
              {current.method} {current.path} → {current.status ?? "…"}
            </h2>
            <span className="grow" />
            <button className="ghost" onClick={() => navigate(`/sessions/${session.id}/network`)} aria-label="Close">
              ✕
            </button>
          </div>
          <p className="muted">
            {clock(current.started_ns)}, {duration(current.duration_ns)}
            {current.sse ? `, SSE stream, ${current.sse_event_ids.length} event ids` : ""}
          </p>
          <RoutingHeaders routing={current.routing} />
          <Headers title="Request headers" headers={current.request_headers} />
          <Headers title="Response headers" headers={current.response_headers} />
          {current.sse_event_ids.length > 0 && (
            <>
              <h3>SSE event ids</h3>
              <p className="mono">{current.sse_event_ids.join(", ")}</p>
            </>
          )}
          <h3>JSON-RPC messages</h3>
          <ul className="carried">
            {current.messages.map((m) => (
              <li key={m.seq}>
                <Link to={`/sessions/${session.id}/messages/${m.seq}`}>
                  #{m.seq} {arrows[m.direction]} {m.channel} {m.kind} {m.method ?? ""} {m.rpc_id !== null ? `id ${m.rpc_id}` : ""}
                  {m.sse_event_id ? ` (event ${m.sse_event_id})` : ""}
                </Link>
              </li>
            ))}
          </ul>
        </aside>
      )}
    </div>
  );
}

function Headers({ title, headers }: { title: string; headers: Record<string, string> }) {
  const names = Object.keys(headers);
  return (
    <>
      <h3>{title}</h3>
      {names.length ? (
        <table className="headers">
          <tbody>
            {names.map((n) => (
              <tr key={n}>
                <th>{n}</th>
                <td className={headers[n].includes("[secret:") ? "muted mono" : "mono"}>{headers[n]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">none recorded</p>
      )}
    </>
  );
}
