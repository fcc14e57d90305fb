// Typed calls of the mock client routes (/api/clients/...), and the shapes the workspace uses.
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type ClientCreate = components["schemas"]["ClientCreate"];
export type ClientDetail = components["schemas"]["ClientDetail"];
export type ClientSummary = components["schemas"]["ClientSummary"];
export type InboxItem = components["schemas"]["InboxItemOut"];
export type Rpc = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
export type Json = Record<string, unknown>;

export const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

export const clientApi = {
  create: (body: ClientCreate) => api.POST("/api/clients", { body }).then(unwrap),
  list: () => api.GET("/api/clients").then(unwrap),
  get: (id: string) => api.GET("/api/clients/{client_id}", { params: { path: { client_id: id } } }).then(unwrap),
  close: (id: string) => api.DELETE("/api/clients/{client_id}", { params: { path: { client_id: id } } }),
  request: (id: string, method: string, params?: Json, progress = false) =>
    api
      .POST("/api/clients/{client_id}/request", {
        params: { path: { client_id: id } },
        body: { method, params: params ?? null, progress },
      })
      .then(unwrap) as Promise<Rpc>,
  raw: (id: string, text: string) =>
    api.POST("/api/clients/{client_id}/raw", { params: { path: { client_id: id } }, body: { text, wait: 2 } }).then(unwrap),
  answer: (id: string, key: string, answer: { result?: unknown; error?: Json }) =>
    api
      .POST("/api/clients/{client_id}/inbox/{key}", {
        params: { path: { client_id: id, key } },
        body: answer as components["schemas"]["AnswerIn"],
      })
      .then(unwrap),
};

/** The request's answer for display: the result, or the error as a readable line. */
export function rpcError(r: Rpc): string | null {
  return r.error ? `${r.error.code}: ${r.error.message}` : null;
}
