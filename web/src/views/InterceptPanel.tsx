// The Intercept panel of a live session (wrap or proxy started with --intercept or --faults):
// breakpoints and rules switched on and off with their hit counts, the queue of paused messages
// with a live countdown, an editor with JSON validation, and Forward / Drop / Respond.
// Keys (outside text fields): f forward, e edit, d drop, r respond, j/k select.
import { useEffect, useMemo, useRef, useState } from "react";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { useKeys } from "./hooks";
import type { InterceptState, useIntercept } from "./interceptState";
import "./intercept.css";

type Paused = components["schemas"]["PausedMessage"];
type RuleOut = components["schemas"]["InterceptRule"];

const ARROW: Record<string, string> = { c2s: "C→S", s2c: "S→C" };

function pretty(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

function jsonError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function matchText(match: Record<string, unknown>): string {
  const parts = Object.entries(match)
    .filter(([, v]) => v !== null && v !== "" && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : String(v)}`);
  return parts.join(" ") || "every message";
}

export function InterceptPanel({
  sessionId,
  intercept,
}: {
  sessionId: number;
  intercept: ReturnType<typeof useIntercept>;
}) {
  const { state, received, gone, setState, setReceived } = intercept;
  const [selected, setSelected] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [respond, setRespond] = useState(false);
  const [note, setNote] = useState<{ text: string; error?: boolean } | null>(null);
  const [now, setNow] = useState(performance.now());
  const editor = useRef<HTMLTextAreaElement>(null);
  const pending = state?.pending ?? [];
  const current = pending.find((p) => p.id === selected) ?? pending[0] ?? null;

  // The countdown ticks between server answers.
  useEffect(() => {
    if (!pending.length) return;
    const t = window.setInterval(() => setNow(performance.now()), 250);
    return () => window.clearInterval(t);
  }, [pending.length]);

  // A newly selected message fills the editor with its JSON.
  const currentId = current?.id ?? null;
  useEffect(() => {
    setText(current ? pretty(current.raw) : "");
    setRespond(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [currentId]);

  const invalid = useMemo(() => (current ? jsonError(text) : null), [text, current]);
  const edited = current !== null && text !== pretty(current.raw);
  const canAnswer = current?.kind === "request";

  const apply = (next: InterceptState) => {
    setState(next);
    setReceived(performance.now());
  };

  async function resolve(body: components["schemas"]["ResolveIn"]) {
    if (!current) return;
    try {
      unwrap(
        await api.POST("/api/intercept/sessions/{session_id}/pending/{pending_id}", {
          params: { path: { session_id: sessionId, pending_id: current.id } },
          body,
        }),
      );
      const verb = { forward: "forwarded", drop: "dropped", edit: "edited and forwarded", respond: "answered" }[body.action];
      setNote({ text: `${current.id} ${verb}` });
      setSelected(null);
      if (state) apply({ ...state, pending: state.pending.filter((p) => p.id !== current.id) });
    } catch (e) {
      setNote({ text: (e as Error).message, error: true });
    }
  }

  const forward = () => {
    if (!current) return;
    if (edited) {
      if (invalid) return setNote({ text: `Not valid JSON: ${invalid}`, error: true });
      return resolve({ action: "edit", raw: text });
    }
    return resolve({ action: "forward" });
  };

  useKeys(
    (e) => {
      if (!current || e.shiftKey) return;
      const i = pending.findIndex((p) => p.id === current.id);
      if (e.key === "f") forward();
      else if (e.key === "d") resolve({ action: "drop" });
      else if (e.key === "e") editor.current?.focus();
      else if (e.key === "r" && canAnswer) setRespond(true);
      else if (e.key === "j" && i + 1 < pending.length) setSelected(pending[i + 1].id);
      else if (e.key === "k" && i > 0) setSelected(pending[i - 1].id);
      else return;
      e.preventDefault();
    },
    [current, pending, text, edited, invalid, canAnswer],
  );

  async function rules(call: () => Promise<{ data?: InterceptState; error?: unknown; response: Response }>) {
    try {
      apply(unwrap(await call()));
      setNote(null);
    } catch (e) {
      setNote({ text: (e as Error).message, error: true });
    }
  }
  const path = { session_id: sessionId };

  if (!state) {
    return (
      <div className="intercept-panel">
        <p className="muted" data-testid="intercept-none">
          {gone ??
            "No intercepting process records this session. Start one with `mcp-inspect wrap --intercept -- SERVER` (or proxy --intercept), recording into this UI's database."}
        </p>
      </div>
    );
  }
  const elapsed = (now - received) / 1000;
  return (
    <div className="intercept-panel" data-testid="intercept-panel">
      <div className="intercept-bar">
        <label className="check" title="Pause rules hold matching messages while on">
          <input
            type="checkbox"
            checked={state.breakpoints}
            data-testid="breakpoints-toggle"
            onChange={(e) =>
              rules(() => api.POST("/api/intercept/sessions/{session_id}/breakpoints", { params: { path }, body: { on: e.target.checked } }))
            }
          />
          Breakpoints
        </label>
        <span className="muted small">
          {state.kind} pid {state.pid} · seed {state.seed ?? "?"} · a paused message waits {state.pause_timeout_s}s, then{" "}
          {state.pause_default === "drop" ? "is dropped" : "goes on"}
        </span>
        <span className="grow" />
        <span className="muted small keys-help" data-testid="intercept-keys">
          Keys: <kbd>f</kbd> forward · <kbd>e</kbd> edit · <kbd>d</kbd> drop · <kbd>r</kbd> respond · <kbd>j</kbd>/<kbd>k</kbd> select
        </span>
      </div>
      {note && (
        <p className={note.error ? "error small" : "muted small"} data-testid="intercept-note">
          {note.text}
        </p>
      )}
      <div className="intercept-body">
        <section className="intercept-queue">
          <h3>
            Paused <span className="badge">{pending.length}</span>
          </h3>
          {pending.length === 0 && <p className="muted small">Nothing paused. Matching messages will wait here.</p>}
          <ul data-testid="paused-list">
            {pending.map((p: Paused) => {
              const left = Math.max(0, p.seconds_left - elapsed);
              return (
                <li key={p.id}>
                  <button
                    className={`paused ${p.id === current?.id ? "selected" : ""}`}
                    onClick={() => setSelected(p.id)}
                    data-testid={`paused-${p.id}`}
                  >
                    <span className="mono">{p.id}</span> <b>{ARROW[p.direction] ?? p.direction}</b>{" "}
                    <span className={`kind-${p.kind ?? "invalid"}`}>{p.kind}</span> {p.method} {p.name && <span className="mono">{p.name}</span>}
                    <span className="grow" />
                    <span className={`countdown ${left < 5 ? "warn" : ""}`} data-testid="countdown">
                      {left.toFixed(0)}s
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
        <section className="intercept-editor">
          {current ? (
            <>
              <h3>
                {current.id}: {ARROW[current.direction]} {current.kind} {current.method} {current.name ?? ""}{" "}
                <span className="muted small">paused by rule {current.rule ?? "?"}</span>
              </h3>
              <textarea
                ref={editor}
                className="wide-input code"
                rows={14}
                spellCheck={false}
                aria-label="paused message"
                data-testid="intercept-editor"
                value={text}
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                    e.preventDefault();
                    forward();
                  }
                }}
              />
              <p className={invalid ? "error small" : "muted small"} data-testid="intercept-validity">
                {invalid ? `Not valid JSON: ${invalid}` : edited ? "Edited: Forward sends your version (Ctrl+Enter)." : "Valid JSON, unchanged."}
              </p>
              <div className="actions">
                <button onClick={forward} disabled={edited && !!invalid} data-testid="intercept-forward" title="f (Ctrl+Enter in the editor)">
                  {edited ? "Forward edited" : "Forward"} <kbd>f</kbd>
                </button>
                <button onClick={() => resolve({ action: "drop" })} data-testid="intercept-drop" title="d">
                  Drop <kbd>d</kbd>
                </button>
                <button
                  onClick={() => setRespond(true)}
                  disabled={!canAnswer}
                  data-testid="intercept-respond-open"
                  title={canAnswer ? "r: answer it yourself; the peer never sees it" : "only a request can be answered"}
                >
                  Respond… <kbd>r</kbd>
                </button>
                {edited && (
                  <button className="ghost" onClick={() => setText(pretty(current.raw))}>
                    Undo edits
                  </button>
                )}
              </div>
              {respond && canAnswer && <RespondForm onSend={resolve} onCancel={() => setRespond(false)} />}
            </>
          ) : (
            <p className="muted small">Select a paused message to see and edit it.</p>
          )}
        </section>
      </div>
      <Rules
        rules={state.rules}
        onToggle={(r, on) =>
          rules(() =>
            api.PATCH("/api/intercept/sessions/{session_id}/rules/{name}", { params: { path: { ...path, name: r.name } }, body: { enabled: on } }),
          )
        }
        onRemove={(r) =>
          rules(() => api.DELETE("/api/intercept/sessions/{session_id}/rules/{name}", { params: { path: { ...path, name: r.name } } }))
        }
        onAdd={(rule) =>
          rules(() =>
            api.POST("/api/intercept/sessions/{session_id}/rules", {
              params: { path },
              body: rule as components["schemas"]["Rule"],
            }),
          )
        }
      />
    </div>
  );
}

function RespondForm({
  onSend,
  onCancel,
}: {
  onSend: (body: components["schemas"]["ResolveIn"]) => void;
  onCancel: () => void;
}) {
  const [mode, setMode] = useState<"error" | "result">("error");
  const [code, setCode] = useState("-32603");
  const [message, setMessage] = useState("Injected by the inspector");
  const [result, setResult] = useState('{\n  "content": [{ "type": "text", "text": "answered by the inspector" }]\n}');
  const resultError = mode === "result" ? jsonError(result) : null;
  const codeOk = /^-?\d+$/.test(code.trim());
  const send = () => {
    if (mode === "error") onSend({ action: "respond", error: { code: Number(code), message } });
    else onSend({ action: "respond", result: JSON.parse(result) });
  };
  return (
    <div className="card respond-form" data-testid="respond-form">
      <div className="radios">
        <label className="check">
          <input type="radio" checked={mode === "error"} onChange={() => setMode("error")} data-testid="respond-error" /> JSON-RPC error
        </label>
        <label className="check">
          <input type="radio" checked={mode === "result"} onChange={() => setMode("result")} data-testid="respond-result" /> Result
        </label>
      </div>
      {mode === "error" ? (
        <div className="respond-error">
          <input aria-label="error code" value={code} onChange={(e) => setCode(e.target.value)} data-testid="respond-code" />
          <input
            aria-label="error message"
            className="grow"
            value={message}
            onChange={(e) => setMessage(e.target.value)}
            data-testid="respond-message"
          />
        </div>
      ) : (
        <>
          <textarea className="wide-input code" rows={6} aria-label="result" value={result} onChange={(e) => setResult(e.target.value)} />
          {resultError && <p className="error small">Not valid JSON: {resultError}</p>}
        </>
      )}
      <div className="actions">
        <button onClick={send} disabled={mode === "error" ? !codeOk || !message : !!resultError} data-testid="respond-send">
          Send response
        </button>
        <button className="ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

const RULE_TEMPLATE = `{
  "name": "slow-tools",
  "match": { "method": ["tools/call"], "kind": ["request"] },
  "action": "delay",
  "ms": 500
}`;

function Rules({
  rules,
  onToggle,
  onRemove,
  onAdd,
}: {
  rules: RuleOut[];
  onToggle: (r: RuleOut, on: boolean) => void;
  onRemove: (r: RuleOut) => void;
  onAdd: (rule: unknown) => void;
}) {
  const [adding, setAdding] = useState(false);
  const [text, setText] = useState(RULE_TEMPLATE);
  const invalid = jsonError(text);
  return (
    <section className="intercept-rules">
      <h3>
        Rules <span className="badge">{rules.length}</span>{" "}
        <button className="ghost small" onClick={() => setAdding(!adding)} data-testid="rule-add-open">
          {adding ? "Close" : "Add a rule…"}
        </button>
      </h3>
      <table className="grid rules-table" data-testid="rules-table">
        <thead>
          <tr>
            <th>on</th>
            <th>name</th>
            <th>action</th>
            <th>match</th>
            <th className="num">hits</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.name} data-testid={`rule-${r.name}`}>
              <td>
                <input
                  type="checkbox"
                  checked={r.enabled}
                  aria-label={`rule ${r.name} on`}
                  onChange={(e) => onToggle(r, e.target.checked)}
                  data-testid={`rule-toggle-${r.name}`}
                />
              </td>
              <td className="mono">{r.name}</td>
              <td>{r.action}</td>
              <td className="mono small">{matchText(r.match ?? {})}</td>
              <td className="num" data-testid={`rule-hits-${r.name}`} title={`${r.matched} matched`}>
                {r.hits}
              </td>
              <td>
                <button className="ghost danger small" onClick={() => onRemove(r)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {adding && (
        <div className="card">
          <p className="muted small">
            A rule as JSON: name, match (direction, kind, method, name, where), action (pause, delay, drop, duplicate, reorder,
            corrupt, truncate, replace, disconnect; on HTTP also http_error, drip, close_stream) and its parameters.
          </p>
          <textarea className="wide-input code" rows={7} aria-label="new rule" value={text} onChange={(e) => setText(e.target.value)} />
          {invalid && <p className="error small">Not valid JSON: {invalid}</p>}
          <div className="actions">
            <button disabled={!!invalid} onClick={() => onAdd(JSON.parse(text))} data-testid="rule-add">
              Add rule
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
