// Entry: the routes of the UI. Every view has its own URL (deep links).
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Route, Routes } from "react-router";
import "react-json-view-lite/dist/index.css";
import "./styles.css";
import { Shell } from "./views/Shell";
import { SessionsList } from "./views/SessionsList";
import { SessionPage } from "./views/SessionPage";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <BrowserRouter>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<SessionsList />} />
          <Route path="sessions/:sessionId/*" element={<SessionPage />} />
          <Route path="*" element={<p className="empty">No such page.</p>} />
        </Route>
      </Routes>
    </BrowserRouter>
  </StrictMode>,
);
