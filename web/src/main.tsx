// Entry: the routes of the UI. Every view has its own URL (deep links).
import { lazy, StrictMode, Suspense, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import "react-json-view-lite/dist/index.css";
import "./styles.css";
import { Shell } from "./views/Shell";
import { SessionPage, sessionRoutes } from "./views/SessionPage";
import { primeTimeline } from "./views/Timeline";
import { primeSession } from "./views/hooks";
import { startAuth } from "./api/auth";

// Every view but the session page (whose timeline is what a link to a large session waits for) is
// loaded when first opened: the bundle that runs before the first rows show holds what they need.
const SessionsList = lazy(() => import("./views/SessionsList").then((m) => ({ default: m.SessionsList })));
const DiffView = lazy(() => import("./views/DiffView").then((m) => ({ default: m.DiffView })));
const VersionsView = lazy(() => import("./views/VersionsView").then((m) => ({ default: m.VersionsView })));
const StoragePage = lazy(() => import("./views/StoragePage").then((m) => ({ default: m.StoragePage })));
const HostRunsList = lazy(() => import("./hosts/HostsView").then((m) => ({ default: m.HostRunsList })));
const HostRunView = lazy(() => import("./hosts/HostsView").then((m) => ({ default: m.HostRunView })));
const SearchPage = lazy(() => import("./views/SearchPage").then((m) => ({ default: m.SearchPage })));

// The Connect workspace (mock client) brings a form library: loaded when first opened.
const ClientPage = lazy(() => import("./client/ClientPage").then((m) => ({ default: m.ClientPage })));
const ServePage = lazy(() => import("./serve/ServePage").then((m) => ({ default: m.ServePage })));
const ResendPage = lazy(() => import("./client/ResendPage").then((m) => ({ default: m.ResendPage })));

// The token leaves the address bar before the router reads it; a timeline's first rows are asked for
// at once, before the app renders (unless first/prime.ts asked already).
// The app's first render waits a moment for that page (first/prime.ts asked for it while the bundle
// loaded, so it is usually in already): the rows are then in the first render, not in a second one.
// The same for the session's header.
startAuth().then(() => {
  const asked = [primeTimeline(location.pathname, location.search), primeSession(location.pathname)].filter((p) => p !== null);
  const moment = new Promise<void>((resolve) => setTimeout(resolve, 80));
  (asked.length ? Promise.race([Promise.all(asked), moment]) : Promise.resolve()).then(render);
});

/** A view loaded on first use: "Loading…" meanwhile. */
function Later({ children }: { children: ReactNode }) {
  return <Suspense fallback={<p className="empty">Loading…</p>}>{children}</Suspense>;
}

function render() {
performance.mark("app-render"); // (the benchmark's breakdown of a timeline's first row: bench/scale_ui.py)
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <BrowserRouter>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<Later><SessionsList /></Later>} />
          <Route path="sessions/:sessionId" element={<SessionPage />}>
            {sessionRoutes}
          </Route>
          <Route
            path="client/:clientId?"
            element={
              <Suspense fallback={<p className="empty">Loading…</p>}>
                <ClientPage />
              </Suspense>
            }
          />
          <Route path="serve/:sessionId?" element={<Suspense fallback={<p className="empty">Loading…</p>}><ServePage /></Suspense>} />
          <Route path="client/resend/:sessionId/:seq" element={<Suspense><ResendPage /></Suspense>} />
          <Route path="diff" element={<Later><DiffView /></Later>} />
          <Route path="versions" element={<Later><VersionsView /></Later>} />
          <Route path="storage" element={<Later><StoragePage /></Later>} />
          <Route path="search" element={<Later><SearchPage /></Later>} />
          <Route path="hosts" element={<Later><HostRunsList /></Later>} />
          <Route path="hosts/:runId" element={<Later><HostRunView /></Later>} />
          <Route path="*" element={<p className="empty">No such page.</p>} />
        </Route>
      </Routes>
    </BrowserRouter>
  </StrictMode>,
);
}
