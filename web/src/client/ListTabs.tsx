// Resources (subscribe / unsubscribe with their updates, templates read through a form with
// completions) and prompts (get with arguments, completions as you type).
import { useCallback, useEffect, useState } from "react";
import { JsonBox, ResultView } from "./Content";
import { CompletingInput } from "./CompletingInput";
import { clientApi, rpcError, type Rpc } from "./api";
import { clock, workApi, type Activity } from "./work";

type Resource = { uri: string; name?: string; mimeType?: string };
type Template = { uriTemplate: string; name?: string };
type Prompt = { name: string; description?: string; arguments?: { name: string; required?: boolean }[] };
type Sub = { uri: string; subscribed?: boolean; updates?: number; last_update?: number | null };

function useList<T>(clientId: string, method: string, key: string) {
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      clientApi.request(clientId, method).then(
        (r) => {
          setError(rpcError(r));
          setItems((((r.result as Record<string, unknown>) ?? {})[key] as T[]) ?? []);
        },
        (e: Error) => setError(e.message),
      ),
    [clientId, method, key],
  );
  useEffect(() => {
    load();
  }, [load]);
  return { items, error, load };
}

/** The variable names of an RFC 6570 URI template (`{name}`, `{+path}`, `{?a,b}`). */
function templateVars(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(/\{[+#./;?&]?([^}]+)\}/g))
    for (const part of m[1].split(",")) names.push(part.replace(/[*]|:\d+$/g, ""));
  return names;
}

function expand(template: string, values: Record<string, string>): string {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op: string, names: string) => {
    const given = names.split(",").map((n) => n.replace(/[*]|:\d+$/g, ""));
    if (op === "?" || op === "&")
      return given.map((n, i) => `${i === 0 ? op : "&"}${n}=${encodeURIComponent(values[n] ?? "")}`).join("");
    const raw = op === "+" || op === "#";
    return (op === "#" ? "#" : "") + given.map((n) => (raw ? values[n] ?? "" : encodeURIComponent(values[n] ?? ""))).join(",");
  });
}

function SubscribeButton({ clientId, uri, sub, onError }: { clientId: string; uri: string; sub?: Sub; onError: (e: string) => void }) {
  const on = Boolean(sub?.subscribed);
  return (
    <button
      className="small-button"
      onClick={() =>
        (on ? workApi.unsubscribe(clientId, uri) : workApi.subscribe(clientId, uri)).then(
          (r) => r.error && onError(rpcError(r) ?? ""),
          (e: Error) => onError(e.message),
        )
      }
    >
      {on ? "Unsubscribe" : "Subscribe"}
    </button>
  );
}

export function ResourcesTab({ clientId, activity }: { clientId: string; activity: Activity }) {
  const resources = useList<Resource>(clientId, "resources/list", "resources");
  const templates = useList<Template>(clientId, "resources/templates/list", "resourceTemplates");
  const [uri, setUri] = useState("");
  const [template, setTemplate] = useState<Template | null>(null);
  const [answer, setAnswer] = useState<Rpc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const canSubscribe = activity.features.subscribe;
  const subs = new Map((activity.subscriptions as Sub[]).map((s) => [s.uri, s]));
  const read = async (u: string) => {
    setUri(u);
    setAnswer(await clientApi.request(clientId, "resources/read", { uri: u }));
  };
  return (
    <div className="split">
      <ul className="item-list" aria-label="resources">
        <li className="muted small">
          {resources.items.length} resources{" "}
          <button onClick={() => (resources.load(), templates.load())}>Refresh</button>
        </li>
        {resources.error && <li className="error">{resources.error}</li>}
        {resources.items.map((r) => (
          <li key={r.uri} data-uri={r.uri}>
            <button className="link" onClick={() => (setTemplate(null), read(r.uri))}>
              {r.name ?? r.uri}
            </button>{" "}
            <span className="muted small">{r.uri}</span>
            {subs.get(r.uri)?.subscribed ? <span className="badge">subscribed</span> : null}
          </li>
        ))}
        <li className="muted small">templates</li>
        {templates.items.map((t) => (
          <li key={t.uriTemplate}>
            <button className="link" onClick={() => (setTemplate(t), setAnswer(null))}>
              {t.name ?? t.uriTemplate}
            </button>{" "}
            <span className="muted small">{t.uriTemplate}</span>
          </li>
        ))}
      </ul>
      <div className="pane">
        {!canSubscribe && <p className="muted small">The server does not offer resources/subscribe.</p>}
        {canSubscribe && activity.features.listen && (
          <p className="muted small">Protocol 2026-07-28: subscriptions travel on one subscriptions/listen stream (see above).</p>
        )}
        {error && <p className="error">{error}</p>}
        {activity.subscriptions.length > 0 && (
          <section className="card" aria-label="subscriptions">
            <h3>Subscriptions</h3>
            <ul className="history">
              {(activity.subscriptions as Sub[]).map((s) => (
                <li key={s.uri} className="toolbar" data-testid="subscription" data-uri={s.uri}>
                  <code>{s.uri}</code>
                  <span className="badge">{s.subscribed ? "subscribed" : "not subscribed"}</span>
                  <span data-testid="updates">{s.updates ?? 0} updates</span>
                  {s.last_update ? <span className="muted small">last {clock(s.last_update)}</span> : null}
                  <button className="small-button" onClick={() => read(s.uri)}>
                    Read again
                  </button>
                  {canSubscribe && <SubscribeButton clientId={clientId} uri={s.uri} sub={s} onError={setError} />}
                </li>
              ))}
            </ul>
          </section>
        )}
        {template ? (
          <TemplateForm key={template.uriTemplate} clientId={clientId} template={template} activity={activity} onRead={read} />
        ) : null}
        <form className="toolbar" onSubmit={(e) => (e.preventDefault(), read(uri))}>
          <input className="grow" aria-label="resource uri" value={uri} onChange={(e) => setUri(e.target.value)} />
          <button type="submit">Read</button>
          {canSubscribe && uri && <SubscribeButton clientId={clientId} uri={uri} sub={subs.get(uri)} onError={setError} />}
        </form>
        {answer && (answer.error ? <ResultView response={answer} /> : <JsonBox value={answer.result} />)}
      </div>
    </div>
  );
}

function TemplateForm({ clientId, template, activity, onRead }: { clientId: string; template: Template; activity: Activity; onRead: (uri: string) => void }) {
  const vars = templateVars(template.uriTemplate);
  const [values, setValues] = useState<Record<string, string>>({});
  return (
    <form className="form card" aria-label="template" onSubmit={(e) => (e.preventDefault(), onRead(expand(template.uriTemplate, values)))}>
      <h3>{template.name ?? template.uriTemplate}</h3>
      <code className="small">{template.uriTemplate}</code>
      {vars.map((v) => (
        <label key={v} className="stack">
          {v}
          <CompletingInput
            clientId={clientId}
            completeRef={{ type: "ref/resource", uri: template.uriTemplate }}
            name={v}
            value={values[v] ?? ""}
            onChange={(x) => setValues((old) => ({ ...old, [v]: x }))}
            context={values}
            enabled={activity.features.completions}
          />
        </label>
      ))}
      <button type="submit">Read {expand(template.uriTemplate, values)}</button>
    </form>
  );
}

export function PromptsTab({ clientId, activity }: { clientId: string; activity: Activity }) {
  const prompts = useList<Prompt>(clientId, "prompts/list", "prompts");
  const [selected, setSelected] = useState<Prompt | null>(null);
  const [args, setArgs] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<Rpc | null>(null);
  return (
    <div className="split">
      <ul className="item-list" aria-label="prompts">
        <li className="muted small">
          {prompts.items.length} prompts <button onClick={prompts.load}>Refresh</button>
        </li>
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
            {!activity.features.completions && <p className="muted small">The server does not offer completions.</p>}
            {(selected.arguments ?? []).map((a) => (
              <label key={a.name} className="stack">
                {a.name}
                {a.required ? " *" : ""}
                <CompletingInput
                  clientId={clientId}
                  completeRef={{ type: "ref/prompt", name: selected.name }}
                  name={a.name}
                  value={args[a.name] ?? ""}
                  onChange={(v) => setArgs((old) => ({ ...old, [a.name]: v }))}
                  context={args}
                  enabled={activity.features.completions}
                  required={a.required}
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
