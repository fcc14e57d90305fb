// What a timeline row shows of its message, as plain strings: the one description of a row's cells
// that both renderers read, the app's (TimelineRow.tsx, React) and the first rows drawn before the
// app has loaded (first/firstRows.ts, DOM calls). No React and no runtime import of the API client
// here: this module is also bundled into the small classic script of the page's head (first/prime.ts).
import type { LintBadge, Row } from "../api/client";
import { arrows, clock, delta, duration, rowLabel, size } from "../format";
import { interventionClass, interventionOf, interventionText } from "./interventions";

export const ROW_HEIGHT = 26;

const SEVERITIES = ["error", "warning", "info"] as const;
const DETAIL_PARAM: Record<string, RegExp> = {
  "tools/call": /"name"\s*:\s*"([^"]{1,60})"/,
  "prompts/get": /"name"\s*:\s*"([^"]{1,60})"/,
  "resources/read": /"uri"\s*:\s*"([^"]{1,80})"/,
};

/** One lint badge of a row: one per severity, the rules in its title. */
export interface LintCell {
  severity: (typeof SEVERITIES)[number];
  text: string;
  title: string;
}

/** A row's cells in the order they are shown (`c-seq` ... `c-size`); `method` holds the method column's
 * own text, the pieces around it are their own fields. */
export interface RowCells {
  /** The row's classes from its message alone (the view adds selected, open, range, conversation). */
  className: string;
  seq: string;
  time: string;
  delta: string;
  dir: string;
  kind: string;
  method: string;
  /** "↳#N" when it answers message N. */
  pair: string | null;
  flags: string[];
  errorCode: string | null;
  id: string;
  latency: string;
  size: string;
}

/** A row's intervention badge: "injected" (a link to its original), "not delivered", "delayed 200 ms"... */
export interface InterventionCell {
  injected: boolean;
  className: string;
  iv: "injected" | "changed" | "undelivered";
  title: string;
  text: string;
}

export function interventionCell(r: Row): InterventionCell | null {
  const iv = interventionOf(r);
  if (!iv) return null;
  const text = interventionText(iv);
  if (iv.kind === "injected")
    return {
      injected: true,
      className: "iv-badge iv-injected",
      iv: "injected",
      title: `${text}: sent by the inspector, not by the peer. Click for the original.`,
      text: "injected",
    };
  const label = iv.delivered ? (iv.action === "delay" && iv.delayMs !== null ? `delayed ${iv.delayMs} ms` : text.split(" by ")[0]) : "not delivered";
  return {
    injected: false,
    className: `iv-badge ${iv.delivered ? "iv-changed" : "iv-undelivered"}`,
    iv: iv.delivered ? "changed" : "undelivered",
    title: text,
    text: `${label} · ${iv.delivered ? iv.who : `${iv.action} by ${iv.who}`}`,
  };
}

/** The badges of a row's lint findings: those stored on the row, else `known` (the session's findings). */
export function lintCells(r: Row, known?: LintBadge[]): LintCell[] {
  const own = Array.isArray(r.lint) ? (r.lint as LintBadge[]) : [];
  const badges = own.length ? own : known ?? [];
  const out: LintCell[] = [];
  for (const severity of SEVERITIES) {
    const rules = badges.filter((b) => b.severity === severity).map((b) => b.rule);
    if (!rules.length) continue;
    const sign = severity === "error" ? "✖" : severity === "warning" ? "▲" : "i";
    out.push({ severity, text: `${sign} ${rules.length > 1 ? rules.length : rules[0]}`, title: rules.join(", ") });
  }
  return out;
}

function methodText(r: Row): string {
  const label = rowLabel(r);
  const re = r.kind === "request" && r.method ? DETAIL_PARAM[r.method] : undefined;
  const m = re?.exec(r.preview);
  return m ? `${label} ${m[1]}` : label;
}

/** The cells of message `r`; `prevTs` is the time of the message before it (null: none or not loaded). */
export function rowCells(r: Row, prevTs: number | null): RowCells {
  return {
    className: ["row", `dir-${r.direction}`, `rk-${r.kind}`, r.channel === "stderr" ? "stderr" : "", interventionClass(r)]
      .filter(Boolean)
      .join(" "),
    seq: String(r.seq),
    time: clock(r.ts_ns),
    delta: prevTs !== null ? delta(r.ts_ns - prevTs) : "",
    dir: arrows[r.direction] ?? r.direction,
    kind: r.kind,
    method: methodText(r),
    pair: r.answers_seq !== null ? `↳#${r.answers_seq}` : null,
    flags: r.meta?.flags ?? [],
    errorCode: r.error_code !== null ? `code ${r.error_code}` : null,
    id: r.rpc_id === null || r.rpc_id === undefined ? "" : String(r.rpc_id),
    latency: duration(r.latency_ns),
    size: size(r.size),
  };
}
