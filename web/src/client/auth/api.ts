// Typed calls of the OAuth routes (/api/auth/...): guided flows and authorizations waiting for the browser.
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/schema";

export type OAuthOptions = components["schemas"]["OAuthOptions"];
export type Flow = components["schemas"]["FlowOut"];
export type FlowStep = components["schemas"]["FlowStepOut"];
export type PendingAuthorization = components["schemas"]["PendingOut"];

export const AUTH_REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type AuthRevision = (typeof AUTH_REVISIONS)[number];

const path = (id: string) => ({ params: { path: { flow_id: id } } });

export const authApi = {
  pending: () => api.GET("/api/auth/pending").then(unwrap),
  start: (url: string, revision: AuthRevision, auth: OAuthOptions) =>
    api.POST("/api/auth/flows", { body: { url, revision, auth } }).then(unwrap),
  get: (id: string) => api.GET("/api/auth/flows/{flow_id}", path(id)).then(unwrap),
  next: (id: string) => api.POST("/api/auth/flows/{flow_id}/next", path(id)).then(unwrap),
  run: (id: string) => api.POST("/api/auth/flows/{flow_id}/run", path(id)).then(unwrap),
  close: (id: string) => api.DELETE("/api/auth/flows/{flow_id}", path(id)),
};

/** The options as the API takes them: empty fields left out (the client registers itself). */
export function cleanOptions(o: OAuthOptions): OAuthOptions {
  const out: OAuthOptions = {};
  for (const key of ["client_id", "client_secret", "client_metadata_url", "scope"] as const) {
    const value = (o[key] ?? "").trim();
    if (value) out[key] = value;
  }
  return out;
}
