// Multi-round-trip conversations and retry pairs (2026-07-28) in the timeline and the lanes: derived
// by the API from the recorded rows (GET /api/sessions/{id}/conversations), fetched again as the
// session grows. Also how a session without a session id was grouped, in words.
import { useEffect, useRef, useState } from "react";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

export type Conversations = components["schemas"]["Conversations"];
export type Conversation = components["schemas"]["Conversation"];
export interface SeqMark {
  conversation?: { id: number; round: number; rounds: number; outcome: string; role: string };
  retry_of?: number;
  retried_by?: number;
}

const EMPTY: Conversations = { conversations: [], retries: [], by_seq: {}, upto_seq: 0 };

/** The session's conversations; fetched again when its message count changes, at most once per
 * `max(3 s, 10 × the last answer's time)` while it grows (the API derives them from every row of the
 * session: a live session at thousands of messages a second would have it busy with nothing else).
 * Not fetched while `enabled` is false (the timeline waits until its first rows are shown). */
export function useConversations(sessionId: number, messageCount: number | undefined, enabled = true): Conversations {
  const [doc, setDoc] = useState<Conversations>(EMPTY);
  const next = useRef({ sessionId, at: 0, busy: false });
  useEffect(() => {
    if (!enabled) return;
    if (next.current.sessionId !== sessionId) next.current = { sessionId, at: 0, busy: false };
    const mine = next.current;
    const fetchNow = () => {
      if (mine.busy) return;
      mine.busy = true;
      const started = Date.now();
      api
        .GET("/api/sessions/{session_id}/conversations", { params: { path: { session_id: sessionId } } })
        .then(unwrap)
        .then((d) => next.current === mine && setDoc(d), () => undefined)
        .finally(() => {
          mine.busy = false;
          mine.at = Date.now() + Math.max(3000, 10 * (Date.now() - started));
        });
    };
    // The last count always gets its fetch: a later count cancels this timer and sets its own.
    let timer: ReturnType<typeof setTimeout>;
    const again = () => {
      if (mine.busy) timer = setTimeout(again, 200);
      else fetchNow();
    };
    timer = setTimeout(again, Math.max(0, mine.at - Date.now()));
    return () => clearTimeout(timer);
  }, [sessionId, messageCount, enabled]);
  return doc;
}

export function markOf(doc: Conversations, seq: number): SeqMark | undefined {
  return doc.by_seq[String(seq)] as SeqMark | undefined;
}

/** A row's place in a conversation ("round 2 of 3") and its retry links, both ways. */
export function ConversationBadge({ mark, onOpen }: { mark: SeqMark | undefined; onOpen: (seq: number) => void }) {
  if (!mark) return null;
  const c = mark.conversation;
  const link = (seq: number, text: string, testid: string) => (
    <a
      className="flag conv-retry"
      data-testid={testid}
      title={text}
      onClick={(e) => {
        e.stopPropagation();
        onOpen(seq);
      }}
    >
      {text}
    </a>
  );
  return (
    <>
      {c && (
        <span
          className={`flag conv-badge conv-${c.role}`}
          data-testid="conv-badge"
          title={`conversation #${c.id} (${c.outcome}): round ${c.round} of ${c.rounds}${c.role === "final" ? ", its final result" : ""}`}
        >
          ⟳#{c.id} round {c.round} of {c.rounds}
          {c.role === "final" ? " ✓ final" : ""}
        </span>
      )}
      {mark.retry_of !== undefined && link(mark.retry_of, `retry of #${mark.retry_of}`, "retry-of")}
      {mark.retried_by !== undefined && link(mark.retried_by, `retried by #${mark.retried_by}`, "retried-by")}
    </>
  );
}

/** The conversations as collapsible groups, each round visible, the final result at the tail. */
export function ConversationsPanel({ doc, onOpen }: { doc: Conversations; onOpen: (seq: number) => void }) {
  if (!doc.conversations.length && !doc.retries.length) return null;
  const seq = (n: number | null | undefined, text?: string) =>
    n === null || n === undefined ? (
      <span className="muted">no answer</span>
    ) : (
      <a className="pair-link" onClick={() => onOpen(n)}>
        {text ?? `#${n}`}
      </a>
    );
  return (
    <details className="conversations" data-testid="conversations">
      <summary>
        {doc.conversations.length} multi-round-trip conversation{doc.conversations.length === 1 ? "" : "s"}
        {doc.retries.length ? `, ${doc.retries.length} retry pair${doc.retries.length === 1 ? "" : "s"}` : ""}
      </summary>
      {doc.conversations.map((c) => (
        <details key={c.id} className="conversation" data-testid="conversation" data-id={c.id}>
          <summary>
            ⟳#{c.id} {c.method} {c.name ?? ""} — {c.rounds.length} rounds, {c.outcome}
            {c.final_seq !== null && <> (final result {seq(c.final_seq)})</>}
          </summary>
          <ol className="rounds">
            {c.rounds.map((r) => (
              <li key={r.n} data-testid="conv-round">
                round {r.n} of {c.rounds.length}: request {seq(r.request_seq)} (id {r.rpc_id ?? "?"})
                {r.attempts.length ? <> after broken {r.attempts.map((a) => seq(a))}</> : null}
                {r.input_responses.length ? ` answering ${r.input_responses.join(", ")}` : ""} → {r.result_type ?? "no answer"}{" "}
                {seq(r.response_seq)}
                {Object.keys(r.input_requests).length
                  ? `: asks ${Object.entries(r.input_requests)
                      .map(([k, m]) => `${m} (${k})`)
                      .join(", ")}`
                  : ""}
              </li>
            ))}
          </ol>
        </details>
      ))}
      {doc.retries.map((p) => (
        <div key={p.retry} className="retry-pair" data-testid="retry-pair">
          {p.method} {seq(p.original)} broke ({p.broken}); re-issued as {seq(p.retry)}
        </div>
      ))}
    </details>
  );
}

/** The `grouping` session fact in words (the same words as the terminal's). */
export function groupingWords(grouping: unknown): string | null {
  if (!grouping || typeof grouping !== "object") return null;
  const g = grouping as { by?: string; client?: string; auth?: string | null; connections?: number[]; idle_gap_s?: number | null };
  const conns = g.connections ?? [];
  const connWords = conns.length === 1 ? `connection ${conns[0]}` : `connections ${conns.join(", ")}`;
  if (g.by === "client-identity")
    return `grouped by client identity ${g.client ?? "?"}${g.auth ? `, authorization ${g.auth}` : ""}, ${connWords}${g.idle_gap_s ? `, idle gap ${g.idle_gap_s} s` : ""}`;
  if (g.by === "peer") {
    const p = grouping as { peer?: string; closed_gap_s?: number | null };
    return `grouped by peer ${p.peer ?? "?"}${g.auth ? `, authorization ${g.auth}` : ""}, ${connWords}${p.closed_gap_s ? `, closed gap ${p.closed_gap_s} s` : ""}`;
  }
  if (g.by === "connection") return `grouped by ${connWords}`;
  return null;
}

/** A recording proxy session whose client went quiet (the proxy's `idle` fact): the badge's word
 * and when the proxy will end it, in the terminal's words; null for any other session. */
export function idleWords(s: { state: string; facts?: unknown }): { badge: string; title: string } | null {
  const idle = (s.facts as { idle?: { since_ns: number; ends_ns: number | null } } | null)?.idle;
  if (s.state !== "recording" || !idle) return null;
  const at = (ns: number) => new Date(ns / 1e6).toLocaleTimeString();
  const ends = idle.ends_ns !== null ? `, ends ${at(idle.ends_ns)} unless the client returns` : "";
  return { badge: "idle", title: `idle since ${at(idle.since_ns)}${ends}` };
}
