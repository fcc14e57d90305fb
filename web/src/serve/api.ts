// Typed calls of the mock server workspace routes (/api/serve/...).
import { api, detailText, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type ServedClient = components["schemas"]["ServedClient"];
export type PushOut = components["schemas"]["PushOut"];
export type ServeProcess = components["schemas"]["ServeProcessOut"];
export type ServeProcessList = components["schemas"]["ServeProcessList"];
export type ServeStart = components["schemas"]["ServeStart"];
export type Json = Record<string, unknown>;

const path = (sessionId: number) => ({ params: { path: { session_id: sessionId } } });

export const serveApi = {
  list: () => api.GET("/api/serve").then(unwrap),
  processes: () => api.GET("/api/serve/processes").then(unwrap),
  start: (body: ServeStart) => api.POST("/api/serve/processes", { body }).then(unwrap),
  stop: async (id: string) => {
    const r = await api.DELETE("/api/serve/processes/{process_id}", { params: { path: { process_id: id } } });
    if (!r.response.ok) throw new Error(detailText((r.error as { detail?: unknown } | undefined)?.detail) || r.response.statusText);
  },
  request: (sessionId: number, method: string, params: Json | null, timeout = 120) =>
    api.POST("/api/serve/{session_id}/request", { ...path(sessionId), body: { method, params, timeout } }).then(unwrap),
  notify: (sessionId: number, method: string, params: Json | null) =>
    api.POST("/api/serve/{session_id}/notify", { ...path(sessionId), body: { method, params } }).then(unwrap),
  putTool: (sessionId: number, tool: Json, announce: boolean) =>
    api.PUT("/api/serve/{session_id}/tools", { ...path(sessionId), body: { tool, announce } }).then(unwrap),
  removeTool: (sessionId: number, name: string, announce: boolean) =>
    api
      .DELETE("/api/serve/{session_id}/tools/{name}", {
        params: { path: { session_id: sessionId, name }, query: { announce } },
      })
      .then(unwrap),
};

/** JSON text to a value, or an Error naming the field. */
export function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${field}: ${(e as Error).message}`);
  }
}
