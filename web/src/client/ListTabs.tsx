// Resources (and templates) with read, and prompts with get: list, pick, send, show the answer.
import { useEffect, useState } from "react";
import { JsonBox, ResultView } from "./Content";
import { clientApi, rpcError, type Rpc } from "./api";

type Resource = { uri: string; name?: string; mimeType?: string };
type Template = { uriTemplate: string; name?: string };
type Prompt = { name: string; description?: string; arguments?: { name: string; required?: boolean }[] };

function useList<T>(clientId: string, method: string, key: string) {
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    clientApi.request(clientId, method).then(
      (r) => {
        setError(rpcError(r));
        setItems((((r.result as Record<string, unknown>) ?? {})[key] as T[]) ?? []);
      },
      (e: Error) => setError(e.message),
    );
  }, [clientId, method, key]);
  return { items, error };
}

export function ResourcesTab({ clientId }: { clientId: string }) {
  const resources = useList<Resource>(clientId, "resources/list", "resources");
  const templates = useList<Template>(clientId, "resources/templates/list", "resourceTemplates");
  const [uri, setUri] = useState("");
  const [answer, setAnswer] = useState<Rpc | null>(null);
  const read = async (u: string) => setAnswer(await clientApi.request(clientId, "resources/read", { uri: u }));
  return (
    <div className="split">
      <ul className="item-list" aria-label="resources">
        {resources.error && <li className="error">{resources.error}</li>}
        {resources.items.map((r) => (
          <li key={r.uri}>
            <button className="link" onClick={() => (setUri(r.uri), read(r.uri))}>
              {r.name ?? r.uri}
            </button>{" "}
            <span className="muted small">{r.uri}</span>
          </li>
        ))}
        <li className="muted small">templates</li>
        {templates.items.map((t) => (
          <li key={t.uriTemplate}>
            <button className="link" onClick={() => setUri(t.uriTemplate)}>
              {t.name ?? t.uriTemplate}
            </button>{" "}
            <span className="muted small">{t.uriTemplate}</span>
          </li>
        ))}
      </ul>
      <div className="pane">
        <form className="toolbar" onSubmit={(e) => (e.preventDefault(), read(uri))}>
          <input className="grow" aria-label="resource uri" value={uri} onChange={(e) => setUri(e.target.value)} />
          <button type="submit">Read</button>
        </form>
        {answer && (answer.error ? <ResultView response={answer} /> : <JsonBox value={answer.result} />)}
      </div>
    </div>
  );
}

export function PromptsTab({ clientId }: { clientId: string }) {
  const prompts = useList<Prompt>(clientId, "prompts/list", "prompts");
  const [selected, setSelected] = useState<Prompt | null>(null);
  const [args, setArgs] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<Rpc | null>(null);
  return (
    <div className="split">
      <ul className="item-list" aria-label="prompts">
        {prompts.error && <li className="error">{prompts.error}</li>}
        {prompts.items.map((p) => (
          <li key={p.name}>
            <button className="link" onClick={() => (setSelected(p), setArgs({}), setAnswer(null))}>
              {p.name}
            </button>
          </li>
        ))}
      </ul>
      <div className="pane">
        {selected && (
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              // Optional arguments left empty are not sent (the server's default applies).
              const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== ""));
              setAnswer(await clientApi.request(clientId, "prompts/get", { name: selected.name, arguments: given }));
            }}
          >
            <h3>{selected.name}</h3>
            {selected.description && <p className="muted">{selected.description}</p>}
            {(selected.arguments ?? []).map((a) => (
              <label key={a.name} className="stack">
                {a.name}
                {a.required ? " *" : ""}
                <input
                  required={a.required}
                  value={args[a.name] ?? ""}
                  onChange={(e) => setArgs({ ...args, [a.name]: e.target.value })}
                />
              </label>
            ))}
            <button type="submit">Get</button>
          </form>
        )}
        {answer && (answer.error ? <ResultView response={answer} /> : <JsonBox value={answer.result} />)}
      </div>
    </div>
  );
}
