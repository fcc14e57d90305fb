// One session: its header (facts, rename, labels, delete) and its views as tabs with their own URLs.
import { PinToggle } from "./PinToggle";
import { lazy, Suspense, useCallback, useState, type ReactNode } from "react";
import { DownloadMenu } from "./Share";
import { Link, NavLink, Outlet, Route, useLocation, useNavigate, useOutletContext, useParams } from "react-router";
import { api, unwrap, type Session } from "../api/client";
import { dateTime, duration, shortTarget } from "../format";
import { useSession } from "./hooks";
import { groupingWords, idleWords } from "./Conversations";
import { Timeline } from "./Timeline";
import { diffUrl } from "./diffUrl";
import { useKeys } from "./hooks";
import { useIntercept } from "./interceptState";
import { useApps } from "../apps/useApps";
import { useSkills } from "../skills/useSkills";
import { PauseButton } from "./RecordingPause";

// The timeline is what a session's link opens (on a large session, its first rows are what the page
// waits for): the other tabs and dialogs are loaded when first opened.
const Lanes = lazy(() => import("./Lanes").then((m) => ({ default: m.Lanes })));
const Network = lazy(() => import("./Network").then((m) => ({ default: m.Network })));
const Info = lazy(() => import("./Info").then((m) => ({ default: m.Info })));
const DiffWithDialog = lazy(() => import("./DiffWithDialog").then((m) => ({ default: m.DiffWithDialog })));
const MockServerDialog = lazy(() => import("./MockServerDialog").then((m) => ({ default: m.MockServerDialog })));
const ReplayDialog = lazy(() => import("./ReplayDialog").then((m) => ({ default: m.ReplayDialog })));
const InterceptPanel = lazy(() => import("./InterceptPanel").then((m) => ({ default: m.InterceptPanel })));
const Waterfall = lazy(() => import("../waterfall/Waterfall").then((m) => ({ default: m.WaterfallView })));
const Overview = lazy(() => import("../overview/Overview").then((m) => ({ default: m.Overview })));
const AppsTab = lazy(() => import("../apps/AppsTab").then((m) => ({ default: m.AppsTab })));
const SkillsTab = lazy(() => import("../skills/SkillsTab").then((m) => ({ default: m.SkillsTab })));

/** What a session's tab gets from the page around it (the tabs are nested routes: `sessionRoutes`). */
interface SessionTab {
  id: number;
  session: Session | null;
  firstRows: () => void;
  apps: ReturnType<typeof useApps>["apps"];
  skills: ReturnType<typeof useSkills>["skills"];
  intercept: ReturnType<typeof useIntercept>;
}

function TimelineTab() {
  const { id, session, firstRows } = useOutletContext<SessionTab>();
  return <Timeline sessionId={id} session={session} onFirstRows={firstRows} />;
}

/** A tab's view, given the page's context and loaded when first opened. */
function Tab({ view }: { view: (tab: SessionTab) => ReactNode }) {
  return <Suspense>{view(useOutletContext<SessionTab>())}</Suspense>;
}

/** A session's tabs, as routes nested in `sessions/:sessionId` (main.tsx): matched with the app's
 * other routes in one pass. (A `<Routes>` of its own in the page matched them again, flattening
 * and ranking its routes anew, on every render of the page: three before a timeline's first rows.) */
export const sessionRoutes = (
  <>
    <Route index element={<TimelineTab />} />
    <Route path="messages/:seq" element={<TimelineTab />} />
    <Route path="overview" element={<Tab view={(t) => <Overview sessionId={t.id} />} />} />
    <Route path="waterfall" element={<Tab view={(t) => <Waterfall source={{ session: t.id }} />} />} />
    <Route path="lanes" element={<Tab view={(t) => t.session && <Lanes session={t.session} />} />} />
    <Route path="network" element={<Tab view={(t) => t.session && <Network session={t.session} />} />} />
    <Route path="network/:exchange" element={<Tab view={(t) => t.session && <Network session={t.session} />} />} />
    <Route path="info" element={<Tab view={(t) => t.session && <Info session={t.session} />} />} />
    <Route path="apps" element={<Tab view={(t) => <AppsTab sessionId={t.id} apps={t.apps} />} />} />
    <Route path="apps/:seq" element={<Tab view={(t) => <AppsTab sessionId={t.id} apps={t.apps} />} />} />
    <Route path="skills" element={<Tab view={(t) => <SkillsTab sessionId={t.id} skills={t.skills} />} />} />
    <Route path="intercept" element={<Tab view={(t) => <InterceptPanel sessionId={t.id} intercept={t.intercept} />} />} />
    <Route path="*" element={null} />
  </>
);

export function SessionPage() {
  const id = Number(useParams().sessionId);
  const { session, error, setSession } = useSession(id);
  // A live session recorded by a process with --intercept/--faults gets the Intercept tab.
  const intercept = useIntercept(id, session?.state === "recording");
  // On the timeline, the Apps tab's request waits for the first rows (it reads the session's calls).
  const rest = useLocation().pathname.replace(/^\/sessions\/[^/]+\/?/, "");
  const onTimeline = rest === "" || rest.startsWith("messages/");
  const [rowsShown, setRowsShown] = useState(false);
  const firstRows = useCallback(() => setRowsShown(true), []);
  const { apps } = useApps(id, rowsShown || !onTimeline);
  const { skills } = useSkills(id, rowsShown || !onTimeline);
  if (!Number.isInteger(id)) return <p className="error">Not a session id.</p>;
  if (error) return <p className="error" data-testid="error">{error}</p>;
  const http = session?.kind === "http-proxy";
  // The timeline starts loading its rows at once, beside the session's own request.
  return (
    <section className="session">
      {session ? (
        <Header session={session} onChange={setSession} />
      ) : (
        <div className="session-header">
          <p className="muted">Loading session {id}…</p>
        </div>
      )}
      <nav className="tabs">
        <NavLink to={`/sessions/${id}`} end>
          Timeline
        </NavLink>
        <NavLink to={`/sessions/${id}/overview`} data-testid="overview-tab">
          Overview
        </NavLink>
        <NavLink to={`/sessions/${id}/waterfall`} data-testid="waterfall-tab">
          Waterfall
        </NavLink>
        <NavLink to={`/sessions/${id}/lanes`}>Lanes</NavLink>
        {http && <NavLink to={`/sessions/${id}/network`}>Network</NavLink>}
        <NavLink to={`/sessions/${id}/info`}>Info</NavLink>
        {apps && apps.tools.length > 0 && (
          <NavLink to={`/sessions/${id}/apps`} data-testid="apps-tab">
            Apps
          </NavLink>
        )}
        {skills?.declared && (
          <NavLink to={`/sessions/${id}/skills`} data-testid="skills-tab">
            Skills
          </NavLink>
        )}
        {intercept.state && (
          <NavLink to={`/sessions/${id}/intercept`} data-testid="intercept-tab">
            Intercept
            {intercept.state.pending.length > 0 && (
              <span className="badge state-recording count" data-testid="intercept-paused-count">
                {intercept.state.pending.length} paused
              </span>
            )}
          </NavLink>
        )}
      </nav>
      <Outlet context={{ id, session, firstRows, apps, skills, intercept } satisfies SessionTab} />
    </section>
  );
}

function Header({ session: s, onChange }: { session: Session; onChange: (s: Session) => void }) {
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(s.name ?? "");
  const [labels, setLabels] = useState((s.labels ?? []).join(", "));
  const [dialog, setDialog] = useState<"replay" | "diff" | "mock" | null>(null);
  // Shift+R replay, Shift+D diff with, Shift+M mock server (plain letters belong to the timeline).
  useKeys(
    (e) => {
      if (dialog || !e.shiftKey) return;
      const which = ({ R: "replay", D: "diff", M: "mock" } as const)[e.key as "R" | "D" | "M"];
      if (!which) return;
      e.preventDefault();
      setDialog(which);
    },
    [dialog],
  );
  const save = async () => {
    const updated = unwrap(
      await api.PATCH("/api/sessions/{session_id}", {
        params: { path: { session_id: s.id } },
        body: { name, labels: labels.split(",").map((l) => l.trim()).filter(Boolean) },
      }),
    );
    onChange(updated);
    setEditing(false);
  };
  const remove = async () => {
    if (!confirm(`Delete session ${s.id} and its ${s.message_count} messages?`)) return;
    const r = await api.DELETE("/api/sessions/{session_id}", { params: { path: { session_id: s.id } } });
    if (r.response.ok) navigate("/");
    else alert((r.error as { detail?: string })?.detail ?? "could not delete");
  };
  const client = s.client_info as { name?: string; version?: string } | null;
  const server = s.server_info as { name?: string; version?: string } | null;
  const facts = s.facts && typeof s.facts === "object" ? (s.facts as Record<string, unknown>) : {};
  const intercept = facts.intercept && typeof facts.intercept === "object" ? (facts.intercept as { seed?: unknown; rules?: unknown; file?: unknown }) : null;
  const span = (s.ended_ns ?? Date.now() * 1e6) - s.started_ns;
  return (
    <div className="session-header">
      <div className="title-row">
        {editing ? (
          <form
            className="edit"
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            <input aria-label="Session name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
            <input aria-label="Labels" placeholder="labels, comma separated" value={labels} onChange={(e) => setLabels(e.target.value)} />
            <button type="submit">Save</button>
            <button type="button" className="ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <h1 data-testid="session-title">
              <span className="muted">#{s.id}</span> {s.name || shortTarget(s.target)}
            </h1>
            {(s.labels ?? []).map((l) => (
              <span key={l} className="label">
                {l}
              </span>
            ))}
            <span className={`badge state-${idleWords(s)?.badge ?? s.state}`} data-testid="session-state" title={idleWords(s)?.title}>
              {idleWords(s)?.badge ?? s.state}
            </span>
            <PauseButton session={s} onChange={onChange} />
            {s.parent_id !== null && (
              <span className="muted">
                from <Link to={`/sessions/${s.parent_id}`}>#{s.parent_id}</Link> ·{" "}
                <Link to={diffUrl(s.parent_id, s.id)} data-testid="diff-parent">
                  diff with it
                </Link>
              </span>
            )}
            <span className="grow" />
            <button onClick={() => setDialog("replay")} title="Replay against a server, then diff (Shift+R)" data-testid="replay-open">
              Replay…
            </button>
            <button className="ghost" onClick={() => setDialog("diff")} title="Diff with another session (Shift+D)" data-testid="diff-with-open-dialog">
              Diff with…
            </button>
            <button className="ghost" onClick={() => setDialog("mock")} title="Serve as mock server (Shift+M)" data-testid="mock-open">
              Serve as mock server
            </button>
            <DownloadMenu sessionId={s.id} />
            <PinToggle id={s.id} pinned={s.pinned} onChange={onChange} />
            <button className="ghost" onClick={() => setEditing(true)}>
              Rename / label
            </button>
            <button className="ghost danger" onClick={remove} disabled={s.state === "recording"}>
              Delete
            </button>
          </>
        )}
      </div>
      <Suspense>
        {dialog === "replay" && <ReplayDialog session={s} onClose={() => setDialog(null)} />}
        {dialog === "diff" && <DiffWithDialog session={s} onClose={() => setDialog(null)} />}
        {dialog === "mock" && <MockServerDialog session={s} onClose={() => setDialog(null)} />}
      </Suspense>
      <dl className="facts">
        <dt>kind</dt>
        <dd>{s.kind}</dd>
        <dt>target</dt>
        <dd className="mono" title={Array.isArray(s.target) ? s.target.join(" ") : String(s.target ?? "")}>
          {shortTarget(s.target)}
        </dd>
        <dt>protocol</dt>
        <dd>
          {s.protocol_version ?? "?"} {s.era ? <span className="muted">({s.era})</span> : null}
        </dd>
        <dt>client</dt>
        <dd>{client ? `${client.name ?? "?"} ${client.version ?? ""}` : "?"}</dd>
        <dt>server</dt>
        <dd>{server ? `${server.name ?? "?"} ${server.version ?? ""}` : "?"}</dd>
        <dt>started</dt>
        <dd>{dateTime(s.started_ns)}</dd>
        <dt>{s.ended_ns ? "duration" : "running for"}</dt>
        <dd>{duration(span)}</dd>
        <dt>messages</dt>
        <dd data-testid="session-count">{s.message_count}</dd>
        {groupingWords(facts.grouping) && (
          <>
            <dt>session</dt>
            <dd data-testid="session-grouping" title={`no Mcp-Session-Id: ${groupingWords(facts.grouping)}`}>
              {groupingWords(facts.grouping)}
            </dd>
          </>
        )}
        {intercept && (
          <>
            <dt>intercept</dt>
            <dd data-testid="session-intercept" title="repeat the same faults with --seed and the same rules file">
              seed <span className="mono">{String(intercept.seed ?? "?")}</span>
              {Array.isArray(intercept.rules) && intercept.rules.length > 0 ? ` · rules ${intercept.rules.join(", ")}` : " · no rules"}
              {typeof intercept.file === "string" ? <span className="muted"> ({intercept.file})</span> : null}
            </dd>
          </>
        )}
        {s.state !== "recording" && (
          <>
            <dt>exit</dt>
            <dd>
              {s.exit_status ?? "–"} <span className="muted">{s.end_reason ?? ""}</span>
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}
