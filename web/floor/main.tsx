// The benchmark's React floor (bench/scale_ui.py): the same React and react-dom as the app, asking
// for a timeline's first page as the app does and rendering its rows with the app's row markup, and
// nothing else (no router, no store, no header, no filters). What a timeline's first row costs in
// this framework; the app's own cost is the rest. Built by the benchmark, never shipped.
import { createRoot } from "react-dom/client";
import { clock } from "../src/format";

interface Row {
  seq: number;
  ts_ns: number;
  direction: string;
  kind: string;
  method: string | null;
  rpc_id: string | number | null;
  latency_ns: number | null;
  size: number;
}

function Rows({ items }: { items: Row[] }) {
  return (
    <div data-testid="rows" style={{ height: 860, overflow: "auto" }}>
      {items.map((r, i) => (
        <div key={r.seq} role="row" data-testid="row" data-seq={r.seq} data-index={i} className={`row dir-${r.direction} rk-${r.kind}`} style={{ height: 26 }}>
          <span className="c-seq">{r.seq}</span>
          <span className="c-time">{clock(r.ts_ns)}</span>
          <span className="c-delta">{i ? `+${Math.round((r.ts_ns - items[i - 1].ts_ns) / 1000)}µs` : ""}</span>
          <span className="c-dir">{r.direction}</span>
          <span className={`c-kind kind-${r.kind}`}>{r.kind}</span>
          <span className="c-method">{r.method ?? ""}</span>
          <span className="c-id">{r.rpc_id ?? ""}</span>
          <span className="c-lat">{r.latency_ns === null ? "" : `${Math.round(r.latency_ns / 1000)}µs`}</span>
          <span className="c-size">{r.size} B</span>
        </div>
      ))}
    </div>
  );
}

const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
const session = location.pathname.split("/")[2];
fetch(`/api/sessions/${session}/messages?after_seq=0&limit=200&count=true`, { headers: { Authorization: `Bearer ${token}` } })
  .then((r) => r.json())
  .then((page: { items: Row[] }) => createRoot(document.getElementById("root")!).render(<Rows items={page.items.slice(0, 34)} />));
