// 2026-07-28: the subscriptions/listen stream that carries resource updates and list-changed
// notifications. The user picks which list changes to hear about; each change re-listens (a new
// stream with the whole set, the old one cancelled once the new one is acknowledged).
import { useEffect, useState } from "react";
import { rpcError, type Rpc } from "./api";
import { clock, workApi, type Activity } from "./work";

const KINDS = ["tools", "prompts", "resources"] as const;
type Kind = (typeof KINDS)[number];

function describe(filter: Record<string, unknown> | null | undefined): string {
  if (!filter) return "nothing yet";
  const parts = KINDS.filter((k) => filter[`${k}ListChanged`] === true).map((k) => `${k} list changes`);
  const uris = (filter.resourceSubscriptions as string[] | undefined) ?? [];
  if (uris.length) parts.push(`updates of ${uris.join(", ")}`);
  return parts.length ? parts.join(" · ") : "nothing";
}

export function ListenPanel({ clientId, activity }: { clientId: string; activity: Activity }) {
  const [error, setError] = useState<string | null>(null);
  const listen = activity.listen;
  const declared = activity.features.list_changed;
  const current = listen.current;
  // Ticked at once; the server's acknowledgement (or a refusal) then comes back in the activity.
  const serverSide = JSON.stringify(listen.wanted.list_changed);
  const [ticked, setTicked] = useState<Record<string, boolean>>(listen.wanted.list_changed);
  useEffect(() => setTicked(JSON.parse(serverSide) as Record<string, boolean>), [serverSide]);
  const toggle = (kind: Kind, on: boolean) => {
    setError(null);
    setTicked((t) => ({ ...t, [kind]: on }));
    workApi.listen(clientId, { [kind]: on }).then(
      (r) => r.error && setError(rpcError(r as Rpc)),
      (e: Error) => setError(e.message),
    );
  };
  return (
    <section className="card" aria-label="listen stream" data-testid="listen">
      <div className="toolbar">
        <strong>subscriptions/listen</strong>
        <span className="small muted">list changes to hear about:</span>
        {KINDS.map((kind) => (
          <label key={kind} className="small">
            <input
              type="checkbox"
              aria-label={`listen for ${kind} list changes`}
              disabled={!declared[kind]}
              checked={Boolean(ticked[kind])}
              onChange={(e) => toggle(kind, e.target.checked)}
            />{" "}
            {kind}
          </label>
        ))}
      </div>
      {current ? (
        <p className="small" data-testid="listen-stream" data-state={current.state}>
          stream id {current.key} <span className="badge">{current.state}</span> since {clock(current.opened)} ·
          the server sends: {describe(current.honored)} · {current.notifications} notifications
          {current.end_reason ? ` · ${current.end_reason}` : ""}
        </p>
      ) : (
        <p className="small muted">No listen stream: subscribe to a resource or tick a list above.</p>
      )}
      {error && <p className="error">{error}</p>}
    </section>
  );
}
