// Entry: the routes of the UI. Every view has its own URL (deep links).
import { StrictMode } from "react";
import { lazy, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import "react-json-view-lite/dist/index.css";
import "./styles.css";
import { Shell } from "./views/Shell";
import { SessionsList } from "./views/SessionsList";
import { SessionPage } from "./views/SessionPage";
import { primeTimeline } from "./views/Timeline";
import { DiffView } from "./views/DiffView";
import { VersionsView } from "./views/VersionsView";
import { StoragePage } from "./views/StoragePage";
import { SearchPage } from "./views/SearchPage";
import { startAuth } from "./api/auth";

// The Connect workspace (mock client) brings a form library: loaded when first opened.
const ClientPage = lazy(() => import("./client/ClientPage").then((m) => ({ default: m.ClientPage })));
const ServePage = lazy(() => import("./serve/ServePage").then((m) => ({ default: m.ServePage })));
const ResendPage = lazy(() => import("./client/ResendPage").then((m) => ({ default: m.ResendPage })));

// The token leaves the address bar before the router reads it; a timeline's first rows are asked for
// at once, before the app renders.
startAuth().then(() => {
  primeTimeline(location.pathname, location.search);
  render();
});

function render() {
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <BrowserRouter>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<SessionsList />} />
          <Route path="sessions/:sessionId/*" element={<SessionPage />} />
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
          <Route path="diff" element={<DiffView />} />
          <Route path="versions" element={<VersionsView />} />
          <Route path="storage" element={<StoragePage />} />
          <Route path="search" element={<SearchPage />} />
          <Route path="*" element={<p className="empty">No such page.</p>} />
        </Route>
      </Routes>
    </BrowserRouter>
  </StrictMode>,
);
}
