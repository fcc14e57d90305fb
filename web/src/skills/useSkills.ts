// The Skills (SEP-2640) of a recorded session: the session page asks for them to show its Skills tab
// (only when the server declared io.modelcontextprotocol/skills); the tab (SkillsTab.tsx) loads when opened.
import { useEffect, useState } from "react";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type SkillsOut = components["schemas"]["SkillsOut"];

/** The session's Skills (null while loading); `error` when the API refused. */
export function useSkills(sessionId: number, enabled = true): { skills: SkillsOut | null; error: string | null } {
  const [skills, setSkills] = useState<SkillsOut | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    api
      .GET("/api/sessions/{session_id}/skills", { params: { path: { session_id: sessionId } } })
      .then(unwrap)
      .then((s) => live && setSkills(s))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [sessionId, enabled]);
  return { skills, error };
}
