// One recorded tool call's App view, rendered as a host would: the view document (served once, with
// its own CSP, by /app-view/<capability>) in an iframe sandboxed to `allow-scripts` only (an opaque
// origin: it can read neither the UI's token nor its storage, and cannot call the API), talked to
// through the host side of the Apps bridge from @modelcontextprotocol/ext-apps (AppBridge over
// PostMessageTransport). After the view's ui/notifications/initialized the bridge sends the recorded
// tool input, then the recorded result. What the view asks of its host is listed in the side panel and
// answered from the recording where a matching exchange exists; otherwise the view gets an error.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { JsonBlock } from "../views/Info";

type ViewOut = components["schemas"]["AppViewOut"];
/** What a view needs from the API, recorded or live. */
export type Prepared = components["schemas"]["LiveViewOut"];
type AppAsk = components["schemas"]["AppAskOut"];
/** What the user allowed for one view: held-back sources and permissions, sent with the view's request. */
export type Grants = { grant_sources: string[]; grant_permissions: string[] };
export const NO_GRANTS: Grants = { grant_sources: [], grant_permissions: [] };

/** `grants` plus one held-back ask of the view. */
export function withGrant(grants: Grants, ask: AppAsk): Grants {
  return ask.key === "permissions"
    ? { ...grants, grant_permissions: [...grants.grant_permissions, ask.value] }
    : { ...grants, grant_sources: [...grants.grant_sources, ask.value] };
}

/** The host's answer to a request of the view: `outcome` says where it came from. */
export type HostAnswer = {
  answered: boolean;
  result?: unknown;
  error?: unknown;
  seq?: number | null;
  reason?: string | null;
  outcome?: string;
};

export type Ask = {
  n: number;
  from: "view" | "host";
  method: string;
  params: unknown;
  outcome: string;
  answered: boolean | null; // null: nothing to answer (a notification)
  seq?: number | null;
};

const HOST_INFO = { name: "mcp-inspector", version: "0.1.0" };

/** What the recording answers to a request of the view (tools/call, resources/read). */
async function fromRecording(sessionId: number, method: string, params: unknown) {
  return unwrap(
    await api.POST("/api/sessions/{session_id}/apps/answer", {
      params: { path: { session_id: sessionId } },
      body: { method, params: (params ?? {}) as Record<string, unknown> },
    }),
  );
}

export function AppView({ sessionId, seq }: { sessionId: number; seq: number }) {
  const [view, setView] = useState<ViewOut | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [grants, setGrants] = useState<Grants>(NO_GRANTS);
  useEffect(() => setGrants(NO_GRANTS), [sessionId, seq]); // a grant holds for this view only
  useEffect(() => {
    let live = true;
    api
      .POST("/api/sessions/{session_id}/apps/views", { params: { path: { session_id: sessionId } }, body: { seq, ...grants } })
      .then(unwrap)
      .then((v) => live && setView(v))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [sessionId, seq, grants]);
  if (error) return <p className="error" data-testid="app-error">{error}</p>;
  if (!view) return <p className="muted">Preparing the view of #{seq}…</p>;
  const answer = async (method: string, params: unknown): Promise<HostAnswer> => {
    const found = await fromRecording(sessionId, method, params);
    return { ...found, outcome: found.answered ? `answered from the recording (#${found.seq})` : undefined };
  };
  return (
    <AppFrame
      view={view}
      input={view.arguments}
      result={view.result}
      error={view.error}
      answer={answer}
      sessionId={sessionId}
      onGrant={(ask) => setGrants((g) => withGrant(g, ask))}
      title={
        <>
          <Link to={`/sessions/${sessionId}/apps`}>← Apps</Link>
          <span>
            <b className="mono">{String(view.tool.name)}</b> call{" "}
            <Link to={`/sessions/${sessionId}/messages/${view.seq}`}>#{view.seq}</Link> rendering{" "}
            <span className="mono">{view.resource_uri}</span>
          </span>
        </>
      }
    />
  );
}

/** A view in its sandboxed frame, the host side of the bridge, and the side panel. `answer` serves the
 * view's tools/call and resources/read (from the recording, or from the live server). */
export function AppFrame({
  view,
  input,
  result,
  error: callError,
  answer,
  sessionId,
  title,
  onGrant,
}: {
  view: Prepared;
  input: Record<string, unknown>;
  result: unknown;
  error: unknown;
  answer: (method: string, params: unknown) => Promise<HostAnswer>;
  sessionId?: number;
  title: React.ReactNode;
  /** Allow one held-back ask for this view (the view is prepared again with it). */
  onGrant?: (ask: AppAsk) => void;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [asks, setAsks] = useState<Ask[]>([]);
  const [height, setHeight] = useState(320);
  const answerRef = useRef(answer);
  answerRef.current = answer;
  useEffect(() => {
    const iframe = frame.current;
    if (!view || !iframe || !iframe.contentWindow) return;
    let n = 0;
    const log = (a: Omit<Ask, "n">) => setAsks((list) => [...list, { ...a, n: ++n }]);
    const bridge = new AppBridge(null, HOST_INFO, {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      sandbox: { csp: view.ui.csp as never, permissions: view.ui.permissions as never },
    });
    const unanswered = (method: string, params: unknown, why: string) => {
      log({ from: "view", method, params, outcome: `unanswered: ${why}`, answered: false });
      return new Error(`mcp-inspector shows a recording: ${why}`);
    };
    const answer = async (method: string, params: unknown) => {
      const found = await answerRef.current(method, params);
      if (!found.answered) throw unanswered(method, params, found.reason ?? "no matching exchange");
      log({ from: "view", method, params, outcome: found.outcome ?? "answered", answered: true, seq: found.seq });
      if (found.error) throw new Error(String((found.error as { message?: unknown }).message ?? "recorded error"));
      return found.result as never;
    };
    bridge.oncalltool = (params) => answer("tools/call", params);
    bridge.onreadresource = (params) => answer("resources/read", params);
    bridge.onmessage = async (params) => {
      unanswered("ui/message", params, "a recording has no conversation to add a message to");
      return { isError: true };
    };
    bridge.onopenlink = async (params) => {
      log({ from: "view", method: "ui/open-link", params, outcome: "shown here, not opened", answered: false });
      return { isError: true };
    };
    bridge.onupdatemodelcontext = async (params) => {
      log({ from: "view", method: "ui/update-model-context", params, outcome: "shown here (no model)", answered: null });
      return {};
    };
    bridge.onrequestdisplaymode = async (params) => {
      log({ from: "view", method: "ui/request-display-mode", params, outcome: "stays inline", answered: null });
      return { mode: "inline" };
    };
    bridge.onsizechange = (params) => {
      log({ from: "view", method: "ui/notifications/size-changed", params, outcome: "frame resized", answered: null });
      if (typeof params.height === "number") setHeight(Math.min(Math.max(params.height, 120), 4000));
    };
    bridge.onloggingmessage = (params) => log({ from: "view", method: "notifications/message", params, outcome: "logged", answered: null });
    bridge.onrequestteardown = (params) => log({ from: "view", method: "ui/notifications/request-teardown", params, outcome: "ignored", answered: null });
    bridge.oninitialized = () => {
      log({ from: "view", method: "ui/notifications/initialized", params: {}, outcome: "view ready", answered: null });
      const toolInput = { arguments: input };
      bridge.sendToolInput(toolInput).then(() => {
        log({ from: "host", method: "ui/notifications/tool-input", params: toolInput, outcome: "the call's input", answered: null });
        if (result) {
          return bridge.sendToolResult(result as never).then(() =>
            log({ from: "host", method: "ui/notifications/tool-result", params: result, outcome: "the call's result", answered: null }),
          );
        }
        const reason = callError ? `the call failed: ${JSON.stringify(callError)}` : "the call was never answered";
        return bridge.sendToolCancelled({ reason }).then(() =>
          log({ from: "host", method: "ui/notifications/tool-cancelled", params: { reason }, outcome: "no recorded result", answered: null }),
        );
      });
    };
    const win = iframe.contentWindow;
    let closed = false;
    bridge
      .connect(new PostMessageTransport(win, win))
      .then(() => {
        // The document loads only once the bridge listens: its first ui/initialize cannot be missed.
        if (!closed) iframe.src = view.view_url;
      })
      .catch((e: Error) => setError(`the Apps bridge failed: ${e.message}`));
    return () => {
      closed = true;
      void bridge.close();
    };
  }, [view, input, result, callError]);

  if (error) return <p className="error" data-testid="app-error">{error}</p>;
  return (
    <div className="app-view" data-testid="app-view">
      <div className="app-frame-box">
        <div className="toolbar" style={{ padding: 0 }}>
          {title}
        </div>
        <iframe
          ref={frame}
          className="app-frame"
          title={`App view ${view.resource_uri}`}
          data-testid="app-frame"
          sandbox={view.sandbox}
          {...(view.allow ? { allow: view.allow } : {})}
          referrerPolicy="no-referrer"
          style={{ height }}
        />
        <AppAsks asks={view.asks} onGrant={onGrant} />
        <details className="app-csp">
          <summary>Sandbox: sandbox="{view.sandbox}", allow="{view.allow}"; the view's Content-Security-Policy</summary>
          <code data-testid="app-csp">{view.csp}</code>
          {view.dropped_sources.length > 0 && (
            <p className="warn">Declared sources refused as malformed: {view.dropped_sources.join(", ")}</p>
          )}
        </details>
      </div>
      <aside className="app-side" data-testid="app-asks">
        <h3>Host ↔ view</h3>
        <p className="muted small">
          What the view asks of its host{sessionId !== undefined ? ", answered from the recording where it holds a matching exchange" : ", its calls sent to the live server"}.
        </p>
        <ol className="app-asks">
          {asks.map((a) => (
            <li key={a.n} className={`app-ask ${a.answered === false ? "unanswered" : ""}`} data-testid="app-ask" data-method={a.method} data-answered={String(a.answered)}>
              <div>
                <span className="muted">{a.from === "view" ? "view →" : "host →"}</span> <b className="mono">{a.method}</b>
              </div>
              <div className={a.answered === false ? "warn" : "muted"}>
                {a.seq && sessionId !== undefined ? <Link to={`/sessions/${sessionId}/messages/${a.seq}`}>{a.outcome}</Link> : a.outcome}
              </div>
              {a.params !== undefined && a.from === "view" && <JsonBlock value={a.params} />}
            </li>
          ))}
        </ol>
      </aside>
    </div>
  );
}

const ASK_LABEL: Record<AppAsk["key"], string> = {
  connectDomains: "connect to",
  resourceDomains: "load scripts, styles, images from",
  frameDomains: "frame",
  baseUriDomains: "use as base URI",
  permissions: "permission",
};

/** What the view's `_meta.ui` asks for: kept, held back until the user allows it here, or dropped. */
function AppAsks({ asks, onGrant }: { asks: AppAsk[]; onGrant?: (ask: AppAsk) => void }) {
  if (asks.length === 0) return null;
  const held = asks.filter((a) => a.status === "held");
  return (
    <details className="app-asks-policy" open={held.length > 0} data-testid="app-policy">
      <summary>
        The view asks for {asks.length} source{asks.length === 1 ? "" : "s"} or permission{asks.length === 1 ? "" : "s"}
        {held.length > 0 ? `: ${held.length} held back until you allow them for this view` : ""}
      </summary>
      <ul>
        {asks.map((a) => (
          <li key={`${a.key} ${a.value}`} data-testid="app-policy-ask" data-status={a.status}>
            <span className="muted">{ASK_LABEL[a.key]}</span> <b className="mono">{a.value}</b>{" "}
            <span className={a.status === "held" || a.status === "dropped" ? "warn" : "muted"}>
              {a.status}
              {a.reason ? ` (${a.reason})` : ""}
            </span>
            {a.status === "held" && onGrant && (
              <button className="ghost small" onClick={() => onGrant(a)}>
                Allow for this view
              </button>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}
