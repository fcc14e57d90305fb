// The runs-compared summary the diff view opens with (issue #39 item 5): the exchanges per bucket
// as chips (a chip filters the list to its bucket; again, or Esc, shows all) and the latency of
// each method and name in a and b (p50, p95, b minus a), from the API's `summary` (the same as
// `mcp-inspect diff --json`).
import type { components } from "../api/schema";
import "./runs-compared.css";

export type RunsCompared = components["schemas"]["RunsCompared"];
export type Bucket = components["schemas"]["ExchangeDiffOut"]["bucket"];
export const BUCKETS: Bucket[] = ["regressed", "fixed", "new", "removed", "changed", "volatile", "unchanged"];

const TIPS: Record<Bucket, string> = {
  regressed: "answered ok in a; an error, an isError result or no answer in b",
  fixed: "an error, an isError result or no answer in a; answered ok in b",
  new: "only in b",
  removed: "only in a",
  changed: "differs beyond the ignored paths",
  volatile: "differs only in clock-like values: times, dates, ids, counters",
  unchanged: "the same in both",
};

function ms(v: number | null | undefined): string {
  return v === null || v === undefined ? "–" : v >= 1000 ? v.toFixed(0) : v.toFixed(1);
}

function delta(v: number | null | undefined) {
  if (v === null || v === undefined) return <td className="delta">–</td>;
  const kind = v > 0 ? "slower" : v < 0 ? "faster" : "";
  return <td className={`delta ${kind}`}>{(v > 0 ? "+" : v < 0 ? "−" : "±") + ms(Math.abs(v))}</td>;
}

export function RunsComparedSummary({
  summary,
  labels,
  bucket,
  onBucket,
}: {
  summary: RunsCompared;
  labels: [string, string];
  bucket: Bucket | null;
  onBucket: (b: Bucket | null) => void;
}) {
  const { buckets, latency } = summary;
  return (
    <div className="runs-compared" data-testid="runs-compared">
      <span className="chips" role="group" aria-label="Buckets">
        {BUCKETS.map((b) => (
          <button
            key={b}
            className={`chip bucket-${b} ${bucket === b ? "on" : ""}`}
            aria-pressed={bucket === b}
            title={`${TIPS[b]}: show only these`}
            data-testid={`bucket-${b}`}
            data-count={buckets[b]}
            onClick={() => onBucket(bucket === b ? null : b)}
          >
            <span className="n">{buckets[b]}</span> {b}
          </button>
        ))}
      </span>
      {latency.length > 0 && (
        <details className="latency" open>
          <summary className="muted">Latency per method (ms), {labels[0]} → {labels[1]}</summary>
          <table data-testid="latency-deltas">
            <thead>
              <tr>
                <th>method / name</th>
                <th>n a</th>
                <th>n b</th>
                <th>p50 a</th>
                <th>p50 b</th>
                <th>Δ p50</th>
                <th>p95 a</th>
                <th>p95 b</th>
                <th>Δ p95</th>
              </tr>
            </thead>
            <tbody>
              {latency.map((r) => (
                <tr
                  key={`${r.method}\n${r.name ?? ""}`}
                  data-testid="latency-row"
                  data-method={r.method}
                  data-name={r.name ?? ""}
                >
                  <td className={r.name === null ? "method" : "name"} title={r.name ?? r.method}>
                    {r.name ?? r.method}
                  </td>
                  <td>{r.a_count}</td>
                  <td>{r.b_count}</td>
                  <td>{ms(r.a_p50_ms)}</td>
                  <td>{ms(r.b_p50_ms)}</td>
                  {delta(r.p50_delta_ms)}
                  <td>{ms(r.a_p95_ms)}</td>
                  <td>{ms(r.b_p95_ms)}</td>
                  {delta(r.p95_delta_ms)}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </div>
  );
}
