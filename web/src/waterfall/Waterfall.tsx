// The Waterfall tab (issue #39 item 3): each request a bar from request to answer, its progress
// notifications as ticks on it, a server's sampling / elicitation / roots requests drawn inside the
// client request they were sent for; a host run's servers as lanes. Zoom with the buttons or
// Ctrl+wheel (a trackpad's pinch), pan with Shift+wheel or by dragging the time axis; drag across
// the bars to zoom to a range. The window is the URL's `from`/`to`, the timeline's time filter: the
// "timeline" link shows the window's messages in the table. Drawn as SVG in the theme's colours:
// only the rows in view are drawn, and past `LIMIT` spans in the window a lane is its slices
// (count, errors, max latency per slice), which the server aggregates.
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { dur, inWindow, rangeOf, tickLabel, ticks, useWaterfall, withRange, type Lane, type Source, type Span, type Win } from "./data";
import "./waterfall.css";

const LABEL_W = 240;
const ROW = 22;
const AXIS_H = 24;
const MIN_NS = 10_000; // the narrowest window: 10 µs

type Item =
  | { kind: "head"; lane: Lane; name: string }
  | { kind: "span"; span: Span; nested: Span[]; sid: number }
  | { kind: "slices"; lane: Lane };

function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(900);
  const seen = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen.current === el) return;
    seen.current = el; // the element changes once: from the loading view's to the chart's
    const watch = new ResizeObserver(() => setWidth(el.clientWidth - 34));
    watch.observe(el);
    setWidth(el.clientWidth - 34);
  });
  return [ref, width];
}

/** The rows to draw: per lane (a heading when there are several), its top-level spans by start, each
 * with the spans nested in it; or its slices when the server aggregated it. */
function itemsOf(lanes: Lane[], names: Map<number, string>, lo: number, hi: number): Item[] {
  const out: Item[] = [];
  for (const lane of lanes) {
    if (lanes.length > 1) out.push({ kind: "head", lane, name: names.get(lane.session_id) ?? `#${lane.session_id}` });
    if (!lane.spans) {
      out.push({ kind: "slices", lane });
      continue;
    }
    const nested = new Map<number, Span[]>();
    for (const s of lane.spans) if (s.parent_seq !== null) nested.set(s.parent_seq, [...(nested.get(s.parent_seq) ?? []), s]);
    const seqs = new Set(lane.spans.map((s) => s.seq));
    for (const s of lane.spans)
      if ((s.parent_seq === null || !seqs.has(s.parent_seq)) && inWindow(s, lo, hi)) out.push({ kind: "span", span: s, nested: nested.get(s.seq) ?? [], sid: lane.session_id });
  }
  return out;
}

export function WaterfallView({ source, names, timelineOf }: { source: Source; names?: Map<number, string>; timelineOf?: (sessionId: number) => string }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const win = rangeOf(params);
  const [box, width] = useWidth();
  const plot = Math.max(100, width - LABEL_W);
  const { data, error } = useWaterfall(source, win, plot);
  const [scroll, setScroll] = useState(0);
  const [height, setHeight] = useState(480);
  const [brush, setBrush] = useState<{ x0: number; x1: number } | null>(null);
  const drag = useRef<{ x: number; win: Win; pan: boolean } | null>(null);

  const lo = win?.lo ?? data?.lo ?? 0;
  const hi = win?.hi ?? data?.hi ?? 1;
  const start = data?.start_ns ?? lo;
  const end = data?.end_ns ?? hi;
  const x = (t: number) => LABEL_W + ((t - lo) / Math.max(1, hi - lo)) * plot;
  const tOf = (px: number) => lo + ((px - LABEL_W) / plot) * (hi - lo);
  const items = useMemo(() => itemsOf(data?.lanes ?? [], names ?? new Map(), lo, hi), [data, names, lo, hi]);

  const setWin = (next: Win | null) => {
    if (next) {
      let { lo: a, hi: b } = next;
      if (b - a < MIN_NS) [a, b] = [(a + b) / 2 - MIN_NS / 2, (a + b) / 2 + MIN_NS / 2];
      const w = b - a;
      if (w >= end - start) next = null;
      else {
        if (a < start) [a, b] = [start, start + w];
        if (b > end) [a, b] = [end - w, end];
        next = { lo: a, hi: b };
      }
    }
    setParams(withRange(params, next), { replace: true });
  };
  const zoom = (factor: number, at = (lo + hi) / 2) => setWin({ lo: at - (at - lo) * factor, hi: at + (hi - at) * factor });
  const pan = (fraction: number) => setWin({ lo: lo + (hi - lo) * fraction, hi: hi + (hi - lo) * fraction });

  // Wheel: Ctrl (a pinch) zooms at the pointer, Shift pans; a plain wheel scrolls the rows.
  const chart = useRef<HTMLDivElement | null>(null);
  const wheel = useRef<(e: WheelEvent) => void>(() => {});
  wheel.current = (e: WheelEvent) => {
    const rect = chart.current!.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      zoom(Math.exp(e.deltaY * 0.002), tOf(e.clientX - rect.left));
    } else if (e.shiftKey) {
      e.preventDefault();
      pan(((e.deltaX || e.deltaY) / plot) * 0.5);
    }
  };
  useEffect(() => {
    const el = chart.current;
    if (!el) return;
    const on = (e: WheelEvent) => wheel.current(e);
    el.addEventListener("wheel", on, { passive: false });
    const seen = new ResizeObserver(() => setHeight(el.clientHeight));
    seen.observe(el);
    return () => {
      el.removeEventListener("wheel", on);
      seen.disconnect();
    };
  }, [data !== null]); // eslint-disable-line react-hooks/exhaustive-deps

  const px = (e: React.PointerEvent) => e.clientX - (e.currentTarget as Element).getBoundingClientRect().left;
  const down = (e: React.PointerEvent, pan: boolean) => {
    if (e.button !== 0 || px(e) < LABEL_W) return;
    (e.currentTarget as Element).setPointerCapture(e.pointerId);
    drag.current = { x: px(e), win: { lo, hi }, pan };
    if (!pan) setBrush({ x0: px(e), x1: px(e) });
  };
  const move = (e: React.PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    if (d.pan) {
      const shift = ((px(e) - d.x) / plot) * (d.win.hi - d.win.lo);
      setWin({ lo: d.win.lo - shift, hi: d.win.hi - shift });
    } else setBrush({ x0: d.x, x1: Math.max(LABEL_W, Math.min(LABEL_W + plot, px(e))) });
  };
  const up = () => {
    const d = drag.current;
    drag.current = null;
    if (!d || d.pan || !brush) return setBrush(null);
    setBrush(null);
    if (Math.abs(brush.x1 - brush.x0) >= 4) setWin({ lo: tOf(Math.min(brush.x0, brush.x1)), hi: tOf(Math.max(brush.x0, brush.x1)) });
  };

  const empty = error ? (
    <p className="error">{error}</p>
  ) : !data ? (
    <p className="muted wf-empty">Loading the waterfall…</p>
  ) : data.start_ns === null ? (
    <p className="muted wf-empty">No messages yet.</p>
  ) : null;
  if (empty || !data)
    return (
      <div className="waterfall" ref={box}>
        {empty}
      </div>
    );

  const first = Math.max(0, Math.floor(scroll / ROW) - 2);
  const last = Math.min(items.length, Math.ceil((scroll + height) / ROW) + 2);
  const shown = items.slice(first, last);
  const marks = ticks(lo, hi, start, Math.max(2, Math.floor(plot / 110)));
  const totals = data.lanes.reduce((n, l) => n + (l.spans ? l.spans.filter((s) => inWindow(s, lo, hi)).length : l.total), 0);
  const aggregated = data.lanes.some((l) => l.buckets);
  const sessionOf = "session" in source ? source.session : null;
  const toTimeline = (sid: number) => `${timelineOf ? timelineOf(sid) : `/sessions/${sid}`}?${withRange(new URLSearchParams(), { lo, hi })}`;

  return (
    <div className="waterfall" ref={box} data-testid="waterfall" data-lo={lo} data-hi={hi}>
      <div className="toolbar wf-toolbar">
        <button onClick={() => zoom(0.5)} title="Zoom in (Ctrl+wheel)" data-testid="wf-zoom-in">
          +
        </button>
        <button onClick={() => zoom(2)} title="Zoom out (Ctrl+wheel)" data-testid="wf-zoom-out">
          −
        </button>
        <button onClick={() => pan(-0.25)} title="Earlier (Shift+wheel, or drag the time axis)">
          ←
        </button>
        <button onClick={() => pan(0.25)} title="Later (Shift+wheel, or drag the time axis)">
          →
        </button>
        <button className="ghost" onClick={() => setWin(null)} disabled={!win} data-testid="wf-reset">
          Whole session
        </button>
        <span className="muted" data-testid="wf-window">
          {dur(lo - start)} – {dur(hi - start)} · {totals} request{totals === 1 ? "" : "s"}
          {aggregated ? " (aggregated: zoom in for each request)" : ""}
        </span>
        <span className="grow" />
        {sessionOf !== null && (
          <Link to={toTimeline(sessionOf)} data-testid="wf-to-timeline" title="The timeline's messages of this window">
            {win ? "These messages in the timeline" : "Timeline"}
          </Link>
        )}
        <Legend />
      </div>
      <svg className="wf-axis" width={width} height={AXIS_H} onPointerDown={(e) => down(e, true)} onPointerMove={move} onPointerUp={up}>
        <text x={8} y={16} className="wf-label muted">
          drag to pan
        </text>
        {marks.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={AXIS_H - 6} y2={AXIS_H} className="wf-rule" />
            {x(t) + 60 < width && (
              <text x={x(t) + 3} y={14} className="wf-tick-label">
                {tickLabel(t - start, marks.length > 1 ? marks[1] - marks[0] : hi - lo)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <div className="wf-chart" ref={chart} onScroll={(e) => setScroll(e.currentTarget.scrollTop)}>
        <svg
          width={width}
          height={Math.max(items.length * ROW, 40)}
          onPointerDown={(e) => down(e, false)}
          onPointerMove={move}
          onPointerUp={up}
          data-testid="wf-rows"
          data-rows={items.length}
        >
          <rect x={0} y={first * ROW} width={LABEL_W - 4} height={(last - first) * ROW} className="wf-labels" />
          <line x1={LABEL_W} x2={LABEL_W} y1={first * ROW} y2={last * ROW} className="wf-rule" />
          {marks.map((t) => (
            <line key={t} x1={x(t)} x2={x(t)} y1={first * ROW} y2={last * ROW} className="wf-grid" />
          ))}
          {shown.map((item, i) => {
            const y = (first + i) * ROW;
            return (
              <g key={item.kind === "span" ? `${item.span.seq}` : `${item.kind}-${item.lane.session_id}`} transform={`translate(0 ${y})`}>
                {row(item, x, plot, end, data.lo ?? lo, (sid, seq) => navigate(`${timelineOf ? timelineOf(sid) : `/sessions/${sid}`}/messages/${seq}`))}
              </g>
            );
          })}
          {brush && (
            <rect
              className="wf-brush"
              data-testid="wf-brush"
              x={Math.min(brush.x0, brush.x1)}
              y={0}
              width={Math.abs(brush.x1 - brush.x0)}
              height={Math.max(items.length * ROW, 40)}
            />
          )}
        </svg>
      </div>
    </div>
  );
}

function label(s: Span): string {
  return s.name ? `${s.method} ${s.name}` : (s.method ?? "?");
}

function title(s: Span): string {
  const took = s.end_ns === null ? "never answered" : dur(s.end_ns - s.start_ns);
  return `#${s.seq} ${label(s)} · ${took}${s.failed ? " · failed" : ""}${s.progress.length ? ` · ${s.progress.length} progress` : ""}`;
}

/** One row: a heading, a span (with its nested spans and progress ticks) or a lane's slices. */
function row(item: Item, x: (t: number) => number, plot: number, end: number, from: number, open: (sid: number, seq: number) => void): ReactNode {
  if (item.kind === "head") {
    return (
      <text x={8} y={15} className="wf-lane-head" data-testid="wf-lane">
        {item.name} <tspan className="muted">({item.lane.total})</tspan>
      </text>
    );
  }
  if (item.kind === "slices") {
    const b = item.lane.buckets!;
    const top = Math.max(1, ...b.count);
    const w = Math.max(1, x(from + b.slice_ns) - x(from));
    return (
      <g data-testid="wf-slices">
        <text x={8} y={15} className="wf-label">
          {item.lane.total} requests, per slice
        </text>
        {b.count.map((n, i) =>
          n ? (
            <rect key={i} x={x(from + i * b.slice_ns)} y={ROW - 2 - (n / top) * (ROW - 4)} width={Math.max(1, w - 0.5)} height={(n / top) * (ROW - 4)} className={b.errors[i] ? "wf-slice failed" : "wf-slice"}>
              <title>{`${n} request${n === 1 ? "" : "s"}, ${b.errors[i]} failed, slowest ${b.max_ms[i]} ms`}</title>
            </rect>
          ) : null,
        )}
      </g>
    );
  }
  const s = item.span;
  const x0 = Math.max(LABEL_W + 1, x(s.start_ns));
  const x1 = Math.min(LABEL_W + plot + 2, x(s.end_ns ?? end));
  if (x1 < LABEL_W || x0 > LABEL_W + plot) return null; // an earlier answer's, while the window's own loads
  const inner = [...new Set(item.nested.map((n) => (n.method ?? "").split("/")[0]))].join(", ");
  const cls = `wf-span ${s.direction}${s.failed ? " failed" : ""}${s.end_ns === null ? " open" : ""}`;
  return (
    <g className="wf-row" onClick={() => open(item.sid, s.seq)}>
      <text x={8} y={15} className="wf-label">
        <tspan className="muted">#{s.seq} </tspan>
        {label(s).slice(0, 34)}
      </text>
      <rect x={x0} y={4} width={Math.max(2, x1 - x0)} height={14} rx={2} className={cls} data-testid="wf-span" data-seq={s.seq}>
        <title>{title(s)}</title>
      </rect>
      {item.nested.map((n) => {
        const a = Math.max(LABEL_W + 1, x(n.start_ns));
        const b = Math.min(LABEL_W + plot + 2, x(n.end_ns ?? end));
        return (
          <g key={n.seq}>
            <rect x={a} y={7} width={Math.max(2, b - a)} height={8} className={`wf-nested${n.failed ? " failed" : ""}`} data-testid="wf-nested" data-seq={n.seq} data-parent={s.seq}>
              <title>{title(n)}</title>
            </rect>
          </g>
        );
      })}
      {inner && x1 + 8 + inner.length * 6.5 < LABEL_W + plot && (
        <text x={x1 + 4} y={15} className="wf-nested-label">
          {inner}
        </text>
      )}
      {s.progress.filter((t) => x(t) >= LABEL_W).map((t, i) => (
        <line key={i} x1={x(t)} x2={x(t)} y1={2} y2={20} className="wf-tick" data-testid="wf-tick" />
      ))}
    </g>
  );
}

function Legend() {
  return (
    <span className="wf-legend">
      <span className="swatch c2s" /> client request
      <span className="swatch s2c" /> server request inside it
      <span className="swatch tick" /> progress
      <span className="swatch failed" /> failed
    </span>
  );
}
