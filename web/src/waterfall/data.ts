// The waterfall's data (issue #39 item 3): `GET /api/sessions/{id}/waterfall` or a host run's, for a
// time window and a budget (spans one by one up to `limit` per lane, else `buckets` slices), fetched
// again when the window changes (debounced; the last answer is drawn meanwhile, at the new scale).
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type Waterfall = components["schemas"]["Waterfall"];
export type Lane = components["schemas"]["WaterfallLane"];
export type Span = components["schemas"]["Span"];

/** Whose waterfall: one session's, or a host run's (a lane per server). */
export type Source = { session: number } | { run: number };

/** A time window in ns since the epoch (as doubles: 256 ns apart at best, enough for a view). */
export interface Win {
  lo: number;
  hi: number;
}

export const LIMIT = 1000;

async function fetchWaterfall(source: Source, win: Win | null, buckets: number, limit: number): Promise<Waterfall> {
  const query = {
    from_ns: win ? Math.max(0, Math.floor(win.lo)) : undefined,
    to_ns: win ? Math.max(0, Math.ceil(win.hi)) : undefined,
    limit,
    buckets: Math.max(1, Math.min(4000, Math.round(buckets))),
  };
  if ("run" in source) {
    return unwrap(await api.GET("/api/host-runs/{run_id}/waterfall", { params: { path: { run_id: source.run }, query } }));
  }
  return unwrap(await api.GET("/api/sessions/{session_id}/waterfall", { params: { path: { session_id: source.session }, query } }));
}

/** The waterfall of `win` (null: the whole extent), refetched 120 ms after the window last changed. */
export function useWaterfall(source: Source, win: Win | null, buckets: number, limit = LIMIT) {
  const [data, setData] = useState<Waterfall | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(source);
  const lo = win?.lo ?? null;
  const hi = win?.hi ?? null;
  const width = Math.round(buckets / 50) * 50; // a resize by a few pixels does not fetch again
  // A window inside one whose spans all came one by one needs no request: they are all here.
  const covered =
    data !== null &&
    data.lo !== null &&
    data.hi !== null &&
    lo !== null &&
    hi !== null &&
    data.lo <= lo &&
    hi <= data.hi &&
    data.lanes.every((l) => l.spans !== null);
  useEffect(() => {
    if (covered) return;
    let gone = false;
    const timer = setTimeout(
      () => {
        fetchWaterfall(source, lo === null || hi === null ? null : { lo, hi }, width || 400, limit).then(
          (w) => !gone && (setData(w), setError(null)),
          (e: Error) => !gone && setError(e.message),
        );
      },
      data ? 120 : 0,
    );
    return () => {
      gone = true;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, lo, hi, width, limit, covered]);
  return { data, error };
}

/** Whether a span overlaps the window (one never answered lasts to the end). */
export function inWindow(s: Span, lo: number, hi: number): boolean {
  return s.start_ns <= hi && (s.end_ns ?? Infinity) >= lo;
}

/** Nanoseconds as a short duration. */
export function dur(ns: number): string {
  const a = Math.abs(ns);
  if (a >= 60e9) return `${(ns / 60e9).toFixed(1)} min`;
  if (a >= 1e9) return `${(ns / 1e9).toFixed(a >= 10e9 ? 1 : 2)} s`;
  if (a >= 1e6) return `${(ns / 1e6).toFixed(a >= 10e6 ? 0 : 1)} ms`;
  return `${(ns / 1e3).toFixed(0)} µs`;
}

/** A tick's time after the start, with as many digits as a step of `step` ns needs. */
export function tickLabel(ns: number, step: number): string {
  const unit = step >= 1e9 ? 1e9 : step >= 1e6 ? 1e6 : 1e3;
  const digits = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  return `${(ns / unit).toFixed(Math.min(digits, 3))} ${unit === 1e9 ? "s" : unit === 1e6 ? "ms" : "µs"}`;
}

/** About `n` round tick values between lo and hi (ns), relative to `origin`. */
export function ticks(lo: number, hi: number, origin: number, n: number): number[] {
  const span = Math.max(1, hi - lo);
  const raw = span / Math.max(1, n);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = Math.ceil((lo - origin) / step) * step; origin + t <= hi && out.length < 50; t += step) out.push(origin + t);
  return out;
}

/** The time range of the URL (`from`, `to`: the timeline's filter and the waterfall's window). */
export function rangeOf(params: URLSearchParams): Win | null {
  const lo = Number(params.get("from"));
  const hi = Number(params.get("to"));
  return params.get("from") && params.get("to") && Number.isFinite(lo) && Number.isFinite(hi) && hi > lo ? { lo, hi } : null;
}

/** `params` with the range `win` (none: removed). */
export function withRange(params: URLSearchParams, win: Win | null): URLSearchParams {
  const next = new URLSearchParams(params);
  if (win) {
    next.set("from", String(Math.floor(win.lo)));
    next.set("to", String(Math.ceil(win.hi)));
  } else {
    next.delete("from");
    next.delete("to");
  }
  return next;
}
