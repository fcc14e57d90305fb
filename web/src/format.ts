// How numbers and times look in the UI.
import type { RowMeta } from "./api/client";

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

export function clock(ns: number): string {
  const d = new Date(ns / 1e6);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** "2026-11-27 02:41:07.123" in local time. Not `toLocaleDateString()`: a page's first use of Intl
 * loads its locale data (20-40 ms of main-thread time in Chromium here), and a session's header is
 * rendered while its timeline's first rows wait for the main thread. */
export function dateTime(ns: number | null | undefined): string {
  if (!ns) return "";
  const d = new Date(ns / 1e6);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(ns)}`;
}

/** 1234567 as "1,234,567". Not `toLocaleString()`: a page's first use of Intl loads its locale data,
 * 40-110 ms of main-thread time measured in Chromium (a timeline's total was the first use, inside the
 * render that shows its first rows). */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function duration(ns: number | null | undefined): string {
  if (ns === null || ns === undefined) return "";
  if (ns < 1_000_000) return `${Math.round(ns / 1000)}µs`;
  if (ns < 1_000_000_000) return `${(ns / 1e6).toFixed(1)}ms`;
  if (ns < 120e9) return `${(ns / 1e9).toFixed(2)}s`;
  return `${Math.floor(ns / 60e9)}m${Math.round((ns % 60e9) / 1e9)}s`;
}

export function delta(ns: number | null | undefined): string {
  if (ns === null || ns === undefined) return "";
  return "+" + duration(ns);
}

export function size(n: number): string {
  if (n < 10_000) return `${n} B`;
  if (n < 10_000_000) return `${Math.round(n / 1024)} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}

export const arrows: Record<string, string> = { c2s: "C→S", s2c: "S→C" };

export function shortTarget(target: unknown): string {
  if (Array.isArray(target)) {
    const [prog, ...args] = target.map(String);
    return [prog?.split("/").pop() ?? "", ...args].join(" ");
  }
  return target ? String(target) : "";
}

/** The text shown in a timeline row's method column. */
export function rowLabel(r: {
  kind: string;
  method: string | null;
  preview: string;
  answers_seq: number | null;
  meta: RowMeta | null;
  parse_status: string;
}): string {
  if (r.kind === "log") return r.preview.replace(/\r?\n$/, "");
  if (r.kind === "invalid") return String(r.meta?.problem ?? r.parse_status);
  return r.method ?? "";
}

/** Deepest a tree view or JSON.stringify is asked to go: both recurse, and a recorded body can nest
 * 100,000 levels (the browser's stack ends first, and the view with it). Deeper is shown as text. */
export const TREE_DEPTH_LIMIT = 200;

/** How deep the containers of a JSON text nest (brackets inside strings do not count); stops counting
 * once past `limit`. A loop, no recursion. */
export function jsonTextDepth(text: string, limit = TREE_DEPTH_LIMIT): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/** How deep a parsed value nests, stopping once past `limit` (a loop, no recursion). */
export function valueDepth(value: unknown, limit = TREE_DEPTH_LIMIT): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d > deepest && (deepest = d) > limit) return deepest;
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return deepest;
}
