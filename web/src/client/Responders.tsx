// How the server's requests are answered, per method: by you in the inbox (manual), with a
// fixed answer (JSON), or refused (reject). Saved with PUT /api/clients/{id}/responders.
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { Json } from "./api";

type Mode = "manual" | "fixed" | "reject";
type Row = { mode: Mode; answer: string };

const METHODS: Record<string, unknown> = {
  "sampling/createMessage": { role: "assistant", content: { type: "text", text: "ok" }, model: "fixed" },
  "roots/list": { roots: [{ uri: "file:///tmp/project", name: "project" }] },
  "elicitation/create": { action: "decline" },
};

function initial(current: Record<string, { mode?: string; answer?: unknown }>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [method, example] of Object.entries(METHODS)) {
    const r = current[method];
    out[method] = {
      mode: (r?.mode as Mode) ?? "manual",
      answer: JSON.stringify(r?.answer ?? example, null, 1),
    };
  }
  return out;
}

export function Responders({ clientId, current }: { clientId: string; current: Json }) {
  const [rows, setRows] = useState(() => initial(current as Record<string, { mode?: string; answer?: unknown }>));
  const [status, setStatus] = useState<string | null>(null);
  async function save() {
    const body: Record<string, { mode: Mode; answer?: unknown; error?: null }> = {};
    try {
      for (const [method, row] of Object.entries(rows)) {
        body[method] = { mode: row.mode, answer: row.mode === "fixed" ? JSON.parse(row.answer) : null, error: null };
      }
    } catch (e) {
      setStatus(`not valid JSON: ${(e as Error).message}`);
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
              onChange={(e) => setRows({ ...rows, [method]: { ...row, mode: e.target.value as Mode } })}
            >
              <option value="manual">manual (inbox)</option>
              <option value="fixed">fixed answer</option>
              <option value="reject">reject</option>
            </select>
          </label>
          {row.mode === "fixed" && (
            <textarea
              className="code"
              rows={3}
              aria-label={`${method} fixed answer`}
              value={row.answer}
              onChange={(e) => setRows({ ...rows, [method]: { ...row, answer: e.target.value } })}
            />
          )}
        </div>
      ))}
      <button onClick={save}>Save responders</button> {status && <span className="muted small">{status}</span>}
    </details>
  );
}
