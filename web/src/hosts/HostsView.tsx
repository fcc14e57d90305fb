// The Hosts view: host runs (the stdio servers one host process started: store/host_runs.py), and a
// run's timeline merging its servers by time, a lane (a column and a colour) per server, each
// server's stderr lines inline where they happened, a filter per server. A live run follows: its
// sessions are subscribed to on the live feed, and new rows are asked for after the last one.
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { api, unwrap, type Row } from "../api/client";
import { live } from "../api/live";
import type { components } from "../api/schema";
import "./hosts.css";
import { RunToolsCost } from "./RunToolsCost";

type HostRun = components["schemas"]["HostRunOut"];

// The run's waterfall (a lane per server), loaded when first shown.
const WaterfallView = lazy(() => import("../waterfall/Waterfall").then((m) => ({ default: m.WaterfallView })));

const PAGE = 2000;
const MAX_ROWS = 20000; // a run's rows kept in view (the oldest go first)

function when(ns: number | null | undefined): string {
  return ns == null ? "" : new Date(ns / 1e6).toLocaleString();
}

function clock(ns: number): string {
  const d = new Date(ns / 1e6);
  return `${d.toLocaleTimeString(undefined, { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

/** The API's cursor (store/host_runs.py: time, session, seq) a little before a row: a ns time is
 * rounded as a JavaScript number (to 256 ns), so the rows of the last microsecond are asked for
 * again (and kept once, by id) rather than risk skipping one. */
function cursorOf(r: Row): string {
  return btoa(`t:${Math.max(0, r.ts_ns - 1000)}:${r.session_id}:${r.seq}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function order(a: Row, b: Row): number {
  return a.ts_ns - b.ts_ns || a.session_id - b.session_id || a.seq - b.seq;
}

/** `old` with `items` put in their places by (time, session, seq), each row once; the newest MAX_ROWS. */
function merge(old: Row[], items: Row[]): Row[] {
  const seen = new Set(old.map((r) => r.id));
  const fresh = items.filter((r) => !seen.has(r.id));
  if (!fresh.length) return old;
  const tail = old.length ? old[old.length - 1] : null;
  const next = tail && fresh.every((r) => order(tail, r) < 0) ? [...old, ...fresh] : [...old, ...fresh].sort(order);
  return next.slice(-MAX_ROWS);
}

function serverName(s: HostRun["sessions"][number]): string {
  return s.name || (Array.isArray(s.target) ? String(s.target[0] ?? "") : String(s.target ?? "")) || `session ${s.id}`;
}

/** The runs, newest first; reloaded when a session is created, ended or deleted. */
export function HostRunsList() {
  const [runs, setRuns] = useState<HostRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api
      .GET("/api/host-runs", { params: { query: { limit: 100 } } })
      .then(unwrap)
      .then(
        (page) => {
          setRuns(page.items);
          setError(null);
        },
        (e: Error) => setError(e.message),
      );
  }, []);
  useEffect(() => {
    load();
    return live.listen((ev) => {
      if (ev.type === "session_created" || ev.type === "session_ended" || ev.type === "session_deleted") load();
    }, load);
  }, [load]);
  if (error) return <p className="error">{error}</p>;
  if (runs === null) return <p className="empty">Loading…</p>;
  if (!runs.length)
    return (
      <p className="empty" data-testid="host-runs-empty">
        No host runs yet: the servers a host starts through <code>mcp-inspect wrap</code> (see <code>mcp-inspect install</code>) show here as one run per host process.
      </p>
    );
  return (
    <div className="host-runs" data-testid="host-runs">
      <h2>Host runs</h2>
      <table className="host-runs-table">
        <thead>
          <tr>
            <th>run</th>
            <th>host</th>
            <th>state</th>
            <th>started</th>
            <th>servers</th>
            <th>config</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} data-testid={`host-run-${r.id}`}>
              <td>
                <Link to={`/hosts/${r.id}`}>{r.id}</Link>
              </td>
              <td>
                <Link to={`/hosts/${r.id}`}>{r.name ?? "unknown host"}</Link>
                <span className="muted"> pid {r.pid}{r.machine ? ` on ${r.machine}` : ""}</span>
              </td>
              <td className={r.live ? "live" : "muted"}>{r.live ? "live" : "ended"}</td>
              <td>{when(r.started_ns)}</td>
              <td>{r.sessions.map(serverName).join(", ")}</td>
              <td className="muted">{r.config_files.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One run: its servers as lanes, their rows merged by time. */
export function HostRunView() {
  const { runId } = useParams();
  const id = Number(runId);
  const [run, setRun] = useState<HostRun | null>(null);
  const [rows, setRows] = useState<Row[]>([]);
  const [hidden, setHidden] = useState<Set<number>>(new Set());
  const [params, setParams] = useSearchParams();
  const waterfall = params.get("view") === "waterfall";
  const [error, setError] = useState<string | null>(null);
  // Rows are fetched per session after its last row shown: a live server's rows may be committed
  // after another server's later ones, so one cursor over the merged order would skip them.
  const last = useRef(new Map<number, string>());
  const busy = useRef(new Set<number | "all">());
  const again = useRef(new Set<number | "all">());

  const loadRun = useCallback(() => {
    api
      .GET("/api/host-runs/{run_id}", { params: { path: { run_id: id } } })
      .then(unwrap)
      .then(setRun, (e: Error) => setError(e.message));
  }, [id]);

  // The rows after the last one of `which` (a session, or "all" for the first load), page after page;
  // one fetch at a time per session (a live event during one asks again).
  const more = useCallback(
    async (which: number | "all") => {
      if (busy.current.has(which)) {
        again.current.add(which);
        return;
      }
      busy.current.add(which);
      try {
        do {
          again.current.delete(which);
          let cursor = which === "all" ? undefined : last.current.get(which);
          for (;;) {
            const page = unwrap(
              await api.GET("/api/host-runs/{run_id}/timeline", {
                params: {
                  path: { run_id: id },
                  query: { cursor, limit: PAGE, session: which === "all" ? undefined : [which] },
                },
              }),
            );
            const items = page.items as Row[];
            for (const r of items) last.current.set(r.session_id, cursorOf(r));
            if (items.length) setRows((old) => merge(old, items));
            if (!page.next_cursor) break;
            cursor = page.next_cursor;
          }
        } while (again.current.has(which));
        setError(null);
      } catch (e) {
        setError((e as Error).message);
      } finally {
        busy.current.delete(which);
      }
    },
    [id],
  );

  useEffect(() => {
    last.current = new Map();
    setRows([]);
    setRun(null);
    loadRun();
    more("all");
  }, [loadRun, more]);

  const sessionIds = useMemo(() => (run ? run.sessions.map((s) => s.id) : []), [run]);
  useEffect(() => {
    if (!run?.live) return;
    const unsubscribe = sessionIds.map((sid) => live.subscribe(sid));
    const stop = live.listen(
      (ev) => {
        if (ev.type === "messages" && sessionIds.includes(ev.session_id)) more(ev.session_id);
        else if (ev.type === "session_created" || ev.type === "session_ended") loadRun(); // a new server of this run, or one that ended
      },
      // (Re)connected: what happened while the feed was away is fetched again, the run's servers too
      // (one that joined then sent its session_created to nobody).
      () => {
        loadRun();
        sessionIds.forEach((sid) => more(sid));
      },
    );
    sessionIds.forEach((sid) => {
      if (!last.current.has(sid)) more(sid); // a server that joined: its rows so far
    });
    return () => {
      stop();
      unsubscribe.forEach((u) => u());
    };
  }, [run?.live, sessionIds, loadRun, more]);

  if (error && !run) return <p className="error">{error}</p>;
  if (!run) return <p className="empty">Loading…</p>;
  const lanes = run.sessions;
  const lane = new Map(lanes.map((s, i) => [s.id, i]));
  const shown = rows.filter((r) => !hidden.has(r.session_id));
  const toggle = (sid: number) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(sid)) next.delete(sid);
      else next.add(sid);
      return next;
    });
  const columns = `7.5em repeat(${lanes.length}, minmax(12em, 1fr))`;
  return (
    <div className="host-run" data-testid="host-run">
      <div className="host-run-head">
        <Link to="/hosts">Hosts</Link> / <strong data-testid="host-run-name">{run.name ?? "unknown host"}</strong>{" "}
        <span className="muted">
          run {run.id}, pid {run.pid}
          {run.machine ? ` on ${run.machine}` : ""}, started {when(run.started_ns)}
        </span>{" "}
        <span className={run.live ? "live" : "muted"} data-testid="host-run-state">
          {run.live ? "live" : "ended"}
        </span>
        {run.config_files.length > 0 && <div className="muted">config {run.config_files.join(", ")}</div>}
        <RunToolsCost runId={run.id} names={new Map(lanes.map((s) => [s.id, serverName(s)]))} />
        {error && <div className="error">{error}</div>}
        <button
          className="ghost"
          data-testid="host-run-waterfall"
          onClick={() => setParams(waterfall ? {} : { view: "waterfall" }, { replace: true })}
        >
          {waterfall ? "Messages" : "Waterfall"}
        </button>
      </div>
      {waterfall ? (
        <Suspense>
          <WaterfallView source={{ run: run.id }} names={new Map(lanes.map((s) => [s.id, serverName(s)]))} />
        </Suspense>
      ) : (
      <>
      <div className="host-run-filters" data-testid="host-run-filters">
        {lanes.map((s, i) => (
          <label key={s.id} className={`lane-chip lane-${i % 8}`}>
            <input type="checkbox" checked={!hidden.has(s.id)} onChange={() => toggle(s.id)} data-testid={`lane-toggle-${s.id}`} />{" "}
            {serverName(s)}{" "}
            <Link to={`/sessions/${s.id}`} className="muted">
              #{s.id}
            </Link>
          </label>
        ))}
      </div>
      <div className="host-run-grid" style={{ gridTemplateColumns: columns }} data-testid="host-run-timeline">
        <div className="lane-title">time</div>
        {lanes.map((s, i) => (
          <div key={s.id} className={`lane-title lane-${i % 8}`} data-testid={`lane-title-${s.id}`}>
            {serverName(s)}
          </div>
        ))}
        {shown.map((r) => {
          const at = lane.get(r.session_id) ?? 0;
          const stderr = r.channel === "stderr";
          const what = stderr ? r.preview.trimEnd() : `${r.direction === "c2s" ? "→" : "←"} ${r.kind}${r.method ? ` ${r.method}` : ""}`;
          return (
            <div key={`${r.session_id}-${r.seq}`} className="host-row" style={{ display: "contents" }}>
              <div className="muted host-time">{clock(r.ts_ns)}</div>
              <div
                className={`host-cell lane-${at % 8}${stderr ? " stderr" : ""}`}
                style={{ gridColumn: at + 2 }}
                data-testid={stderr ? "host-stderr" : "host-message"}
                data-session={r.session_id}
                title={r.preview}
              >
                <Link to={`/sessions/${r.session_id}?seq=${r.seq}`}>{what}</Link>
              </div>
            </div>
          );
        })}
      </div>
      {shown.length === 0 && <p className="empty">No messages yet.</p>}
      </>
      )}
    </div>
  );
}
