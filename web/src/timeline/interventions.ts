// How the inspector intervened on a recorded row (issue 17): `meta.intercept` on the sender's
// message (delivered or not), `meta.injected` on bytes the inspector sent itself. Same `n` links them.
import type { InjectedMeta, InterceptMeta, Row, RowMeta } from "../api/client";

export interface Intervention {
  kind: "intercept" | "injected";
  n: number | string | null;
  action: string;
  who: string;
  delivered: boolean;
  delayMs: number | null;
  status: number | null;
}

const VERBS: Record<string, string> = {
  pause: "held",
  delay: "delayed",
  drop: "dropped",
  duplicate: "duplicated",
  reorder: "reordered",
  corrupt: "corrupted",
  truncate: "truncated",
  replace: "replaced",
  respond: "answered",
  edit: "edited",
  forward: "forwarded",
  disconnect: "cut off",
  http_error: "HTTP error",
  drip: "dripped",
  close_stream: "stream closed",
};

function whoOf(mark: InterceptMeta | InjectedMeta): string {
  const by = typeof mark.by === "string" ? mark.by : "";
  if (by.startsWith("rule:")) return `rule ${by.slice(5)}`;
  if (by === "user") return "you";
  if (by === "shutdown") return "the inspector at shutdown";
  if (by) return by;
  return "rule" in mark && typeof mark.rule === "string" ? `rule ${mark.rule}` : "the inspector";
}

// A row read back may hold anything under these keys (an imported file, an older version): each is checked.
const isObject = (v: unknown): boolean => typeof v === "object" && v !== null;

export function interventionOf(r: { meta?: RowMeta | null }): Intervention | null {
  const meta = isObject(r.meta) ? r.meta : null;
  if (!meta) return null;
  const intercept = isObject(meta.intercept) ? meta.intercept : undefined;
  const injected = isObject(meta.injected) ? meta.injected : undefined;
  const mark = intercept ?? injected;
  if (!mark) return null;
  const n = typeof mark.n === "number" || typeof mark.n === "string" ? mark.n : null;
  return {
    kind: intercept ? "intercept" : "injected",
    n,
    action: typeof mark.action === "string" ? mark.action : "changed",
    who: whoOf(mark),
    delivered: intercept ? intercept.delivered !== false : true,
    delayMs: typeof intercept?.delay_ms === "number" ? intercept.delay_ms : null,
    status: typeof intercept?.status === "number" ? intercept.status : null,
  };
}

/** A short text: "dropped by rule slow — not delivered", "injected by you (respond #3)", "delayed 200 ms by rule x". */
export function interventionText(iv: Intervention): string {
  if (iv.kind === "injected") return `injected by ${iv.who} (${iv.action}${iv.n !== null ? ` #${iv.n}` : ""})`;
  const verb = VERBS[iv.action] ?? iv.action;
  const delay = iv.action === "delay" && iv.delayMs !== null ? ` ${iv.delayMs} ms` : "";
  const status = iv.status !== null ? ` ${iv.status}` : "";
  return `${verb}${delay}${status} by ${iv.who}${iv.delivered ? "" : " — not delivered"}`;
}

/** The row's CSS class: `iv-undelivered`, `iv-injected`, `iv-changed` (delivered, e.g. delayed) or "". */
export function interventionClass(r: Row): string {
  const iv = interventionOf(r);
  if (!iv) return "";
  if (iv.kind === "injected") return "iv-injected";
  return iv.delivered ? "iv-changed" : "iv-undelivered";
}
