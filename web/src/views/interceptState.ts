// The intercept state of a live session's recording process, long-polled: what SessionPage needs
// for its Intercept tab and count before the panel itself (views/InterceptPanel.tsx, loaded when
// first opened) is needed.
import { useEffect, useState } from "react";
import { ApiError, api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type InterceptState = components["schemas"]["InterceptState"];

/** The intercept state of the process recording `sessionId`, long-polled while the session records.
 * `null`: no intercepting process records it (or not yet: checked again every few seconds). */
export function useIntercept(sessionId: number, recording: boolean) {
  const [state, setState] = useState<InterceptState | null>(null);
  const [received, setReceived] = useState(0);
  const [gone, setGone] = useState<string | null>(null);
  useEffect(() => {
    if (!recording) {
      setState(null);
      return;
    }
    let alive = true;
    let timer: number | undefined;
    let version: number | null = null;
    const poll = async () => {
      try {
        const query = version === null ? {} : { version, wait: 20 };
        const next = unwrap(
          await api.GET("/api/intercept/sessions/{session_id}", {
            params: { path: { session_id: sessionId }, query },
          }),
        );
        if (!alive) return;
        version = next.version;
        setState(next);
        setReceived(performance.now());
        setGone(null);
        timer = window.setTimeout(poll, 0);
      } catch (e) {
        if (!alive) return;
        const status = e instanceof ApiError ? e.status : 0;
        if (version !== null && (status === 404 || status === 410)) setGone((e as Error).message);
        version = null;
        setState(null);
        timer = window.setTimeout(poll, status === 404 ? 2000 : 1000);
      }
    };
    poll();
    return () => {
      alive = false;
      window.clearTimeout(timer);
    };
  }, [sessionId, recording]);
  return { state, received, gone, setState, setReceived };
}
