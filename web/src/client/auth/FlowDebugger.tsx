// The guided authorization debugger on the Connect page: one revision's OAuth flow against a server, run one
// step at a time ("Next step") or all at once. Each step shows its HTTP request and response (secrets
// redacted by the server, as recorded), what the spec expects there with the section's link, and the
// expectation that failed. The flow is recorded as a session of its own (its legs labelled with their step).
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { AUTH_REVISIONS, authApi, cleanOptions, type AuthRevision, type Flow, type FlowStep, type OAuthOptions } from "./api";
import { OAuthFields } from "./OAuthFields";
import "./auth.css";

/** The steps each revision's flow goes through (a stored client skips registration). */
function plan(revision: AuthRevision): string[] {
  const discovery = revision === "2025-03-26" ? ["as-metadata"] : ["resource-metadata", "as-metadata"];
  return ["unauthorized", ...discovery, "registration", "pkce", "authorization-request", "token-request", "authenticated-request"];
}

const TITLES: Record<string, string> = {
  unauthorized: "Request without a token",
  "resource-metadata": "Protected resource metadata",
  "as-metadata": "Authorization server metadata",
  "default-endpoints": "Default endpoints",
  registration: "Client registration",
  pkce: "PKCE",
  "authorization-request": "Authorization request",
  "authorization-response": "Authorization response",
  "token-request": "Token request",
  "authenticated-request": "Authenticated MCP request",
};

function Headers({ headers }: { headers: unknown }) {
  const list = Array.isArray(headers) ? (headers as [string, string][]) : [];
  return (
    <>
      {list.map(([k, v], i) => (
        <div key={i} className="oauth-header">
          <span className="muted">{k}:</span> {v}
        </div>
      ))}
    </>
  );
}

function Body({ text }: { text: unknown }) {
  if (typeof text !== "string" || !text) return null;
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    /* not JSON: as is */
  }
  return <pre className="oauth-body">{shown}</pre>;
}

function StepCard({ step, n }: { step: FlowStep; n: number }) {
  const req = step.request as { method?: string; url?: string; headers?: unknown; body?: string } | null;
  const res = step.response as { status?: number; headers?: unknown; body?: string } | null;
  return (
    <li className={`oauth-step oauth-${step.status}`} data-step={step.name} data-status={step.status}>
      <div className="oauth-step-head">
        <strong>
          {n}. {TITLES[step.name] ?? step.name}
        </strong>{" "}
        <code>{step.name}</code> <span className="badge">{step.status}</span>
        {step.spec && (
          <a className="oauth-spec" href={step.spec} target="_blank" rel="noopener noreferrer">
            spec
          </a>
        )}
      </div>
      {step.expects && <p className="oauth-expects">Expects: {step.expects}</p>}
      {step.note && <p className="muted oauth-note">{step.note}</p>}
      {req && (
        <details open={step.status !== "ok"} className="oauth-leg">
          <summary>
            {req.method} {req.url}
          </summary>
          <Headers headers={req.headers} />
          <Body text={req.body} />
        </details>
      )}
      {res && (
        <details open={step.status !== "ok"} className="oauth-leg">
          <summary>→ {res.status}</summary>
          <Headers headers={res.headers} />
          <Body text={res.body} />
        </details>
      )}
      {step.problems.map((p, i) => (
        <p key={i} className="oauth-problem" data-expectation={String(p.expectation)}>
          Expectation not met: <code>{String(p.expectation)}</code> — {String(p.message)}
        </p>
      ))}
      {step.failure && (
        <div className="oauth-failure error" role="alert" data-expectation={String(step.failure.expectation)}>
          Failed expectation: <code>{String(step.failure.expectation)}</code> — {String(step.failure.message)}{" "}
          {step.failure.spec ? (
            <a href={String(step.failure.spec)} target="_blank" rel="noopener noreferrer">
              spec section
            </a>
          ) : null}
        </div>
      )}
    </li>
  );
}

export function FlowDebugger({ initialUrl = "" }: { initialUrl?: string }) {
  const [url, setUrl] = useState(initialUrl);
  const [revision, setRevision] = useState<AuthRevision>("2025-11-25");
  const [options, setOptions] = useState<OAuthOptions>({});
  const [flow, setFlow] = useState<Flow | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // While the authorization page is open in another tab: follow the flow until the callback came.
  const waiting = flow?.state === "waiting-browser" || flow?.state === "running";
  useEffect(() => {
    if (!flow || !waiting) return;
    const timer = setInterval(() => authApi.get(flow.id).then(setFlow, () => undefined), 400);
    return () => clearInterval(timer);
  }, [flow?.id, waiting]); // eslint-disable-line react-hooks/exhaustive-deps

  async function act(work: () => Promise<Flow>) {
    setError(null);
    setBusy(true);
    try {
      setFlow(await work());
    } catch (err) {
      setError(String((err as Error).message));
    } finally {
      setBusy(false);
    }
  }

  const start = () => act(() => authApi.start(url.trim(), revision, cleanOptions(options)));
  const ended = flow?.state === "done" || flow?.state === "failed";
  const done = new Set(flow?.steps.map((s) => s.name) ?? []);
  const upcoming = flow && !ended ? plan(flow.revision as AuthRevision).filter((s) => !done.has(s)) : [];

  return (
    <section className="card oauth-debugger" aria-label="authorization debugger">
      <h2>Debug an authorization flow</h2>
      <p className="muted">
        The OAuth flow of one revision, step by step, against an HTTP server; every leg is recorded. The tokens go to
        the user-only auth file, where Connect finds them.
      </p>
      <div className="oauth-start">
        <input
          className="wide-input"
          aria-label="server url to authorize"
          placeholder="http://127.0.0.1:8000/mcp"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <label>
          Revision{" "}
          <select aria-label="authorization revision" value={revision} onChange={(e) => setRevision(e.target.value as AuthRevision)}>
            {AUTH_REVISIONS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      </div>
      <OAuthFields value={options} onChange={setOptions} />
      <div className="dialog-actions">
        <button onClick={start} disabled={busy || !url.trim()}>
          {flow ? "Start again" : "Start"}
        </button>
        <button onClick={() => flow && act(() => authApi.next(flow.id))} disabled={!flow || busy || ended || waiting}>
          Next step
        </button>
        <button onClick={() => flow && act(() => authApi.run(flow.id))} disabled={!flow || busy || ended || waiting}>
          Run all
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {flow && (
        <>
          <p className="oauth-state" data-state={flow.state}>
            <span className="badge">{flow.revision}</span> {flow.state === "paused" ? "waiting for Next step" : flow.state}
            {flow.state === "done" && " — authorized; Connect to this URL uses the token"}{" "}
            <Link to={`/sessions/${flow.session_id}`}>Recorded session</Link>
          </p>
          {flow.state === "waiting-browser" && flow.authorization_url && (
            <p className="oauth-pending" role="status">
              <a href={flow.authorization_url} target="_blank" rel="noopener noreferrer">
                Open the authorization page
              </a>{" "}
              <span className="muted">(a new tab; it comes back to {flow.redirect_uri})</span>
            </p>
          )}
          <ol className="oauth-steps">
            {flow.steps.map((s, i) => (
              <StepCard key={i} step={s} n={i + 1} />
            ))}
            {upcoming.map((name, i) => (
              <li key={`next-${name}`} className="oauth-step oauth-upcoming" data-step={name} data-status="upcoming">
                <strong>
                  {flow.steps.length + i + 1}. {TITLES[name] ?? name}
                </strong>{" "}
                <span className="muted">next</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
