// The inbox: the server's requests waiting for a person, each with a live timer and a form
// for its kind (sampling reply, roots list, elicitation form or URL consent, any JSON).
import Form from "@rjsf/core/lib/components/Form.js"; // not "@rjsf/core": its index imports Ajv (see formValidator.ts)
import type { RJSFSchema } from "@rjsf/utils";
import { formValidator as validator } from "./formValidator";
import { useEffect, useState } from "react";
import { JsonBox } from "./Content";
import { openableUrl } from "./openableUrl";
import { clientApi, type InboxItem, type Json } from "./api";
import { REJECTED, SamplingReply, SamplingRequest, type Reply } from "./Sampling";

function useNow(ms = 250): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function Inbox({ clientId, items }: { clientId: string; items: InboxItem[] }) {
  const now = useNow();
  return (
    <section className="inbox" aria-label="inbox">
      <h3>
        Inbox <span className="badge">{items.length}</span>
      </h3>
      {!items.length && <p className="muted small">No server request is waiting.</p>}
      {items.map((item) => (
        <InboxEntry key={item.key} clientId={clientId} item={item} now={now} />
      ))}
    </section>
  );
}

function InboxEntry({ clientId, item, now }: { clientId: string; item: InboxItem; now: number }) {
  const [error, setError] = useState<string | null>(null);
  const reply: Reply = async (answer) => {
    setError(null);
    try {
      await clientApi.answer(clientId, item.key, answer);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const params = (item.params ?? {}) as Json;
  const waited = Math.max(0, now / 1000 - item.received);
  return (
    <div className="card inbox-item" data-method={item.method}>
      <div className="dialog-head">
        <strong>{item.method}</strong>
        <span className="grow" />
        <span className="timer" title="waiting for you">
          {waited.toFixed(1)} s
        </span>
      </div>
      {item.problems && item.problems.length > 0 && (
        <ul className="error small problems" aria-label="spec problems">
          {item.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {item.method === "sampling/createMessage" ? (
        <>
          <SamplingRequest params={params} />
          <SamplingReply params={params} reply={reply} />
        </>
      ) : item.method === "roots/list" ? (
        <Roots reply={reply} />
      ) : item.method === "elicitation/create" ? (
        params.mode === "url" || typeof params.url === "string" ? (
          <ElicitUrl params={params} reply={reply} />
        ) : (
          <ElicitForm params={params} reply={reply} />
        )
      ) : (
        <Generic params={params} reply={reply} />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Roots({ reply }: { reply: Reply }) {
  const [lines, setLines] = useState("file:///tmp/project project");
  const roots = lines
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [uri, ...name] = l.split(/\s+/);
      return name.length ? { uri, name: name.join(" ") } : { uri };
    });
  return (
    <div className="stack">
      <label className="stack small">
        One root per line: <code>URI [name]</code>
        <textarea aria-label="roots" rows={3} value={lines} onChange={(e) => setLines(e.target.value)} />
      </label>
      <div className="actions">
        <button onClick={() => reply({ result: { roots } })}>Send {roots.length} roots</button>
        <button onClick={() => reply({ error: REJECTED })}>Reject</button>
      </div>
    </div>
  );
}

function ElicitForm({ params, reply }: { params: Json; reply: Reply }) {
  const [data, setData] = useState<Json>({});
  const schema = (params.requestedSchema ?? { type: "object" }) as RJSFSchema;
  return (
    <div className="stack elicit-form">
      <p>{String(params.message ?? "")}</p>
      <Form
        schema={schema}
        validator={validator}
        formData={data}
        onChange={(e) => setData((e.formData ?? {}) as Json)}
        onSubmit={(e) => reply({ result: { action: "accept", content: e.formData } })}
        showErrorList="top"
          noHtml5Validate
        uiSchema={{ "ui:submitButtonOptions": { submitText: "Accept" } }}
      />
      <div className="actions">
        <button onClick={() => reply({ result: { action: "decline" } })}>Decline</button>
        <button onClick={() => reply({ result: { action: "cancel" } })}>Cancel</button>
      </div>
    </div>
  );
}

/** URL mode: the full URL and its domain are shown; nothing is fetched until the person consents. */
function ElicitUrl({ params, reply }: { params: Json; reply: Reply }) {
  const [consent, setConsent] = useState(false);
  const url = String(params.url ?? "");
  let domain = "(not a valid URL)";
  try {
    domain = new URL(url).hostname;
  } catch {
    /* shown as invalid */
  }
  const suspicious = domain.split(".").some((label) => label.startsWith("xn--"));
  const openable = openableUrl(url);
  return (
    <div className="stack elicit-url">
      <p>{String(params.message ?? "")}</p>
      <p>
        Domain: <strong data-testid="elicit-domain">{domain}</strong>
      </p>
      <code className="raw-text" data-testid="elicit-url">
        {url}
      </code>
      {suspicious && <p className="error small">The domain uses Punycode: it may imitate another one.</p>}
      {!openable && (
        <p className="error small" data-testid="url-refused">
          Not an http(s) URL: it is shown, never opened. Decline or cancel.
        </p>
      )}
      <label className="check">
        <input type="checkbox" checked={consent} onChange={(e) => setConsent(e.target.checked)} /> I want to open
        this URL
      </label>
      <div className="actions">
        <button
          disabled={!consent || !openable}
          onClick={() => {
            if (!openableUrl(url)) return;
            window.open(url, "_blank", "noopener,noreferrer");
            reply({ result: { action: "accept" } });
          }}
        >
          Open and accept
        </button>
        <button onClick={() => reply({ result: { action: "decline" } })}>Decline</button>
        <button onClick={() => reply({ result: { action: "cancel" } })}>Cancel</button>
      </div>
    </div>
  );
}

function Generic({ params, reply }: { params: Json; reply: Reply }) {
  const [text, setText] = useState("{}");
  const [bad, setBad] = useState<string | null>(null);
  return (
    <div className="stack">
      <JsonBox value={params} />
      <textarea aria-label="result JSON" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      {bad && <p className="error">{bad}</p>}
      <div className="actions">
        <button
          onClick={() => {
            try {
              reply({ result: JSON.parse(text) });
            } catch (e) {
              setBad(`not valid JSON: ${(e as Error).message}`);
            }
          }}
        >
          Send result
        </button>
        <button onClick={() => reply({ error: REJECTED })}>Reject</button>
      </div>
    </div>
  );
}
