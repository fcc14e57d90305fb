// The sessions list: filters in the URL, live status from the websocket, j/k/Enter and "/".
import { useCallback, useEffect, useRef, useState } from "react";
import { ImportButton } from "./Share";
import { Link, useNavigate, useSearchParams } from "react-router";
import { api, unwrap, type Session } from "../api/client";
import { live } from "../api/live";
import { dateTime, shortTarget } from "../format";
import { useKeys } from "./hooks";
import { groupingWords, idleWords } from "./Conversations";
import { PinToggle } from "./PinToggle";

const LIMIT = 100;

export function SessionsList() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const name = params.get("name") ?? "";
  const kind = params.get("kind") ?? "";
  const state = params.get("state") ?? "";
  const offset = Number(params.get("offset") ?? 0);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const search = useRef<HTMLInputElement>(null);

  const load = useCallback(() => {
    api
      .GET("/api/sessions", {
        params: {
          query: {
            name: name || undefined,
            kind: kind || undefined,
            state: (state || undefined) as "recording" | "ended" | "interrupted" | undefined,
            limit: LIMIT,
            offset,
          },
        },
      })
      .then(unwrap)
      .then(
        (page) => {
          setSessions(page.items);
          setTotal(page.total);
          setError(null);
        },
        (e: Error) => setError(e.message),
      );
  }, [name, kind, state, offset]);

  useEffect(() => {
    load();
    return live.listen((ev) => {
      if (ev.type === "session_created" || ev.type === "session_deleted") load();
      else if (ev.type === "session_updated" || ev.type === "session_ended") {
        setSessions((list) => list.map((s) => (s.id === ev.session.id ? ev.session : s)));
      }
    }, load);
  }, [load]);

  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (key !== "offset") next.delete("offset");
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: key !== "offset" });
  };

  useKeys(
    (e) => {
      if (e.key === "j") setSelected((i) => Math.min(i + 1, sessions.length - 1));
      else if (e.key === "k") setSelected((i) => Math.max(i - 1, 0));
      else if (e.key === "Enter" && sessions[selected]) navigate(`/sessions/${sessions[selected].id}`);
      else if (e.key === "/") {
        e.preventDefault();
        search.current?.focus();
      } else return;
    },
    [sessions, selected],
  );

  useEffect(() => {
    document.querySelector(`[data-session-index="${selected}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  return (
    <section className="sessions">
      <div className="toolbar">
        <h1>Sessions</h1>
        <input
          ref={search}
          type="search"
          placeholder="Name contains…  ( / )"
          value={name}
          onChange={(e) => set("name", e.target.value)}
          aria-label="Filter by name"
        />
        <select value={kind} onChange={(e) => set("kind", e.target.value)} aria-label="Kind">
          <option value="">any kind</option>
          {["stdio-wrap", "http-proxy", "mock-client", "mock-server", "replay", "import"].map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
        <select value={state} onChange={(e) => set("state", e.target.value)} aria-label="State">
          <option value="">any state</option>
          <option>recording</option>
          <option>ended</option>
          <option>interrupted</option>
        </select>
        <span className="muted">{total} sessions</span>
        <span className="grow" />
        <MessageSearch />
        <ImportButton onImported={load} />
      </div>
      {error && <p className="error">{error}</p>}
      <table className="grid" data-testid="sessions">
        <thead>
          <tr>
            <th>id</th>
            <th>name or target</th>
            <th>kind</th>
            <th>state</th>
            <th>started</th>
            <th className="num">messages</th>
            <th>protocol</th>
            <th>server</th>
            <th>exit</th>
            <th>pin</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s, i) => (
            <tr
              key={s.id}
              data-session-index={i}
              data-session-id={s.id}
              className={i === selected ? "selected" : ""}
              onClick={() => setSelected(i)}
              onDoubleClick={() => navigate(`/sessions/${s.id}`)}
            >
              <td className="num">{s.id}</td>
              <td>
                <Link to={`/sessions/${s.id}`}>{s.name || shortTarget(s.target)}</Link>
                {(s.labels ?? []).map((l) => (
                  <span key={l} className="label">
                    {l}
                  </span>
                ))}
                {groupingWords((s.facts as Record<string, unknown> | null)?.grouping) && (
                  <span className="muted" data-testid="list-grouping" title={groupingWords((s.facts as Record<string, unknown>).grouping) ?? ""}>
                    {" "}
                    · {groupingWords((s.facts as Record<string, unknown>).grouping)}
                  </span>
                )}
              </td>
              <td>{s.kind}</td>
              <td>
                <span className={`badge state-${idleWords(s)?.badge ?? s.state}`} data-testid="state" title={idleWords(s)?.title}>
                  {idleWords(s)?.badge ?? s.state}
                </span>
              </td>
              <td>{dateTime(s.started_ns)}</td>
              <td className="num" data-testid="count">
                {s.message_count}
              </td>
              <td>{s.protocol_version ?? ""}</td>
              <td>{String(s.server_info?.name ?? "")}</td>
              <td>{s.exit_status ?? ""}</td>
              <td>
                <PinToggle id={s.id} pinned={s.pinned} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!sessions.length && !error && (
        <p className="empty">
          No sessions{name || kind || state ? " match" : " yet"}. Record one with <code>mcp-inspect wrap -- COMMAND</code>.
        </p>
      )}
      {total > LIMIT && (
        <div className="pager">
          <button disabled={offset === 0} onClick={() => set("offset", String(Math.max(0, offset - LIMIT)))}>
            ← newer
          </button>
          <span className="muted">
            {offset + 1}–{Math.min(offset + LIMIT, total)} of {total}
          </span>
          <button
            disabled={offset + LIMIT >= total}
            onClick={() => set("offset", String(offset + LIMIT))}
          >
            older →
          </button>
        </div>
      )}
    </section>
  );
}

// Full-text search over every session's messages: opens the Search page (views/SearchPage.tsx).
function MessageSearch() {
  const navigate = useNavigate();
  const [words, setWords] = useState("");
  return (
    <form
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (words.trim()) navigate(`/search?q=${encodeURIComponent(words.trim())}`);
      }}
    >
      <input
        type="search"
        placeholder="Search all messages…"
        value={words}
        onChange={(e) => setWords(e.target.value)}
        aria-label="Search all messages"
        data-testid="sessions-message-search"
      />
    </form>
  );
}
