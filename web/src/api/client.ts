// Typed access to the Python API. The types come from its OpenAPI schema (schema.d.ts is generated).
import createClient from "openapi-fetch";
import { authHeaders } from "./auth";
import type { components, paths } from "./schema";

/** A generated type without its `[key: string]: unknown`, at every depth: the Python TypedDicts
 * (`flow.RowMeta` and its key families) allow keys they do not declare, so the generated types would
 * let any key be read. Read through this, a key renamed or removed on the Python side is a type error. */
type Declared<T> = T extends readonly (infer U)[]
  ? Declared<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Declared<T[K]> }
    : T;

/** A message row's `meta` (`flow.RowMeta`): only the keys Python declares can be read. */
export type RowMeta = Declared<components["schemas"]["RowMeta"]>;
/** `meta.intercept` of the sender's row (`flow.InterceptMeta`). */
export type InterceptMeta = Declared<components["schemas"]["InterceptMeta"]>;
/** `meta.injected` of a row the inspector sent itself (`flow.InjectedMeta`). */
export type InjectedMeta = Declared<components["schemas"]["InjectedMeta"]>;
/** A generated row type whose `meta` is read as `RowMeta`. */
type WithMeta<T extends { meta: unknown }> = Omit<T, "meta"> & { meta: RowMeta | null };

export type Session = components["schemas"]["SessionOut"];
export type SessionList = components["schemas"]["SessionList"];
export type Row = WithMeta<components["schemas"]["PageRow"]>;
type DetailMessage = WithMeta<components["schemas"]["MessageDetail"]>;
export type Detail = Omit<components["schemas"]["MessageWithPair"], "message" | "pair" | "related" | "intervention"> & {
  message: DetailMessage;
  pair: Row | null;
  related: Row[];
  intervention?: Row[];
};
export type MessagePage = components["schemas"]["MessagePage"];
export type HttpExchangeOut = components["schemas"]["HttpExchangeOut"];
export type LiveEvent = components["schemas"]["LiveEvent"]["event"];
export type DiffReport = components["schemas"]["DiffReport"];
export type ExchangeDiff = components["schemas"]["ExchangeDiffOut"];
export type DiffSide = components["schemas"]["DiffSide"];
export type ReplayJob = components["schemas"]["ReplayJobOut"];
export type MockCommands = components["schemas"]["MockServerCommands"];

export const api = createClient<paths>({ baseUrl: window.location.origin });
// Every call carries the token as a header (no cookie: see auth.ts).
api.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(authHeaders())) request.headers.set(name, value);
    return request;
  },
});

/** An error answer of the API, with its `detail` message. */
export class ApiError extends Error {
  constructor(
    public status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The data of an openapi-fetch result, or an ApiError with the server's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    const err = result.error as { detail?: unknown } | undefined;
    throw new ApiError(result.response.status, detailText(err?.detail) || result.response.statusText);
  }
  return result.data;
}

/** An error answer's `detail` as one readable line (422 answers list each invalid field). */
export function detailText(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => {
        const where = (d.loc ?? []).filter((p) => p !== "body").join(".");
        return `${where ? where + ": " : ""}${(d.msg ?? "").replace(/^Value error, /, "")}`;
      })
      .join("; ");
  }
  return detail === undefined ? "" : JSON.stringify(detail);
}

/** The filter of a timeline, as in the page's URL and the API's query. */
export interface Filter {
  direction?: "c2s" | "s2c";
  kind: string[];
  method: string[];
  channel: string[];
  q?: string;
  findings?: FindingsFilter;
  /** Only rows the inspector intervened on (held, dropped, delayed, edited, injected). */
  intervened?: boolean;
  /** Only rows recorded in this time range (ns since the epoch): the waterfall's brush. */
  from?: number;
  to?: number;
}

/** Messages with lint findings: any, warning (warnings and errors), error. */
export type FindingsFilter = "any" | "warning" | "error";
export type LintBadge = { rule: string; severity: "error" | "warning" | "info" };

/** The compact findings the store keeps on a linted message row (`lint`). */
export function lintOf(r: Row): LintBadge[] {
  return Array.isArray(r.lint) ? (r.lint as LintBadge[]) : [];
}

export const emptyFilter: Filter = { kind: [], method: [], channel: [] };

export function isEmptyFilter(f: Filter): boolean {
  return !f.direction && !f.kind.length && !f.method.length && !f.channel.length && !f.q && !f.findings && !f.intervened && f.from === undefined && f.to === undefined;
}

export function filterQuery(f: Filter) {
  return {
    direction: f.direction,
    kind: f.kind.length ? f.kind : undefined,
    method: f.method.length ? f.method : undefined,
    channel: f.channel.length ? f.channel : undefined,
    q: f.q || undefined,
    findings: f.findings,
    intervened: f.intervened || undefined,
    from_ns: f.from,
    to_ns: f.to,
  };
}
