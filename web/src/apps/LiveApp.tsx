// The App view of a tool called from the mock client (Client page): its ui:// resource read now through
// the client, the call's input and result sent by the same host bridge as for recordings, and the
// view's own tools/call and resources/read sent to the live server through the mock client.
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import { clientApi, type Json, type Rpc } from "../client/api";
import { AppFrame, NO_GRANTS, withGrant, type Grants, type HostAnswer, type Prepared } from "./AppView";
import "./apps.css";

export function LiveApp({
  clientId,
  tool,
  uri,
  input,
  response,
}: {
  clientId: string;
  tool: string;
  uri: string;
  input: Record<string, unknown>;
  response: Rpc;
}) {
  const [view, setView] = useState<Prepared | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [grants, setGrants] = useState<Grants>(NO_GRANTS);
  useEffect(() => setGrants(NO_GRANTS), [clientId, uri]); // a grant holds for this view only
  useEffect(() => {
    let live = true;
    api
      .POST("/api/clients/{client_id}/apps/views", { params: { path: { client_id: clientId } }, body: { uri, ...grants } })
      .then(unwrap)
      .then((v) => live && setView(v))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [clientId, uri, grants]);
  if (error) return <p className="error" data-testid="app-error">{error}</p>;
  if (!view) return <p className="muted">Reading the view {uri}…</p>;
  const answer = async (method: string, params: unknown): Promise<HostAnswer> => {
    if (method !== "tools/call" && method !== "resources/read") {
      return { answered: false, reason: `${method} is not sent to the server` };
    }
    const r = await clientApi.request(clientId, method, params as Json);
    return { answered: true, result: r.result, error: r.error, outcome: "answered by the live server" };
  };
  return (
    <div className="live-app" data-testid="live-app">
      <AppFrame
        view={view}
        input={input}
        result={response.result}
        error={response.error}
        answer={answer}
        onGrant={(ask) => setGrants((g) => withGrant(g, ask))}
        title={
          <span>
            App view of <b className="mono">{tool}</b>: <span className="mono">{uri}</span>
          </span>
        }
      />
    </div>
  );
}
