// The websocket live feed: one connection per page, reconnecting, with per-session subscriptions.
// Events are handed to the listeners in batches, at most once per animation frame (in a task right
// after it): a session streaming thousands of messages a second makes one render a frame, not one
// per event.
import { token } from "./auth";
import type { LiveEvent } from "./client";

type Handler = (event: LiveEvent) => void;
type BatchHandler = (events: LiveEvent[]) => void;

// One channel for the task after a frame (a MessageChannel message is a task of its own, with no
// timer clamp); the callbacks waiting for it.
let afterFrame: (() => void)[] = [];
let channel: MessageChannel | null = null;

function postTask(fn: () => void): void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const due = afterFrame;
      afterFrame = [];
      for (const f of due) f();
    };
  }
  afterFrame.push(fn);
  if (afterFrame.length === 1) channel.port2.postMessage(null);
}

/** Run `fn` in a task of its own right after the next animation frame, or after `ms` when frames
 * do not come (a hidden tab). Not in the frame itself: a render there is followed in the same task
 * by the frame's style, layout and paint of everything it changed (a followed fast tail replaces
 * every row in view each frame), one long task; after it, the render (with the layout its scroll
 * forces) is one task and the next frame's paint another. */
function afterNextFrame(fn: () => void, ms = 100): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => postTask(once));
  setTimeout(once, ms);
}

class LiveFeed {
  private ws: WebSocket | null = null;
  private handlers = new Set<Handler>();
  private batchHandlers = new Set<BatchHandler>();
  private inbox: LiveEvent[] = [];
  private flushing = false;
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
      this.inbox.push(JSON.parse(msg.data as string) as LiveEvent);
      if (!this.flushing) {
        this.flushing = true;
        afterNextFrame(() => this.flush());
      }
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

  /** Hand the events received since the last frame to the listeners (in the order they came). */
  private flush() {
    this.flushing = false;
    const batch = this.inbox;
    this.inbox = [];
    for (const h of this.batchHandlers) h(batch);
    for (const event of batch) for (const h of this.handlers) h(event);
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

  /** Listen to the events of each frame at once (a timeline applies a frame's rows in one go). */
  listenBatch(handler: BatchHandler, onOpen?: (reconnected: boolean) => void): () => void {
    this.batchHandlers.add(handler);
    const stop = this.listen(() => undefined, onOpen);
    return () => {
      this.batchHandlers.delete(handler);
      stop();
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
