// Live data of the mock server workspace: the served clients (reloaded when the live feed says a
// mock-server session appeared, changed handshake state or ended) and a served session's new messages.
import { useCallback, useEffect, useRef, useState } from "react";
import type { components } from "../api/schema";
import { live } from "../api/live";
import { serveApi, type ServedClient } from "./api";

export type Row = components["schemas"]["PageRow"];
const TRAFFIC_ROWS = 100;

export function useServed() {
  const [clients, setClients] = useState<ServedClient[] | null>(null);
  const [processes, setProcesses] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const known = useRef<ServedClient[]>([]);
  const pending = useRef<number | null>(null);
  const load = useCallback(
    () =>
      serveApi.list().then(
        (l) => {
          known.current = l.clients;
          setClients(l.clients);
          setProcesses(l.processes);
          setError(null);
        },
        (e: Error) => setError(e.message),
      ),
    [],
  );
  useEffect(() => {
    const soon = () => {
      if (pending.current === null) {
        pending.current = window.setTimeout(() => {
          pending.current = null;
          load();
        }, 100);
      }
    };
    const stop = live.listen(
      (event) => {
        if (!("session" in event)) return;
        const s = event.session;
        if (s.kind !== "mock-server") return;
        const mine = known.current.find((c) => c.sessionId === s.id);
        // A new connection, a handshake that just completed, or a disconnection.
        if (!mine || event.type !== "session_updated" || !mine.protocolVersion) soon();
      },
      () => load(),
    );
    load();
    // Slow: serve processes that start or stop without any session changing.
    const timer = window.setInterval(load, 15000);
    return () => {
      stop();
      window.clearInterval(timer);
      if (pending.current !== null) window.clearTimeout(pending.current);
    };
  }, [load]);
  return { clients, processes, error, load };
}

/** The messages of a served session recorded since the workspace opened, newest first. */
export function useTraffic(sessionId: number): Row[] {
  const [rows, setRows] = useState<Row[]>([]);
  useEffect(() => {
    const stop = live.listen((event) => {
      if (event.type !== "messages" || event.session_id !== sessionId) return;
      setRows((old) => {
        const seen = new Set(old.map((r) => r.seq));
        const fresh = event.items.filter((r) => !seen.has(r.seq)).reverse();
        return [...fresh, ...old].slice(0, TRAFFIC_ROWS);
      });
    });
    const unsubscribe = live.subscribe(sessionId);
    return () => {
      unsubscribe();
      stop();
    };
  }, [sessionId]);
  return rows;
}
