// How the server's requests are answered, per method: by you in the inbox (manual), with a
// fixed answer (JSON), refused (reject), or with the answer a recorded session gave to the same
// request (recorded, with a fallback when nothing matches). Saved with PUT /api/clients/{id}/responders.
import { useEffect, useState } from "react";
import { api, unwrap, type Session } from "../api/client";
import type { components } from "../api/schema";
import type { Json } from "./api";

type Mode = "manual" | "fixed" | "reject" | "recorded";
type Row = { mode: Mode; answer: string; session: string; fallback: "reject" | "manual"; match: "strict" | "lenient" };
type ResponderIn = components["schemas"]["ResponderIn"];

const METHODS: Record<string, unknown> = {
  "sampling/createMessage": { role: "assistant", content: { type: "text", text: "ok" }, model: "fixed" },
  "roots/list": { roots: [{ uri: "file:///tmp/project", name: "project" }] },
  "elicitation/create": { action: "decline" },
};

type Current = { mode?: string; answer?: unknown; session_id?: number; fallback?: string; match?: string };

function initial(current: Record<string, Current>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [method, example] of Object.entries(METHODS)) {
    const r = current[method];
    out[method] = {
      mode: (r?.mode as Mode) ?? "manual",
      answer: JSON.stringify(r?.answer ?? example, null, 1),
      session: r?.session_id ? String(r.session_id) : "",
      fallback: r?.fallback === "manual" ? "manual" : "reject",
      match: r?.match === "lenient" ? "lenient" : "strict",
    };
  }
  return out;
}

function toBody(row: Row): ResponderIn {
  const base: ResponderIn = { mode: row.mode, fallback: row.fallback, match: row.match, answer: null, error: null };
  if (row.mode === "fixed") base.answer = JSON.parse(row.answer);
  if (row.mode === "recorded") {
    if (!row.session) throw new Error("choose the recorded session to answer from");
    base.session_id = Number(row.session);
  }
  return base;
}

export function Responders({ clientId, current }: { clientId: string; current: Json }) {
  const [rows, setRows] = useState(() => initial(current as Record<string, Current>));
  const [status, setStatus] = useState<string | null>(null);
  const [sessions, setSessions] = useState<Session[]>([]);
  const wantsSessions = Object.values(rows).some((r) => r.mode === "recorded");
  useEffect(() => {
    if (!wantsSessions || sessions.length) return;
    api.GET("/api/sessions", { params: { query: { limit: 200 } } }).then(unwrap).then(
      (l) => setSessions(l.items),
      () => undefined,
    );
  }, [wantsSessions, sessions.length]);

  async function save() {
    const body: Record<string, ResponderIn> = {};
    try {
      for (const [method, row] of Object.entries(rows)) body[method] = toBody(row);
    } catch (e) {
      setStatus(e instanceof SyntaxError ? `not valid JSON: ${e.message}` : (e as Error).message);
      return;
    }
    try {
      await api
        .PUT("/api/clients/{client_id}/responders", { params: { path: { client_id: clientId } }, body })
        .then(unwrap);
      setStatus("saved");
    } catch (e) {
      setStatus((e as Error).message);
    }
  }
  const set = (method: string, row: Row, patch: Partial<Row>) => setRows({ ...rows, [method]: { ...row, ...patch } });
  return (
    <details className="responders">
      <summary>Responders</summary>
      {Object.entries(rows).map(([method, row]) => (
        <div key={method} className="stack responder" data-method={method}>
          <label className="check small">
            <code>{method}</code>
            <select
              aria-label={`${method} responder`}
              value={row.mode}
              onChange={(e) => set(method, row, { mode: e.target.value as Mode })}
            >
              <option value="manual">manual (inbox)</option>
              <option value="fixed">fixed answer</option>
              <option value="reject">reject</option>
              <option value="recorded">from a recorded session</option>
            </select>
          </label>
          {row.mode === "fixed" && (
            <textarea
              className="code"
              rows={3}
              aria-label={`${method} fixed answer`}
              value={row.answer}
              onChange={(e) => set(method, row, { answer: e.target.value })}
            />
          )}
          {row.mode === "recorded" && (
            <div className="stack small">
              <select
                aria-label={`${method} recorded session`}
                value={row.session}
                onChange={(e) => set(method, row, { session: e.target.value })}
              >
                <option value="">choose a session…</option>
                {sessions.map((s) => (
                  <option key={s.id} value={String(s.id)}>
                    #{s.id} {s.kind} {s.name ?? (Array.isArray(s.target) ? s.target.join(" ") : String(s.target ?? ""))}
                  </option>
                ))}
              </select>
              <label className="check">
                match
                <select
                  aria-label={`${method} match`}
                  value={row.match}
                  onChange={(e) => set(method, row, { match: e.target.value as Row["match"] })}
                >
                  <option value="strict">strict</option>
                  <option value="lenient">lenient</option>
                </select>
                when nothing matches
                <select
                  aria-label={`${method} fallback`}
                  value={row.fallback}
                  onChange={(e) => set(method, row, { fallback: e.target.value as Row["fallback"] })}
                >
                  <option value="reject">reject</option>
                  <option value="manual">ask me (inbox)</option>
                </select>
              </label>
            </div>
          )}
        </div>
      ))}
      <button onClick={save}>Save responders</button> {status && <span className="muted small">{status}</span>}
    </details>
  );
}
