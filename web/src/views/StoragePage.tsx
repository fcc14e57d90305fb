// The storage view: what the recordings cost (database size, free space, each session's size), the
// retention policy in force with where each value came from, and what it removes next (its dry run).
import { useCallback, useEffect, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { live } from "../api/live";
import { dateTime } from "../format";
import { PinToggle } from "./PinToggle";

type Storage = components["schemas"]["StorageView"];

/** Bytes in decimal units, as the config file takes them (the CLI prints the same). */
export function humanSize(n: number): string {
  if (n < 1000) return `${n} B`;
  let v = n;
  for (const unit of ["kB", "MB", "GB", "TB"]) {
    v /= 1000;
    if (v < 1000 || unit === "TB") return `${v < 100 ? v.toPrecision(3) : Math.round(v)} ${unit}`;
  }
  return `${n} B`;
}

export function StoragePage() {
  const [doc, setDoc] = useState<Storage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api
      .GET("/api/storage", {})
      .then(unwrap)
      .then(
        (d) => {
          setDoc(d);
          setError(null);
        },
        (e: Error) => setError(e.message),
      );
  }, []);
  useEffect(() => {
    load();
    return live.listen((ev) => {
      if (["session_created", "session_deleted", "session_updated", "session_ended"].includes(ev.type)) load();
    }, load);
  }, [load]);

  if (error) return <p className="error">{error}</p>;
  if (!doc) return <p className="empty">Loading…</p>;
  return (
    <section className="storage" data-testid="storage">
      <div className="toolbar">
        <h1>Storage</h1>
        <span className="muted">{doc.store}</span>
      </div>
      <dl className="storage-totals">
        <dt>Database</dt>
        <dd data-testid="file-size">{humanSize(doc.file_bytes)}</dd>
        <dt>In use</dt>
        <dd>{humanSize(doc.used_bytes)}</dd>
        <dt>Reclaimable</dt>
        <dd>
          {humanSize(doc.free_bytes)}
          {doc.auto_vacuum === "none" && (
            <span className="muted"> (an older file: run <code>mcp-inspect prune</code> once to give space back)</span>
          )}
        </dd>
        <dt>Sessions</dt>
        <dd>{doc.sessions_total}</dd>
      </dl>
      <h2>Retention policy</h2>
      {doc.policy_error && <p className="error">{doc.policy_error}</p>}
      <table className="grid" data-testid="policy">
        <tbody>
          {doc.policy.map((p) => (
            <tr key={p.key}>
              <td>{p.key}</td>
              <td>{p.value ?? <span className="muted">not set</span>}</td>
              <td className="muted">{p.source}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!doc.policy_active && (
        <p className="muted">
          No retention policy is set: nothing is ever removed. Set <code>[retention]</code> in the config file (see{" "}
          <code>mcp-inspect config</code>) or pass flags to <code>mcp-inspect prune</code>.
        </p>
      )}
      <h2>Next to go</h2>
      {doc.next.length ? (
        <>
          <p className="muted">
            {doc.next.length} session{doc.next.length === 1 ? "" : "s"}, {humanSize(doc.next_bytes)}; the store
            would hold about {humanSize(doc.after_bytes)} after. Recorders apply the policy by themselves (at most
            hourly); <code>mcp-inspect prune</code> does it now.
          </p>
          <table className="grid" data-testid="next">
            <thead>
              <tr>
                <th>id</th>
                <th>name</th>
                <th>started</th>
                <th className="num">size</th>
                <th>why</th>
                <th>pin</th>
              </tr>
            </thead>
            <tbody>
              {doc.next.map((c) => (
                <tr key={c.id} data-session-id={c.id}>
                  <td className="num">{c.id}</td>
                  <td>
                    <Link to={`/sessions/${c.id}`}>{c.name ?? `session ${c.id}`}</Link>
                  </td>
                  <td>{dateTime(c.started_ns)}</td>
                  <td className="num">{humanSize(c.bytes)}</td>
                  <td>{c.reason}</td>
                  <td>
                    <PinToggle id={c.id} pinned={false} onChange={load} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <p className="muted" data-testid="nothing-next">
          {doc.policy_active ? "Nothing: the store is within the policy." : "Nothing (no policy)."}
        </p>
      )}
      <h2>Sessions by size</h2>
      <table className="grid" data-testid="by-size">
        <thead>
          <tr>
            <th>id</th>
            <th>name</th>
            <th>started</th>
            <th className="num">size</th>
            <th>retention</th>
            <th>pin</th>
          </tr>
        </thead>
        <tbody>
          {doc.sessions.map((s) => (
            <tr key={s.id} data-session-id={s.id}>
              <td className="num">{s.id}</td>
              <td>
                <Link to={`/sessions/${s.id}`}>{s.name ?? `session ${s.id}`}</Link>
              </td>
              <td>{dateTime(s.started_ns)}</td>
              <td className="num">{humanSize(s.bytes)}</td>
              <td data-testid="retention">
                {s.kept ? `kept (${s.kept})` : s.goes ? `goes next (${s.goes})` : ""}
              </td>
              <td>
                <PinToggle id={s.id} pinned={s.pinned} onChange={load} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
