// The workspace's live panels: requests in flight (elapsed time, progress, Cancel), ping with its
// round trip, list-changed hints (and at 2026-07-28 the listen stream), and the server's log messages with a level picker and filter.
import { useState } from "react";
import { JsonBox } from "./Content";
import { ListenPanel } from "./Listen";
import { clock, LEVELS, useTicker, workApi, type Activity, type InFlight, type Level } from "./work";

export function ProgressBar({ progress }: { progress: InFlight["progress"] }) {
  if (!progress) return null;
  const value = Number(progress.progress ?? 0);
  const total = progress.total == null ? undefined : Number(progress.total);
  return (
    <div className="progress-line" data-testid="progress">
      <progress value={value} max={total} aria-label="progress" />
      <span className="small muted">
        {value}
        {total !== undefined ? ` / ${total}` : ""} {progress.message ? `· ${String(progress.message)}` : ""}
      </span>
    </div>
  );
}

function RequestRow({ clientId, item, now }: { clientId: string; item: InFlight; now: number }) {
  const [reason, setReason] = useState("cancelled from the inspector");
  const [error, setError] = useState<string | null>(null);
  const pending = item.state === "pending";
  const elapsed = pending ? Math.max(0, now - item.started) : item.elapsed_s;
  return (
    <li className={`inflight ${item.state}`} data-testid="inflight" data-method={item.method} data-state={item.state}>
      <div className="toolbar">
        <strong>{item.method}</strong>
        <span className="muted small">id {item.key}</span>
        <span className="timer">{elapsed.toFixed(1)} s</span>
        <span className="badge">{item.state}</span>
      </div>
      <ProgressBar progress={item.progress} />
      {pending && (
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            workApi.cancel(clientId, item.key, reason).catch((err: Error) => setError(err.message));
          }}
        >
          <input className="grow" aria-label="cancel reason" value={reason} onChange={(e) => setReason(e.target.value)} />
          <button type="submit">Cancel</button>
        </form>
      )}
      {item.state === "cancelled" && (
        <p className="small muted">
          {item.cancel_via === "stream-closed" ? "stream closed" : "notifications/cancelled sent"}
          {item.cancel_reason ? `: ${item.cancel_reason}` : ""}
          {item.response ? " · a late response arrived anyway" : ""}
        </p>
      )}
      {error && <p className="error">{error}</p>}
    </li>
  );
}

export function InFlightPanel({ clientId, activity }: { clientId: string; activity: Activity }) {
  const now = useTicker(activity.inflight.length > 0);
  const cancelled = activity.recent.filter((r) => r.state === "cancelled").slice(0, 5);
  return (
    <section className="card" aria-label="requests in flight">
      <h3>Requests in flight ({activity.inflight.length})</h3>
      <ul className="history">
        {activity.inflight.map((r) => (
          <RequestRow key={r.key} clientId={clientId} item={r} now={now} />
        ))}
        {cancelled.map((r) => (
          <RequestRow key={r.key} clientId={clientId} item={r} now={now} />
        ))}
      </ul>
      {activity.inflight.length === 0 && <p className="muted small">Nothing waiting for the server.</p>}
    </section>
  );
}

export function PingButton({ clientId }: { clientId: string }) {
  const [latency, setLatency] = useState<string | null>(null);
  return (
    <span className="toolbar">
      <button
        onClick={() =>
          workApi.ping(clientId).then(
            (p) => setLatency(p.response.error ? `error ${JSON.stringify(p.response.error)}` : `${p.latency_ms.toFixed(1)} ms`),
            (e: Error) => setLatency(e.message),
          )
        }
      >
        Ping
      </button>
      {latency && <span data-testid="ping-latency">{latency}</span>}
    </span>
  );
}

export function ListChangedHints({ clientId, activity }: { clientId: string; activity: Activity }) {
  const listen = activity.features.listen ? <ListenPanel clientId={clientId} activity={activity} /> : null;
  if (!activity.list_changed.length) return listen;
  return (
    <>
    {listen}
    <div className="hint" data-testid="list-changed">
      {activity.list_changed.map((h) => (
        <p key={String(h.method)} className="small">
          The server says <code>{String(h.method).split("/")[1]}</code> changed ({String(h.count)}×, last at{" "}
          {clock(h.last as number)}): press Refresh in its tab.
        </p>
      ))}
    </div>
    </>
  );
}

export function LogPane({ clientId, activity }: { clientId: string; activity: Activity }) {
  const [filter, setFilter] = useState<Level>("debug");
  const [picked, setPicked] = useState<Level>((activity.log_level as Level) ?? "info");
  const [status, setStatus] = useState<string | null>(null);
  const f = activity.features;
  const shown = activity.logs.filter((e) => LEVELS.indexOf(e.level as Level) >= LEVELS.indexOf(filter));
  return (
    <div className="pane log-pane">
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          workApi.setLevel(clientId, picked).then(
            (r) => setStatus(`level ${r.level} (${r.via === "_meta" ? "sent in each request's _meta" : "logging/setLevel"})`),
            (err: Error) => setStatus(err.message),
          );
        }}
      >
        <label>
          server log level{" "}
          <select aria-label="server log level" value={picked} onChange={(e) => setPicked(e.target.value as Level)}>
            {LEVELS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!f.logging}>
          Set level
        </button>
        {!f.logging && <span className="muted small">the server did not declare logging</span>}
        {status && <span className="small" data-testid="level-status">{status}</span>}
        <span className="grow" />
        <label>
          show from{" "}
          <select aria-label="show from level" value={filter} onChange={(e) => setFilter(e.target.value as Level)}>
            {LEVELS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
      </form>
      <table className="log-table" aria-label="log messages">
        <thead>
          <tr>
            <th>time</th>
            <th>level</th>
            <th>logger</th>
            <th>data</th>
          </tr>
        </thead>
        <tbody>
          {shown
            .slice(-300)
            .reverse()
            .map((e, i) => (
              <tr key={i} className={`log-${String(e.level)}`} data-testid="log-entry">
                <td>{clock(e.time as number)}</td>
                <td>{String(e.level)}</td>
                <td>{String(e.logger ?? "")}</td>
                <td>{typeof e.data === "string" ? e.data : <JsonBox value={e.data} />}</td>
              </tr>
            ))}
        </tbody>
      </table>
      {shown.length === 0 && <p className="muted">No log messages{activity.logs.length ? " at this level" : ""} yet.</p>}
    </div>
  );
}
