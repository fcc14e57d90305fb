// The MCP Apps of a recorded session (the tools that declare a view, their recorded calls): the
// session page asks for them to show its Apps tab; the tab itself (AppsTab.tsx) loads when opened.
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type AppsOut = components["schemas"]["AppsOut"];

/** The session's Apps (null while loading); `error` when the API refused. */
export function useApps(sessionId: number, enabled = true): { apps: AppsOut | null; error: string | null } {
  const [apps, setApps] = useState<AppsOut | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    api
      .GET("/api/sessions/{session_id}/apps", { params: { path: { session_id: sessionId } } })
      .then(unwrap)
      .then((a) => live && setApps(a))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [sessionId, enabled]);
  return { apps, error };
}
