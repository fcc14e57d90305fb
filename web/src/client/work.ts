// Working with the server (/api/clients/{id}/activity, cancel, subscriptions, listen, complete, log level,
// ping, tasks) and the hook that keeps a client's activity fresh from `client_activity` live events.
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { api, unwrap } from "../api/client";
import { live } from "../api/live";
import type { components } from "../api/schema";
import type { Json, Rpc } from "./api";

export type Activity = components["schemas"]["ActivityOut"];
export type InFlight = components["schemas"]["InFlightOut"];
export type Features = components["schemas"]["FeaturesOut"];
export type CompleteRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
export type ListenIn = components["schemas"]["ListenIn"];
export type Level = components["schemas"]["LogLevelIn"]["level"];
export const LEVELS: Level[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

const path = (id: string) => ({ params: { path: { client_id: id } } });

export const workApi = {
  activity: (id: string) => api.GET("/api/clients/{client_id}/activity", path(id)).then(unwrap),
  cancel: (id: string, key: string, reason: string) =>
    api
      .POST("/api/clients/{client_id}/requests/{key}/cancel", {
        params: { path: { client_id: id, key } },
        body: { reason: reason || null },
      })
      .then(unwrap),
  subscribe: (id: string, uri: string) =>
    api.POST("/api/clients/{client_id}/subscriptions", { ...path(id), body: { uri } }).then(unwrap) as Promise<Rpc>,
  unsubscribe: (id: string, uri: string) =>
    api
      .DELETE("/api/clients/{client_id}/subscriptions", { params: { path: { client_id: id }, query: { uri } } })
      .then(unwrap) as Promise<Rpc>,
  listen: (id: string, kinds: ListenIn) =>
    api.PUT("/api/clients/{client_id}/listen", { ...path(id), body: kinds }).then(unwrap) as Promise<Rpc>,
  complete: (id: string, ref: CompleteRef, name: string, value: string, context: Record<string, string>) =>
    api
      .POST("/api/clients/{client_id}/complete", { ...path(id), body: { ref, name, value, context } })
      .then(unwrap) as Promise<Rpc>,
  setLevel: (id: string, level: Level) =>
    api.PUT("/api/clients/{client_id}/log-level", { ...path(id), body: { level } }).then(unwrap),
  ping: (id: string) => api.POST("/api/clients/{client_id}/ping", path(id)).then(unwrap),
  callAsTask: (id: string, name: string, args: Json, progress: boolean) =>
    api
      .POST("/api/clients/{client_id}/tasks", { ...path(id), body: { name, arguments: args, progress } })
      .then(unwrap) as Promise<Rpc>,
  listTasks: (id: string) => api.GET("/api/clients/{client_id}/tasks", path(id)).then(unwrap) as Promise<Rpc>,
  getTask: (id: string, taskId: string) =>
    api
      .GET("/api/clients/{client_id}/tasks/{task_id}", { params: { path: { client_id: id, task_id: taskId } } })
      .then(unwrap) as Promise<Rpc>,
  taskAction: (id: string, taskId: string, action: "result" | "cancel") =>
    api
      .POST("/api/clients/{client_id}/tasks/{task_id}/{action}", {
        params: { path: { client_id: id, task_id: taskId, action } },
      })
      .then(unwrap) as Promise<Rpc>,
};

/** The client's activity, refetched (at most every 100 ms) when a `client_activity` event names it. */
export function useActivity(clientId: string): Activity | null {
  const [activity, setActivity] = useState<Activity | null>(null);
  const timer = useRef<number | null>(null);
  useEffect(() => {
    let alive = true;
    const load = () => workApi.activity(clientId).then((a) => alive && setActivity(a), () => undefined);
    load();
    const stop = live.listen(
      (event) => {
        if (event.type !== "client_activity" || event.client_id !== clientId || timer.current !== null) return;
        timer.current = window.setTimeout(() => {
          timer.current = null;
          load();
        }, 100);
      },
      () => load(),
    );
    return () => {
      alive = false;
      stop();
    };
  }, [clientId]);
  return activity;
}

export const ActivityContext = createContext<Activity | null>(null);
export const useActivityContext = () => useContext(ActivityContext);

/** Seconds since `since` (epoch seconds), re-rendered every 100 ms while `running`. */
export function useTicker(running: boolean): number {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    if (!running) return;
    const t = window.setInterval(() => setNow(Date.now() / 1000), 100);
    return () => window.clearInterval(t);
  }, [running]);
  return now;
}

export function clock(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toLocaleTimeString() : "";
}
