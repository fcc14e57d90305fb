// A thin strip of the waterfall on the timeline tab (issue #39 item 3): the session's requests per
// slice of its whole span (errors in red), the time filter's range shaded. Drag across it to filter
// the table to a time range (the URL's `from`/`to`); a click clears it. Only slices are asked for
// (`limit` 0): a few hundred numbers, whatever the session's size.
import { useEffect, useRef, useState } from "react";
import { useWaterfall, type Win } from "./data";
import "./waterfall.css";

const H = 28;

export function Strip({ sessionId, range, onRange }: { sessionId: number; range: Win | null; onRange: (w: Win | null) => void }) {
  const box = useRef<SVGSVGElement | null>(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    const el = box.current?.parentElement;
    if (!el) return;
    const seen = new ResizeObserver(() => setWidth(Math.max(100, el.clientWidth - 26)));
    seen.observe(el);
    return () => seen.disconnect();
  }, []);
  const { data } = useWaterfall({ session: sessionId }, null, width / 3, 0);
  const [brush, setBrush] = useState<{ x0: number; x1: number } | null>(null);
  const lo = data?.lo ?? 0;
  const hi = data?.hi ?? 1;
  const x = (t: number) => ((t - lo) / Math.max(1, hi - lo)) * width;
  const tOf = (px: number) => lo + (px / width) * (hi - lo);
  const px = (e: React.PointerEvent) => Math.max(0, Math.min(width, e.clientX - e.currentTarget.getBoundingClientRect().left));
  const lanes = data?.lanes ?? [];
  const n = lanes[0]?.buckets?.count.length ?? 0;
  const count = Array.from({ length: n }, (_, i) => lanes.reduce((s, l) => s + (l.buckets?.count[i] ?? 0), 0));
  const errors = Array.from({ length: n }, (_, i) => lanes.reduce((s, l) => s + (l.buckets?.errors[i] ?? 0), 0));
  const top = Math.max(1, ...count);
  const w = width / Math.max(1, n);
  const shade = brush ? { a: Math.min(brush.x0, brush.x1), b: Math.max(brush.x0, brush.x1) } : range ? { a: x(range.lo), b: x(range.hi) } : null;
  return (
    <svg
      ref={box}
      className="wf-strip"
      width={width}
      height={H}
      data-testid="wf-strip"
      data-lo={lo}
      data-hi={hi}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        setBrush({ x0: px(e), x1: px(e) });
      }}
      onPointerMove={(e) => brush && setBrush({ ...brush, x1: px(e) })}
      onPointerUp={() => {
        if (!brush || !data) return setBrush(null);
        const [a, b] = [Math.min(brush.x0, brush.x1), Math.max(brush.x0, brush.x1)];
        setBrush(null);
        onRange(b - a < 3 ? null : { lo: tOf(a), hi: tOf(b) });
      }}
    >
      <title>Requests over the session: drag to filter the table to a time range, click to clear it</title>
      {count.map((c, i) =>
        c ? <rect key={i} x={i * w} y={H - 2 - (c / top) * (H - 4)} width={Math.max(1, w - 0.5)} height={(c / top) * (H - 4)} className={errors[i] ? "wf-slice failed" : "wf-slice"} /> : null,
      )}
      {shade && <rect className="wf-range" x={shade.a} y={0} width={Math.max(1, shade.b - shade.a)} height={H} data-testid="wf-strip-range" />}
    </svg>
  );
}
