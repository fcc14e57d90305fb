// The lanes view: client | inspector | server for a range of messages, one arrow per message and a
// connector per request/response pair, so out-of-order answers and server-to-client requests stand out.
import { interventionClass, interventionOf, interventionText } from "../timeline/interventions";
import { useEffect, useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { api, unwrap, type Row, type Session } from "../api/client";
import { duration, rowLabel } from "../format";
import { markOf, useConversations } from "./Conversations";

const X = { client: 120, inspector: 430, server: 740 };
const STEP = 30;
const TOP = 50;
const MAX = 500;

interface Pair {
  req: number; // index in rows
  resp: number;
  column: number;
}

export function Lanes({ session }: { session: Session }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const from = Math.max(1, Number(params.get("from") ?? 1) || 1);
  const to = Math.min(from + MAX - 1, Math.max(from, Number(params.get("to") ?? from + 99) || from + 99));
  const [rows, setRows] = useState<Row[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api
      .GET("/api/sessions/{session_id}/messages", {
        params: { path: { session_id: session.id }, query: { after_seq: from - 1, limit: to - from + 1 } },
      })
      .then(unwrap)
      .then(
        (page) => setRows(page.items),
        (e: Error) => setError(e.message),
      );
  }, [session.id, from, to, session.message_count]);

  const { pairs, outOfOrder } = useMemo(() => layoutPairs(rows), [rows]);
  const conversations = useConversations(session.id, session.message_count);
  // Each conversation in view: one bracket on the client side from its first to its last row.
  const spans = useMemo(() => {
    const out = new Map<number, { first: number; last: number; rounds: number }>();
    rows.forEach((r, i) => {
      const c = markOf(conversations, r.seq)?.conversation;
      if (!c) return;
      const s = out.get(c.id) ?? { first: i, last: i, rounds: c.rounds };
      s.last = i;
      out.set(c.id, s);
    });
    return [...out.entries()];
  }, [rows, conversations]);
  const width = X.server + 40 + (Math.max(0, ...pairs.map((p) => p.column + 1)) * 12 || 0) + 20;
  const height = TOP + rows.length * STEP + 20;
  const span = to - from + 1;
  const go = (f: number) => setParams({ from: String(Math.max(1, f)), to: String(Math.max(1, f) + span - 1) });

  return (
    <div className="lanes">
      <div className="toolbar">
        <label>
          from #<input type="number" min={1} value={from} onChange={(e) => setParams({ from: e.target.value, to: String(to) })} />
        </label>
        <label>
          to #<input type="number" min={from} value={to} onChange={(e) => setParams({ from: String(from), to: e.target.value })} />
        </label>
        <button className="ghost" disabled={from <= 1} onClick={() => go(from - span)}>
          ◀ earlier
        </button>
        <button className="ghost" disabled={to >= session.message_count} onClick={() => go(from + span)}>
          later ▶
        </button>
        <span className="muted">
          {rows.length} messages; {outOfOrder.size} answered out of order
        </span>
      </div>
      {error && <p className="error">{error}</p>}
      <svg width={width} height={height} className="lanes-svg" data-testid="lanes">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrowhead" />
          </marker>
        </defs>
        {(["client", "inspector", "server"] as const).map((lane) => (
          <g key={lane}>
            <text x={X[lane]} y={22} className="lane-title" textAnchor="middle">
              {lane}
            </text>
            <line x1={X[lane]} x2={X[lane]} y1={32} y2={height - 10} className={`lane lane-${lane}`} />
          </g>
        ))}
        {spans.map(([id, s]) => (
          <g key={`conv-${id}`} className="conv-bracket" data-testid="lane-conv" data-id={id}>
            <path d={`M${X.client - 14},${TOP + s.first * STEP - 8} h-8 V${TOP + s.last * STEP + 8} h8`} fill="none" />
            <text x={X.client + 6} y={TOP + s.first * STEP - 14} className="conv-label">
              ⟳#{id} · {s.rounds} rounds
            </text>
          </g>
        ))}
        {pairs.map((p) => {
          const y1 = TOP + p.req * STEP;
          const y2 = TOP + p.resp * STEP;
          const x = X.server + 24 + p.column * 12;
          return (
            <path
              key={`${p.req}-${p.resp}`}
              d={`M${X.server + 6},${y1} H${x} V${y2} H${X.server + 6}`}
              className={`pair ${outOfOrder.has(p.resp) ? "late" : ""}`}
              fill="none"
            />
          );
        })}
        {rows.map((r, i) => {
          const y = TOP + i * STEP;
          const mark = markOf(conversations, r.seq);
          const round = mark?.conversation ? ` · round ${mark.conversation.round}/${mark.conversation.rounds}` : "";
          const retry = mark?.retry_of !== undefined ? ` · retry of #${mark.retry_of}` : mark?.retried_by !== undefined ? ` · retried by #${mark.retried_by}` : "";
          const label = `${rowLabel(r)}${r.rpc_id !== null ? ` (id ${r.rpc_id})` : ""}`;
          const cls = `msg kind-${r.kind} dir-${r.direction} ${r.direction === "s2c" && r.kind === "request" ? "server-request" : ""} ${outOfOrder.has(i) ? "late" : ""}`;
          const onClick = () => navigate(`/sessions/${session.id}/messages/${r.seq}`);
          if (r.kind === "log")
            return (
              <g key={r.seq} className="msg log" onClick={onClick} data-seq={r.seq}>
                <rect x={0} y={y - STEP / 2 - 2} width={X.server + 10} height={STEP} className="hit" />
                <text x={10} y={y + 4} className="seq">#{r.seq}</text>
                <text x={X.server - 8} y={y + 4} textAnchor="end" className="stderr-text">
                  stderr: {label.slice(0, 60)}
                </text>
              </g>
            );
          let [x1, x2] = r.direction === "c2s" ? [X.client, X.server] : [X.server, X.client];
          // Interventions: a message never delivered stops at the inspector, injected bytes start there.
          const iv = interventionOf(r);
          if (iv && iv.kind === "intercept" && !iv.delivered) x2 = X.inspector;
          if (iv && iv.kind === "injected") x1 = X.inspector;
          const ivText = iv ? interventionText(iv) : "";
          return (
            <g key={r.seq} className={`${cls} ${interventionClass(r)}`} onClick={onClick} data-seq={r.seq} data-testid="lane-msg">
              <title>{`#${r.seq} ${r.kind} ${label}${round}${retry}${r.latency_ns !== null ? ` after ${duration(r.latency_ns)}` : ""}${ivText ? ` — ${ivText}` : ""}`}</title>
              <rect x={0} y={y - STEP / 2 - 2} width={X.server + 10} height={STEP} className="hit" />
              <text x={10} y={y + 4} className="seq">
                #{r.seq}
              </text>
              <line x1={x1} x2={x2} y1={y} y2={y} markerEnd="url(#arrow)" />
              <circle cx={X.inspector} cy={y} r={3} />
              <text x={(X.client + X.inspector) / 2} y={y - 5} textAnchor="middle" className="label">
                {r.kind === "response" || r.kind === "error" ? "↳ " : ""}
                {label.slice(0, 48)}
                {outOfOrder.has(i) ? "  ⚠ out of order" : ""}
              </text>
              {(round || retry) && (
                <text x={(X.client + X.inspector) / 2} y={y + 12} textAnchor="middle" className="conv-round" data-testid="lane-round">
                  {(round + retry).slice(3)}
                </text>
              )}
              {iv && (
                <text x={(X.inspector + X.server) / 2} y={y + 12} textAnchor="middle" className="iv-label" data-testid="lane-iv">
                  {iv.kind === "injected" ? "injected" : iv.delivered ? "" : "✕ "}
                  {iv.kind === "injected" ? ` by ${iv.who}` : ivText}
                </text>
              )}
              {r.latency_ns !== null && (
                <text x={(X.inspector + X.server) / 2} y={y - 5} textAnchor="middle" className="latency">
                  {duration(r.latency_ns)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}

/** Connectors for pairs within the rows (greedy columns so they never overlap) and late answers. */
function layoutPairs(rows: Row[]): { pairs: Pair[]; outOfOrder: Set<number> } {
  const index = new Map(rows.map((r, i) => [r.seq, i]));
  const spans: { req: number; resp: number }[] = [];
  const outOfOrder = new Set<number>();
  const answeredLater = new Map<string, number>(); // direction of the request -> highest request seq answered
  rows.forEach((r, i) => {
    if (r.answers_seq === null) return;
    const req = index.get(r.answers_seq);
    if (req !== undefined) spans.push({ req, resp: i });
    const key = r.direction;
    const highest = answeredLater.get(key) ?? 0;
    if (r.answers_seq < highest) outOfOrder.add(i);
    answeredLater.set(key, Math.max(highest, r.answers_seq));
  });
  const columnsEnd: number[] = [];
  const pairs = spans
    .sort((a, b) => a.req - b.req)
    .map((s) => {
      let column = columnsEnd.findIndex((end) => end < s.req);
      if (column < 0) column = columnsEnd.length;
      columnsEnd[column] = s.resp;
      return { ...s, column };
    });
  return { pairs, outOfOrder };
}
