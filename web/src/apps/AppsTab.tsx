// MCP Apps of a recorded session: the tools that declare a view, the recorded ui:// resources and the
// recorded calls of view tools; opening a call renders its view (AppView) as a host would.
import { lazy, Suspense } from "react";
import { Link, useParams } from "react-router";
import { JsonBlock } from "../views/Info";
// The view host brings the MCP SDK and zod (most of the bundle): loaded when a view is opened.
const AppView = lazy(() => import("./AppView").then((m) => ({ default: m.AppView })));
import "./apps.css";
import { useApps, type AppsOut } from "./useApps";

/** In a tools/call's detail: a link to its App view, when the tool declares one (nothing otherwise). */
export function AppViewLink({ sessionId, seq }: { sessionId: number; seq: number | null | undefined }) {
  const { apps } = useApps(sessionId);
  if (!seq || !apps?.calls.some((c) => c.seq === seq)) return null;
  return (
    <Link className="button" to={`/sessions/${sessionId}/apps/${seq}`} data-testid="open-app-view">
      Open App view
    </Link>
  );
}

export function AppsTab({ sessionId, apps }: { sessionId: number; apps: AppsOut | null }) {
  const seq = Number(useParams().seq);
  if (!apps) return <p className="muted">Loading the session's Apps…</p>;
  if (Number.isInteger(seq))
    return (
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <AppView key={seq} sessionId={sessionId} seq={seq} />
      </Suspense>
    );
  return (
    <div className="apps" data-testid="apps">
      <section className="card">
        <h3>Recorded calls with a view</h3>
        {apps.calls.length === 0 ? (
          <p className="muted">No recorded tools/call of a tool that declares a view.</p>
        ) : (
          <ul className="apps-calls">
            {apps.calls.map((c) => (
              <li key={c.seq}>
                <Link to={`/sessions/${sessionId}/apps/${c.seq}`} data-testid={`app-call-${c.seq}`}>
                  #{c.seq} {c.tool}
                </Link>{" "}
                <span className="mono small">{JSON.stringify(c.arguments)}</span>{" "}
                <span className={`badge ${c.status === "result" ? "" : "warn"}`}>{c.status}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" data-testid="app-tools">
        <h3>Tools that declare a view</h3>
        <table className="grid">
          <thead>
            <tr>
              <th>Tool</th>
              <th>View (_meta.ui.resourceUri)</th>
              <th>Visibility</th>
            </tr>
          </thead>
          <tbody>
            {apps.tools.map((t) => (
              <tr key={t.name}>
                <td className="mono">{t.name}</td>
                <td className="mono">{t.resource_uri}</td>
                <td>{(t.visibility ?? ["model", "app"]).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card" data-testid="app-resources">
        <h3>ui:// resources</h3>
        <table className="grid">
          <thead>
            <tr>
              <th>URI</th>
              <th>MIME type</th>
              <th>Listed</th>
              <th>Read</th>
              <th>Sandbox (_meta.ui)</th>
            </tr>
          </thead>
          <tbody>
            {apps.resources.map((r) => (
              <tr key={r.uri}>
                <td className="mono">{r.uri}</td>
                <td className="mono">{r.mime_type ?? "?"}</td>
                <td>{r.list_seq ? <Link to={`/sessions/${sessionId}/messages/${r.list_seq}`}>#{r.list_seq}</Link> : "no"}</td>
                <td>
                  {r.read_seq ? <Link to={`/sessions/${sessionId}/messages/${r.read_seq}`}>#{r.read_seq}</Link> : "no"}
                  {!r.has_html && <span className="warn"> (no HTML recorded)</span>}
                </td>
                <td>{Object.keys(r.ui).length ? <JsonBlock value={r.ui} /> : <span className="muted">no network, no permissions</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
