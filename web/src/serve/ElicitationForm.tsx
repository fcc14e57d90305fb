// Elicitation composer: build a requested schema from the allowed field types (or paste one), or a
// URL-mode request with its elicitation id, then send notifications/elicitation/complete.
import { useMemo, useState } from "react";
import type { Json } from "./api";
import { parseJson } from "./api";

const TYPES = ["string", "email", "uri", "date", "number", "integer", "boolean", "enum", "multi-select"] as const;
type FieldType = (typeof TYPES)[number];
type Field = { name: string; type: FieldType; required: boolean; options: string };

function fieldSchema(f: Field): Json {
  switch (f.type) {
    case "email":
    case "uri":
    case "date":
      return { type: "string", title: f.name, format: f.type };
    case "enum":
      return { type: "string", title: f.name, enum: f.options.split(",").map((s) => s.trim()).filter(Boolean) };
    case "multi-select":
      return {
        type: "array",
        title: f.name,
        items: { type: "string", enum: f.options.split(",").map((s) => s.trim()).filter(Boolean) },
      };
    default:
      return { type: f.type, title: f.name };
  }
}

export function buildSchema(fields: Field[]): Json {
  const named = fields.filter((f) => f.name.trim());
  return {
    type: "object",
    properties: Object.fromEntries(named.map((f) => [f.name.trim(), fieldSchema(f)])),
    required: named.filter((f) => f.required).map((f) => f.name.trim()),
  };
}

export function ElicitationForm({
  send,
  notify,
}: {
  send: (method: string, params: Json) => void;
  notify: (method: string, params: Json) => void;
}) {
  const [mode, setMode] = useState<"form" | "url">("form");
  const [message, setMessage] = useState("Please fill in this form.");
  const [fields, setFields] = useState<Field[]>([{ name: "name", type: "string", required: true, options: "" }]);
  const [pasted, setPasted] = useState<string | null>(null);
  const [url, setUrl] = useState("https://example.com/authorize");
  const [elicitationId, setElicitationId] = useState(() => `elicit-${Math.random().toString(36).slice(2, 10)}`);
  const [error, setError] = useState<string | null>(null);
  const built = useMemo(() => JSON.stringify(buildSchema(fields), null, 2), [fields]);

  const update = (i: number, patch: Partial<Field>) =>
    setFields(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const submit = () => {
    setError(null);
    try {
      if (mode === "url") send("elicitation/create", { mode: "url", message, url, elicitationId });
      else
        send("elicitation/create", {
          mode: "form",
          message,
          requestedSchema: parseJson(pasted ?? built, "requested schema") as Json,
        });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div className="serve-form" aria-label="Elicitation">
      <label>
        Mode{" "}
        <select aria-label="Elicitation mode" value={mode} onChange={(e) => setMode(e.target.value as "form" | "url")}>
          <option value="form">form</option>
          <option value="url">url</option>
        </select>
      </label>
      <label>
        Message <input aria-label="Elicitation message" value={message} onChange={(e) => setMessage(e.target.value)} />
      </label>
      {mode === "form" ? (
        <>
          <table className="field-table">
            <tbody>
              {fields.map((f, i) => (
                <tr key={i}>
                  <td>
                    <input aria-label={`Field ${i + 1} name`} value={f.name} onChange={(e) => update(i, { name: e.target.value })} />
                  </td>
                  <td>
                    <select
                      aria-label={`Field ${i + 1} type`}
                      value={f.type}
                      onChange={(e) => update(i, { type: e.target.value as FieldType })}
                    >
                      {TYPES.map((t) => (
                        <option key={t}>{t}</option>
                      ))}
                    </select>
                  </td>
                  <td>
                    {(f.type === "enum" || f.type === "multi-select") && (
                      <input
                        aria-label={`Field ${i + 1} options`}
                        placeholder="a, b, c"
                        value={f.options}
                        onChange={(e) => update(i, { options: e.target.value })}
                      />
                    )}
                  </td>
                  <td>
                    <label>
                      <input type="checkbox" checked={f.required} onChange={(e) => update(i, { required: e.target.checked })} />{" "}
                      required
                    </label>
                  </td>
                  <td>
                    <button onClick={() => setFields(fields.filter((_, j) => j !== i))}>Remove</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div>
            <button onClick={() => setFields([...fields, { name: "", type: "string", required: false, options: "" }])}>
              Add field
            </button>{" "}
            <label>
              <input type="checkbox" checked={pasted !== null} onChange={(e) => setPasted(e.target.checked ? built : null)} />{" "}
              edit the schema by hand
            </label>
          </div>
          <textarea
            aria-label="Requested schema"
            className="code"
            rows={8}
            value={pasted ?? built}
            readOnly={pasted === null}
            onChange={(e) => setPasted(e.target.value)}
          />
        </>
      ) : (
        <>
          <label>
            URL <input aria-label="Elicitation URL" value={url} onChange={(e) => setUrl(e.target.value)} />
          </label>
          <label>
            Elicitation id{" "}
            <input aria-label="Elicitation id" value={elicitationId} onChange={(e) => setElicitationId(e.target.value)} />
          </label>
          <button onClick={() => notify("notifications/elicitation/complete", { elicitationId })}>
            Send notifications/elicitation/complete
          </button>
        </>
      )}
      {error && <p className="error">{error}</p>}
      <button className="primary" onClick={submit}>
        Send elicitation/create
      </button>
    </div>
  );
}
