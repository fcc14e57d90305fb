// Full-text search over every session (or one: ?session=N): hits grouped by session, each a link
// into the timeline at that message (/sessions/{id}/messages/{seq}). The index is kept as rows
// arrive (server side), so every search answers from it at once.
import { useEffect, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { dateTime } from "../format";

type Hit = components["schemas"]["SearchHit"];
type Page = components["schemas"]["SearchPageOut"];

const LIMIT = 50;

export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const session = params.get("session");
  const [text, setText] = useState(q);
  const [hits, setHits] = useState<Hit[]>([]);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLInputElement>(null);

  useEffect(() => box.current?.focus(), []);
  useEffect(() => setText(q), [q]);

  const fetchPage = (cursor: string | null) =>
    api
      .GET("/api/search", {
        params: {
          query: {
            q,
            limit: LIMIT,
            session_id: session ? Number(session) : undefined,
            cursor: cursor ?? undefined,
          },
        },
      })
      .then(unwrap);

  useEffect(() => {
    setHits([]);
    setPage(null);
    setError(null);
    if (!q.trim()) return;
    let live = true;
    setBusy(true);
    fetchPage(null).then(
      (p) => {
        if (!live) return;
        setPage(p);
        setHits(p.hits);
        setBusy(false);
      },
      (e: Error) => {
        if (!live) return;
        setError(e.message);
        setBusy(false);
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [q, session]);

  const more = () => {
    if (!page?.next_cursor) return;
    setBusy(true);
    fetchPage(page.next_cursor).then(
      (p) => {
        setPage(p);
        setHits((h) => [...h, ...p.hits]);
        setBusy(false);
      },
      (e: Error) => {
        setError(e.message);
        setBusy(false);
      },
    );
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams(params);
    if (text.trim()) next.set("q", text.trim());
    else next.delete("q");
    setParams(next);
  };

  const groups: { sessionId: number; name: string | null; hits: Hit[] }[] = [];
  for (const h of hits) {
    const last = groups[groups.length - 1];
    if (last && last.sessionId === h.session_id) last.hits.push(h);
    else groups.push({ sessionId: h.session_id, name: h.session_name, hits: [h] });
  }
  const shown = page ? `${page.total}${page.total_exact ? "" : "+"}` : "";

  return (
    <section className="search-page">
      <form className="toolbar" onSubmit={submit} role="search">
        <h1>Search</h1>
        <input
          ref={box}
          type="search"
          placeholder="Words in any message…"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Search all messages"
          data-testid="search-input"
        />
        <button type="submit">Search</button>
        {session && (
          <span className="chip">
            in session {session}{" "}
            <Link to={`/search?q=${encodeURIComponent(q)}`} aria-label="Search all sessions">
              ×
            </Link>
          </span>
        )}
        {page && (
          <span className="muted" data-testid="search-total">
            {shown} {page.total === 1 && page.total_exact ? "message" : "messages"}
          </span>
        )}
        {busy && <span className="muted">searching…</span>}
      </form>
      {error && <p className="error" data-testid="search-error">{error}</p>}
      {page && hits.length === 0 && <p className="empty">No message holds every word of “{q}”.</p>}
      <div data-testid="search-results">
        {groups.map((g, i) => (
          <div className="search-group" key={`${g.sessionId}-${i}`} data-testid="search-group">
            <h2>
              <Link to={`/sessions/${g.sessionId}`}>
                #{g.sessionId} {g.name ?? ""}
              </Link>
            </h2>
            <ul>
              {g.hits.map((h) => (
                <li key={h.id}>
                  <Link
                    to={`/sessions/${h.session_id}/messages/${h.seq}`}
                    data-testid="search-hit"
                    data-seq={h.seq}
                    data-session={h.session_id}
                  >
                    <span className="muted">
                      {h.seq} · {h.direction === "c2s" ? "→" : "←"} {h.method ?? h.kind} · {dateTime(h.ts_ns)}
                    </span>{" "}
                    <Snippet text={h.snippet} marks={h.marks} />
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
      {page?.next_cursor && (
        <button onClick={more} disabled={busy} data-testid="search-more">
          More results
        </button>
      )}
    </section>
  );
}

function Snippet({ text, marks }: { text: string; marks: number[][] }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at) continue;
    parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(text.slice(at));
  return <code className="snippet">{parts}</code>;
}
