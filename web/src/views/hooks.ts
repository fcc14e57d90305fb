// Small shared hooks: keyboard shortcuts, a live session document.
import { useEffect, useLayoutEffect, useState } from "react";
import { api, unwrap, type Session } from "../api/client";
import { live } from "../api/live";

/** Call `handler` for keys typed outside text fields. */
export function useKeys(handler: (e: KeyboardEvent) => void, deps: unknown[]) {
  // A layout effect: the keys work as soon as the view is on screen.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (t?.closest("dialog")) return; // a modal dialog has the keyboard
      // Enter on a button or link activates it, not the view's shortcut.
      if (e.key === "Enter" && t?.closest("button, a, summary")) return;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) {
        if (e.key === "Escape") t.blur();
        return;
      }
      handler(e);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}

/** A session, kept current by the live feed. */
export function useSession(id: number): { session: Session | null; error: string | null; setSession: (s: Session) => void } {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    const load = () =>
      api
        .GET("/api/sessions/{session_id}", { params: { path: { session_id: String(id) } } })
        .then(unwrap)
        .then(
          (s) => alive && setSession(s),
          (e: Error) => alive && setError(e.message),
        );
    load();
    const stop = live.listen((ev) => {
      if ((ev.type === "session_updated" || ev.type === "session_ended") && ev.session.id === id) setSession(ev.session);
      if (ev.type === "session_deleted" && ev.session_id === id) setError(`session ${id} was deleted`);
    }, (reconnected) => reconnected && load());
    return () => {
      alive = false;
      stop();
    };
  }, [id]);
  return { session, error, setSession };
}

/** A background job (replay, versions run) and its state, followed by long polling while it runs:
 * `next(job)` asks the server for the job's next state (it answers when the job changes). */
export function useJob<J extends { state: string }>(next: (job: J) => Promise<J>) {
  const [job, setJob] = useState<J | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!job || job.state !== "running") return;
    let alive = true;
    next(job).then(
      (later) => alive && setJob(later),
      (e: Error) => alive && setError(e.message),
    );
    return () => {
      alive = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [job]);
  return { job, setJob, error, setError };
}
