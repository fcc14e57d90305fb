// A session at a glance (issue #39): its numbers per method and name (`GET /api/sessions/{id}/stats`,
// the computation `mcp-inspect stats` prints), a latency histogram per method, calls and errors over
// time, the slowest calls (each a link to its message on the timeline), what its tools/list costs a
// model, and its lint findings by rule. The charts are small SVGs drawn here, in the theme's colours
// (CSS variables), no charting library.
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import "./overview.css";

type Stats = components["schemas"]["SessionStats"];
type Finding = components["schemas"]["FindingOut"];

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "–" : v < 10 ? v.toFixed(2) : v.toFixed(1));

export function Overview({ sessionId }: { sessionId: number }) {
  const [stats, setStats] = useState<Stats | null>(null);
  const [findings, setFindings] = useState<Finding[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    api
      .GET("/api/sessions/{session_id}/stats", { params: { path: { session_id: sessionId } } })
      .then((r) => !gone && setStats(unwrap(r)))
      .catch((e: Error) => !gone && setError(e.message));
    api
      .GET("/api/sessions/{session_id}/findings", { params: { path: { session_id: sessionId } } })
      .then((r) => !gone && setFindings(unwrap(r).items))
      .catch(() => !gone && setFindings([]));
    return () => {
      gone = true;
    };
  }, [sessionId]);
  if (error) return <p className="error">{error}</p>;
  if (!stats) return <p className="muted" style={{ padding: "12px 16px" }}>Loading the numbers…</p>;
  return (
    <div className="overview" data-testid="overview">
      <section className="card wide">
        <h3>Calls per method</h3>
        <StatsTable stats={stats} />
      </section>
      <section className="card">
        <h3>Latency per method</h3>
        <Histograms stats={stats} />
      </section>
      <section className="card">
        <h3>Calls and errors over time</h3>
        <OverTime stats={stats} />
      </section>
      <section className="card">
        <h3>Slowest calls</h3>
        <Slowest stats={stats} sessionId={sessionId} />
      </section>
      <section className="card">
        <h3>Lint findings by rule</h3>
        <FindingsByRule findings={findings} />
      </section>
      {stats.tools_list && (
        <section className="card wide">
          <h3>What the tools/list costs a model</h3>
          <ToolsCost list={stats.tools_list} />
        </section>
      )}
    </div>
  );
}

function StatsTable({ stats }: { stats: Stats }) {
  if (!stats.methods.length) return <p className="muted">No requests or notifications.</p>;
  return (
    <table data-testid="overview-stats">
      <thead>
        <tr>
          <th>method / name</th>
          <th>count</th>
          <th>errors</th>
          <th>p50 ms</th>
          <th>p95 ms</th>
          <th>max ms</th>
          <th>bytes in</th>
          <th>bytes out</th>
        </tr>
      </thead>
      <tbody>
        {stats.methods.map((r) => (
          <tr key={`${r.method}\u0000${r.name ?? ""}`} data-method={r.method} data-name={r.name ?? ""} data-testid="overview-stats-row">
            <td className={r.name === null ? "mono" : "name mono"} title={r.name ?? r.method}>
              {r.name ?? r.method}
            </td>
            <td data-col="count">{r.count}</td>
            <td data-col="errors" className={r.errors ? "failed" : undefined}>
              {r.errors}
            </td>
            <td data-col="p50_ms">{ms(r.p50_ms)}</td>
            <td data-col="p95_ms">{ms(r.p95_ms)}</td>
            <td data-col="max_ms">{ms(r.max_ms)}</td>
            <td data-col="bytes_in">{r.bytes_in}</td>
            <td data-col="bytes_out">{r.bytes_out}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One bar chart per method: its answered calls by latency bucket (the buckets' edges below). */
function Histograms({ stats }: { stats: Stats }) {
  const { edges_ms: edges, methods } = stats.histogram;
  const names = Object.keys(methods);
  if (!names.length) return <p className="muted">No answered calls.</p>;
  const n = edges.length + 1;
  const w = 280;
  const h = 28;
  const bw = w / n;
  const label = (i: number) => (i === 0 ? `<${edges[0]}` : i === n - 1 ? `≥${edges[n - 2]}` : `${edges[i - 1]}–${edges[i]}`);
  return (
    <div className="hist" data-testid="overview-histograms">
      {names.map((m) => {
        const counts = methods[m];
        const top = Math.max(...counts, 1);
        return [
          <span key={`${m}-l`} className="hist-label" title={m}>
            {m}
          </span>,
          <svg key={`${m}-s`} width={w} height={h} role="img" aria-label={`latency of ${m}`}>
            <line className="rule" x1={0} x2={w} y1={h - 0.5} y2={h - 0.5} />
            {counts.map((c, i) =>
              c ? (
                <rect key={i} className="bar" x={i * bw + 1} width={bw - 2} y={h - 1 - ((h - 2) * c) / top} height={((h - 2) * c) / top}>
                  <title>{`${label(i)} ms: ${c} call${c === 1 ? "" : "s"}`}</title>
                </rect>
              ) : null,
            )}
          </svg>,
        ];
      })}
      <span />
      <svg width={w} height={12}>
        {[0, Math.floor(n / 2), n - 1].map((i) => (
          <text key={i} className="axis" x={i === 0 ? 0 : i === n - 1 ? w : i * bw + bw / 2} y={10} textAnchor={i === 0 ? "start" : i === n - 1 ? "end" : "middle"}>
            {label(i)}
          </text>
        ))}
      </svg>
    </div>
  );
}

function OverTime({ stats }: { stats: Stats }) {
  const { calls, errors, slice_ns } = stats.timeline;
  const total = calls.reduce((a, b) => a + b, 0);
  if (!total) return <p className="muted">No calls.</p>;
  const w = 420;
  const h = 90;
  const bw = w / calls.length;
  const top = Math.max(...calls, 1);
  const span = (slice_ns * calls.length) / 1e9;
  return (
    <div data-testid="overview-over-time">
      <svg width={w} height={h + 14} role="img" aria-label="calls and errors over time">
        <line className="rule" x1={0} x2={w} y1={h - 0.5} y2={h - 0.5} />
        {calls.map((c, i) => {
          const ch = ((h - 4) * c) / top;
          const eh = ((h - 4) * errors[i]) / top;
          return (
            <g key={i}>
              {c > 0 && (
                <rect className="bar" x={i * bw + 0.5} width={Math.max(bw - 1, 1)} y={h - 1 - ch} height={ch}>
                  <title>{`${c} calls, ${errors[i]} failed`}</title>
                </rect>
              )}
              {errors[i] > 0 && <rect className="bar-error" x={i * bw + 0.5} width={Math.max(bw - 1, 1)} y={h - 1 - eh} height={eh} />}
            </g>
          );
        })}
        <text className="axis" x={0} y={h + 12}>
          0 s
        </text>
        <text className="axis" x={w} y={h + 12} textAnchor="end">
          {span < 10 ? span.toFixed(2) : span.toFixed(0)} s
        </text>
      </svg>
      <div className="legend muted">
        <span className="swatch" style={{ background: "var(--accent)" }} />
        calls ({total})
        <span className="swatch" style={{ background: "var(--error)" }} />
        failed ({errors.reduce((a, b) => a + b, 0)})
      </div>
    </div>
  );
}

function Slowest({ stats, sessionId }: { stats: Stats; sessionId: number }) {
  if (!stats.slowest.length) return <p className="muted">No answered calls.</p>;
  return (
    <table data-testid="overview-slowest">
      <tbody>
        {stats.slowest.map((c) => (
          <tr key={c.seq}>
            <td className="mono">
              <Link to={`/sessions/${sessionId}/messages/${c.seq}`} data-testid="overview-slow-link">
                #{c.seq} {c.method}
                {c.name ? ` ${c.name}` : ""}
              </Link>
            </td>
            <td className={c.failed ? "failed" : undefined} data-col="latency_ms">
              {ms(c.latency_ms)} ms
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function FindingsByRule({ findings }: { findings: Finding[] | null }) {
  if (findings === null) return <p className="muted">Linting…</p>;
  if (!findings.length) return <p className="muted">No findings.</p>;
  const byRule = new Map<string, { severity: string; count: number; first: number }>();
  for (const f of findings) {
    const seen = byRule.get(f.rule);
    if (seen) seen.count += 1;
    else byRule.set(f.rule, { severity: f.severity, count: 1, first: f.seq });
  }
  const order = { error: 0, warning: 1, info: 2 } as Record<string, number>;
  const rows = [...byRule.entries()].sort((a, b) => (order[a[1].severity] ?? 3) - (order[b[1].severity] ?? 3) || b[1].count - a[1].count);
  return (
    <table data-testid="overview-findings">
      <tbody>
        {rows.map(([rule, r]) => (
          <tr key={rule}>
            <td className="mono">{rule}</td>
            <td className={r.severity === "error" ? "failed" : "muted"}>{r.severity}</td>
            <td>{r.count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ToolsCost({ list }: { list: NonNullable<Stats["tools_list"]> }) {
  return (
    <>
      <p data-testid="overview-tools-total">
        {list.tools.length} tools: <b>{list.bytes}</b> bytes, about <b>{list.tokens}</b> tokens{" "}
        <span className="muted">(estimated as {list.token_estimate}) · results: {list.results.map((r) => `#${r.seq} ${r.bytes} B`).join(", ")}</span>
      </p>
      <table data-testid="overview-tools">
        <thead>
          <tr>
            <th>tool</th>
            <th>bytes</th>
            <th>≈ tokens</th>
            <th>description bytes</th>
          </tr>
        </thead>
        <tbody>
          {list.tools.map((t, i) => (
            <tr key={i}>
              <td className="mono">{t.name ?? "?"}</td>
              <td>{t.bytes}</td>
              <td>{t.tokens}</td>
              <td>{t.description_bytes}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
