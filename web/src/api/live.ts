// The websocket live feed: one connection per page, reconnecting, with per-session subscriptions.
import { token } from "./auth";
import type { LiveEvent } from "./client";

type Handler = (event: LiveEvent) => void;

class LiveFeed {
  private ws: WebSocket | null = null;
  private handlers = new Set<Handler>();
  private openHandlers = new Set<(reconnected: boolean) => void>();
  private opened = false;
  private subscriptions = new Map<number, number>(); // session id -> subscriber count
  private retry = 500;
  connected = false;

  private connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // A browser cannot set headers on a websocket: the token rides as a second subprotocol, and the
    // server answers with the first one only.
    const t = token();
    const ws = new WebSocket(`${proto}//${location.host}/api/live`, t ? ["mcp-inspector", `bearer.${t}`] : []);
    this.ws = ws;
    ws.onopen = () => {
      this.connected = true;
      this.retry = 500;
      for (const id of this.subscriptions.keys()) this.send({ type: "subscribe", session_id: id });
      // Whatever happened while we were away (or before the first connection) is fetched again.
      for (const h of this.openHandlers) h(this.opened);
      this.opened = true;
    };
    ws.onmessage = (msg) => {
      const event = JSON.parse(msg.data as string) as LiveEvent;
      for (const h of this.handlers) h(event);
    };
    ws.onclose = () => {
      this.connected = false;
      this.ws = null;
      if (this.handlers.size) {
        setTimeout(() => this.handlers.size && !this.ws && this.connect(), this.retry);
        this.retry = Math.min(this.retry * 2, 5000);
      }
    };
  }

  private send(msg: object) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** Listen to events (and to reconnections); returns the function that stops listening. */
  listen(handler: Handler, onOpen?: (reconnected: boolean) => void): () => void {
    this.handlers.add(handler);
    if (onOpen) this.openHandlers.add(onOpen);
    if (!this.ws) this.connect();
    return () => {
      this.handlers.delete(handler);
      if (onOpen) this.openHandlers.delete(onOpen);
    };
  }

  /** Receive the new messages of a session; returns the function that unsubscribes. */
  subscribe(sessionId: number): () => void {
    const n = this.subscriptions.get(sessionId) ?? 0;
    this.subscriptions.set(sessionId, n + 1);
    if (n === 0) this.send({ type: "subscribe", session_id: sessionId });
    return () => {
      const left = (this.subscriptions.get(sessionId) ?? 1) - 1;
      if (left > 0) this.subscriptions.set(sessionId, left);
      else {
        this.subscriptions.delete(sessionId);
        this.send({ type: "unsubscribe", session_id: sessionId });
      }
    };
  }
}

export const live = new LiveFeed();
