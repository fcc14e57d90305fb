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

/** A session asked for before the app rendered (`primeSession`): the first `useSession(id)` starts from it. */
let primed: Session | null = null;
let priming = false; // until the first useSession has started (an answer after that is not kept)

/** The session a `/sessions/N...` page shows, asked for before the app renders: first/prime.ts's
 * request if it made one, else one now. Resolves once it is in (or failed: `useSession` asks again).
 * With it in, the page's first render holds the session's header above the timeline's first rows,
 * instead of a "Loading" line that the rows moved down from when the session came. */
export function primeSession(path: string): Promise<void> | null {
  const m = /^\/sessions\/(\d+)(?:\/|$)/.exec(path);
  if (!m) return null;
  const id = Number(m[1]);
  const w = window as { __earlySession?: { session: number; answer: Promise<Session | null> } };
  const early = w.__earlySession?.session === id ? w.__earlySession.answer : null;
  delete w.__earlySession;
  const answer =
    early ??
    api.GET("/api/sessions/{session_id}", { params: { path: { session_id: String(id) } } }).then(
      (r) => r.data ?? null,
      () => null,
    );
  priming = true;
  return answer.then((s) => {
    if (priming) primed = s && s.id === id ? s : null;
  });
}

function primedAs(id: number): Session | null {
  return primed?.id === id ? primed : null;
}

/** A session, kept current by the live feed. */
export function useSession(id: number): { session: Session | null; error: string | null; setSession: (s: Session) => void } {
  // (asked for again below all the same: it may have changed before the live feed listens)
  const [session, setSession] = useState<Session | null>(() => primedAs(id));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    primed = null; // (once: a later page of the same session starts from its own request)
    priming = false;
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
