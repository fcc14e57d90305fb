// The session timeline: a virtualised list of every message (100,000 scroll smoothly), filters and
// text search in the URL, live tail with auto-scroll, the message detail beside it, j/k/Enter and "/".
import { lazy, Suspense, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";
import {
  api,
  isEmptyFilter,
  unwrap,
  type Filter,
  type FindingsFilter,
  type LintBadge,
  type Row,
  type Session,
} from "../api/client";
import { live } from "../api/live";
import { grouped } from "../format";
import { interventionOf } from "../timeline/interventions";
import { dropFirstRows, rememberRowsAt } from "../first/firstRows";
import { useFixedRows } from "../timeline/fixedRows";
import { RowStore } from "../timeline/rowStore";
import { ROW_HEIGHT, TimelineRow, type RowActions } from "../timeline/TimelineRow";
import { useKeys } from "./hooks";
import { PausesPanel, pauseBefore, pausesOf } from "./RecordingPause";
import { ConversationsPanel, markOf, useConversations } from "./Conversations";

// The detail (JSON viewer, findings, app links) is loaded when a message is first opened.
const MessageDetail = lazy(() => import("./MessageDetail").then((m) => ({ default: m.MessageDetail })));
// The waterfall's strip (its brush filters the table by time) comes after the first rows.
const Strip = lazy(() => import("../waterfall/Strip").then((m) => ({ default: m.Strip })));

const KINDS = ["request", "notification", "response", "error", "log", "invalid", "batch"];
const FINDINGS: FindingsFilter[] = ["any", "warning", "error"];

function list(v: string | null): string[] {
  return v ? v.split(",").filter(Boolean) : [];
}

export function parseFilter(params: URLSearchParams): Filter {
  const dir = params.get("dir");
  return {
    direction: dir === "c2s" || dir === "s2c" ? dir : undefined,
    kind: list(params.get("kind")),
    method: list(params.get("method")),
    channel: list(params.get("channel")),
    q: params.get("q") || undefined,
    findings: FINDINGS.find((f) => f === params.get("findings")),
    intervened: params.get("iv") === "1" || undefined,
    ...timeRange(params),
  };
}

/** The time range of the URL (`from`, `to`: ns), as the waterfall's brush sets it. */
function timeRange(params: URLSearchParams): { from?: number; to?: number } {
  const from = Number(params.get("from"));
  const to = Number(params.get("to"));
  return params.get("from") && params.get("to") && Number.isFinite(from) && Number.isFinite(to) && to > from ? { from, to } : {};
}

/** A store started before React renders it (see `primeTimeline`, `applyFilter`), taken by the Timeline. */
let primed: { key: string; store: RowStore; at: number } | null = null;

function prime(sessionId: number, filter: Filter, startIndex: number): Promise<void> {
  const store = new RowStore(sessionId, filter);
  const loaded = store.init(startIndex);
  primed = { key: `${sessionId} ${JSON.stringify(filter)}`, store, at: performance.now() };
  return loaded;
}

/** The timeline's first request, sent as soon as the bundle runs (before React renders the app) when
 * the page's URL is a timeline: its answer arrives while the app renders. A deep link to a row of an
 * unfiltered timeline asks for that row's page (with the total) instead of the first. Resolves once
 * that page is in. */
export function primeTimeline(path: string, search: string): Promise<void> | null {
  const m = /^\/sessions\/(\d+)(?:\/messages\/(\d+))?\/?$/.exec(path);
  if (!m) return null;
  const filter = parseFilter(new URLSearchParams(search));
  return prime(Number(m[1]), filter, m[2] && isEmptyFilter(filter) ? Number(m[2]) - 1 : 0);
}

function takePrimed(sessionId: number, filterKey: string): RowStore | null {
  const fresh = primed && primed.key === `${sessionId} ${filterKey}` && performance.now() - primed.at < 5000;
  const found = fresh ? primed!.store : null;
  primed = null;
  return found;
}

export function Timeline({
  sessionId,
  session,
  onFirstRows,
}: {
  sessionId: number;
  session: Session | null;
  /** Called once the first rows are shown (the page's other requests wait for it). */
  onFirstRows?: () => void;
}) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const seqParam = useParams().seq;
  const openSeq = seqParam ? Number(seqParam) : null;
  const filter = parseFilter(params);
  const filterKey = JSON.stringify(filter);
  const filterFindings = filter.findings;
  // Findings: the session is linted (when stale) on open. Rows fetched before that carry no `lint`, so
  // the badges also come from the findings themselves; a findings filter needs the rows again.
  const [lint, setLint] = useState<{ version: number; summary: Record<string, number> | null; bySeq: Map<number, LintBadge[]> }>(
    { version: 0, summary: null, bySeq: new Map() },
  );
  // The first rows come first: everything else the timeline asks for waits until they are shown
  // (the findings may lint the session, the conversations read all of it: on a large session they
  // held the server while the rows waited).
  const [settled, setSettled] = useState(false);
  const known = settled && session !== null;
  useEffect(() => {
    if (!known) return;
    let alive = true;
    api
      .GET("/api/sessions/{session_id}/findings", { params: { path: { session_id: sessionId } } })
      .then(unwrap)
      .then(
        (f) => {
          if (!alive) return;
          const bySeq = new Map<number, LintBadge[]>();
          for (const item of f.items) {
            const badges = bySeq.get(item.seq) ?? [];
            badges.push({ rule: item.rule, severity: item.severity as LintBadge["severity"] });
            bySeq.set(item.seq, badges);
          }
          setLint((l) => ({ version: f.relinted && filterFindings ? l.version + 1 : l.version, summary: f.summary, bySeq }));
        },
        () => undefined,
      );
    return () => {
      alive = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionId, session?.state, known]);
  const store = useMemo(
    () => takePrimed(sessionId, filterKey) ?? new RowStore(sessionId, filter),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sessionId, filterKey, lint.version],
  );
  useSyncExternalStore(store.subscribe, store.getVersion);
  const [selected, setSelected] = useState<number | null>(null);
  const [anchor, setAnchor] = useState<number | null>(null);
  const [follow, setFollow] = useState(false);
  const recording = session?.state === "recording";
  const pauses = pausesOf(session);
  // Follow the tail of a session that is recording when it opens (not at a given message).
  useEffect(() => {
    if (recording && openSeq === null) setFollow(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [recording, sessionId]);
  const [methods, setMethods] = useState<string[]>([]);
  const scroller = useRef<HTMLDivElement>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const [searchText, setSearchText] = useState(filter.q ?? "");

  // A layout effect: a new filter's request goes out before the browser paints, not after.
  useLayoutEffect(() => {
    let alive = true;
    // An unfiltered deep link starts at its row's page (one request for the row and the total).
    store.init(openSeq !== null && isEmptyFilter(store.filter) ? openSeq - 1 : 0).then(() => alive && setSettled(true));
    return () => {
      alive = false;
      store.dispose();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store]);
  useEffect(() => {
    if (settled) onFirstRows?.();
  }, [settled, onFirstRows]);

  useEffect(() => {
    if (!known) return;
    api
      .GET("/api/sessions/{session_id}/methods", { params: { path: { session_id: sessionId } } })
      .then(unwrap)
      .then((m) => setMethods(Object.keys(m)), () => undefined);
  }, [sessionId, session?.state, known]);

  // Live: the new rows of this session, and its message count from session updates.
  useEffect(() => {
    const unsubscribe = live.subscribe(sessionId);
    // One frame's events at once: their rows and the newest count make one update (one render).
    const stop = live.listenBatch(
      (events) => {
        const rows: Row[] = [];
        let count: number | null = null;
        for (const ev of events) {
          if (ev.type === "messages" && ev.session_id === sessionId) rows.push(...ev.items);
          else if (ev.type === "behind" && ev.session_id === sessionId) count = Math.max(count ?? 0, ev.message_count);
          else if ((ev.type === "session_updated" || ev.type === "session_ended") && ev.session.id === sessionId)
            count = Math.max(count ?? 0, ev.session.message_count);
        }
        if (rows.length || count !== null) store.applyLive(rows, count);
      },
      () => store.applyLive([], null),
    );
    return () => {
      stop();
      unsubscribe();
    };
  }, [store, sessionId]);

  // Follow: the window is the tail, rendered there at once (no scroll, then render again).
  const virtualizer = useFixedRows(scroller, store.total, ROW_HEIGHT, 30, follow, "timeline");
  const items = virtualizer.items;
  // The first rows the page's head script drew before the app loaded (first/firstRows.ts): gone in
  // the commit that shows this list's own (or an error instead), and where this list is first laid
  // out is kept for the next page load, when it is the plain timeline the head script draws for (a
  // filter can wrap the toolbar, an open message narrows the list).
  const firstIn = items.length > 0 && store.row(items[0].index) !== undefined;
  useLayoutEffect(() => {
    if (firstIn || store.error) dropFirstRows();
  }, [firstIn, store.error]);
  useLayoutEffect(() => dropFirstRows, []);
  const plain = openSeq === null && isEmptyFilter(filter);
  useEffect(() => {
    const node = scroller.current;
    if (!node || !plain) return;
    const once = new ResizeObserver(() => {
      rememberRowsAt(node); // after the browser's own layout: no forced one
      once.disconnect();
    });
    once.observe(node);
    return () => once.disconnect();
  }, [plain]);
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (store.total) store.ensure(first, last);
  });
  // Rows are keyed by their index less `keyBase`. Following a fast tail, each update brings a new
  // window: new rows set `keyBase` to its first row, so the rows are keyed by their place in the
  // window, and their elements are kept and given the new rows' text (not removed and made again).
  // A render of a new total whose window is not yet the tail (the scroll to the end comes in the
  // next render on a loaded machine) does not settle the base: the tail's own render sets it again,
  // else every key shifted and every element was made again. Otherwise (a scroll, no new rows) it
  // stays: a row keeps its element while it is in the window, and a scroll renders only the rows
  // that come into view.
  const keyAnchor = useRef({ total: -1, first: 0, settled: true });
  if (follow && (keyAnchor.current.total !== store.total || (!keyAnchor.current.settled && keyAnchor.current.first !== first)))
    keyAnchor.current = { total: store.total, first, settled: last >= store.total - 1 };
  const keyBase = keyAnchor.current.first;

  // A message in the URL (deep link, jump to pair): select it and bring it into view.
  useEffect(() => {
    if (openSeq === null || !store.loaded) return;
    let alive = true;
    store.indexOf(openSeq).then(({ index }) => {
      if (!alive) return;
      setSelected(index);
      const shown = virtualizer.range;
      const visible = shown !== null && index > shown.startIndex && index < shown.endIndex;
      if (!visible) virtualizer.scrollToIndex(index, { align: "center" });
    }, () => undefined);
    return () => {
      alive = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [openSeq, store, store.loaded]);

  const conversations = useConversations(sessionId, session?.message_count, known);
  const base = `/sessions/${sessionId}`;
  const search = params.toString() ? `?${params.toString()}` : "";
  const open = (seq: number, replace = false) => navigate(`${base}/messages/${seq}${search}`, { replace });
  // An injected row's original: the row of the same intervention that the sender sent.
  const openOriginal = (seq: number) => {
    api
      .GET("/api/sessions/{session_id}/messages/{seq}", { params: { path: { session_id: sessionId, seq } } })
      .then(unwrap)
      .then((d) => {
        const original = (d.intervention ?? []).find((r) => interventionOf(r)?.kind === "intercept");
        open(original ? original.seq : seq);
      }, () => open(seq));
  };
  // A new filter's first page is asked for at once, before React renders the change.
  const applyParams = (next: URLSearchParams) => {
    const nextFilter = parseFilter(next);
    if (JSON.stringify(nextFilter) !== filterKey) prime(sessionId, nextFilter, 0);
    setParams(next, { replace: true });
  };
  const setParam = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    applyParams(next);
  };

  // Text search: applied after a pause in typing. The pause's timer applies it to the parameters
  // of the moment it ends (`latestSetParam`), not of the moment it began: a filter chosen meanwhile
  // stays. Enter cancels it (the search is applied at once); "Clear filters" empties the box, whose
  // change cancels it too (the effect's cleanup), so a cleared search does not come back.
  const searchPause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latestSetParam = useRef(setParam);
  latestSetParam.current = setParam;
  useEffect(() => {
    if ((filter.q ?? "") === searchText) return;
    searchPause.current = setTimeout(() => latestSetParam.current("q", searchText.trim()), 300);
    return () => clearTimeout(searchPause.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [searchText]);

  const move = (step: number) => {
    setFollow(false);
    const next = Math.max(0, Math.min(store.total - 1, (selected ?? (step > 0 ? -1 : store.total)) + step));
    setSelected(next);
    virtualizer.scrollToIndex(next, { align: "auto" });
    const row = store.row(next);
    if (openSeq !== null && row) open(row.seq, true);
  };

  useKeys(
    (e) => {
      if (e.key === "j" || e.key === "ArrowDown") move(1);
      else if (e.key === "k" || e.key === "ArrowUp") move(-1);
      else if (e.key === "Enter" && selected !== null) {
        const row = store.row(selected);
        if (row) open(row.seq);
      } else if (e.key === "Escape" && openSeq !== null) navigate(`${base}${search}`);
      else if (e.key === "/") searchBox.current?.focus();
      else if (e.key === "G") setFollow(true);
      else return;
      e.preventDefault();
    },
    [selected, store, store.total, openSeq, search],
  );

  const range = useMemo(() => {
    if (anchor === null || selected === null) return null;
    const a = store.row(Math.min(anchor, selected));
    const b = store.row(Math.max(anchor, selected));
    return a && b ? [a.seq, b.seq] : null;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [anchor, selected, store, store.getVersion()]);

  const lanesLink = () => {
    const from = range?.[0] ?? store.row(first)?.seq ?? 1;
    const to = range?.[1] ?? store.row(last)?.seq ?? from + 100;
    navigate(`${base}/lanes?from=${from}&to=${Math.min(to, from + 499)}`);
  };

  // The rows' clicks, through one object kept across renders (a memoised row is not rendered again
  // because the timeline's handlers are new closures each render).
  const latest = useRef({ open, openOriginal, selected });
  latest.current = { open, openOriginal, selected };
  const rowActions = useMemo<RowActions>(
    () => ({
      click: (index, seq, shift) => {
        setFollow(false);
        if (shift) {
          setAnchor(latest.current.selected ?? index);
          setSelected(index);
          return;
        }
        setAnchor(null);
        setSelected(index);
        latest.current.open(seq);
      },
      open: (seq) => latest.current.open(seq),
      openOriginal: (seq) => latest.current.openOriginal(seq),
    }),
    [],
  );

  const toggleKind = (k: string) => {
    const kinds = filter.kind.includes(k) ? filter.kind.filter((x) => x !== k) : [...filter.kind, k];
    setParam("kind", kinds.join(","));
  };

  return (
    <div className={`timeline-layout ${openSeq !== null ? "with-detail" : ""}`}>
      <div className="timeline">
        <div className="toolbar filters">
          <input
            ref={searchBox}
            type="search"
            className="search"
            placeholder="Search text…  ( / )"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== "Enter") return;
              clearTimeout(searchPause.current);
              setParam("q", searchText.trim()); // at once, no typing pause
            }}
            aria-label="Search message text"
            data-testid="search"
          />
          <select value={filter.direction ?? ""} onChange={(e) => setParam("dir", e.target.value)} aria-label="Direction">
            <option value="">both directions</option>
            <option value="c2s">client → server</option>
            <option value="s2c">server → client</option>
          </select>
          <select
            value={filter.method.join(",")}
            onChange={(e) => setParam("method", e.target.value)}
            aria-label="Method"
            data-testid="method-filter"
          >
            <option value="">any method</option>
            {filter.method.length > 0 && !methods.includes(filter.method.join(",")) && (
              <option value={filter.method.join(",")}>{filter.method.join(", ")}</option>
            )}
            {methods.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <span className="chips" role="group" aria-label="Kinds">
            {KINDS.map((k) => (
              <button
                key={k}
                className={`chip kind-${k} ${filter.kind.includes(k) ? "on" : ""}`}
                aria-pressed={filter.kind.includes(k)}
                onClick={() => toggleKind(k)}
              >
                {k}
              </button>
            ))}
          </span>
          <span className="chips" role="group" aria-label="Findings">
            {FINDINGS.map((f) => (
              <button
                key={f}
                className={`chip findings-${f} ${filter.findings === f ? "on" : ""}`}
                aria-pressed={filter.findings === f}
                onClick={() => setParam("findings", filter.findings === f ? "" : f)}
                data-testid={`findings-${f}`}
                title={f === "any" ? "messages with any lint finding" : `messages with lint ${f}s${f === "warning" ? " or errors" : ""}`}
              >
                {f === "any" ? "findings" : `${f}s`}
                {lint.summary && (
                  <span className="muted">
                    {" "}
                    {f === "any"
                      ? lint.summary.error + lint.summary.warning + lint.summary.info
                      : f === "warning"
                        ? lint.summary.error + lint.summary.warning
                        : lint.summary.error}
                  </span>
                )}
              </button>
            ))}
          </span>
          <button
            className={`chip interventions ${filter.intervened ? "on" : ""}`}
            aria-pressed={!!filter.intervened}
            onClick={() => setParam("iv", filter.intervened ? "" : "1")}
            data-testid="interventions-filter"
            title="only messages the inspector held, dropped, delayed, changed or sent itself (intercept and fault rules)"
          >
            interventions only
          </button>
          {!isEmptyFilter(filter) && (
            <button
              className="ghost"
              onClick={() => {
                setSearchText("");
                applyParams(new URLSearchParams());
              }}
            >
              Clear filters
            </button>
          )}
          <span className="grow" />
          <button className="ghost" onClick={lanesLink} title="Shift-click a row to choose a range">
            {range ? `Lanes #${range[0]}–#${range[1]}` : "Lanes of visible rows"}
          </button>
          <label className="follow" title="Scroll to new messages as they arrive (G)">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} data-testid="follow" /> Follow
          </label>
          <span className="muted" data-testid="total">
            {grouped(store.total)} {isEmptyFilter(filter) ? "messages" : "matching"}
          </span>
        </div>
        {store.error && <p className="error">{store.error}</p>}
        {/* The strip's place is kept from the first paint: the list does not move when it comes. */}
        <div className="wf-strip-slot">
          {settled && (
            <Suspense>
              <Strip
              sessionId={sessionId}
              range={filter.from !== undefined && filter.to !== undefined ? { lo: filter.from, hi: filter.to } : null}
              onRange={(w) => {
                const next = new URLSearchParams(params);
                if (w) {
                  next.set("from", String(Math.floor(w.lo)));
                  next.set("to", String(Math.ceil(w.hi)));
                } else {
                  next.delete("from");
                  next.delete("to");
                }
                applyParams(next);
              }}
            />
            </Suspense>
          )}
        </div>
        <ConversationsPanel doc={conversations} onOpen={(seq) => open(seq)} />
        <PausesPanel session={session} />
        <div className="row head" role="row">
          <span className="c-seq">seq</span>
          <span className="c-time">time</span>
          <span className="c-delta">delta</span>
          <span className="c-dir">dir</span>
          <span className="c-kind">kind</span>
          <span className="c-method">method</span>
          <span className="c-id">id</span>
          <span className="c-lat">latency</span>
          <span className="c-size">size</span>
        </div>
        <div
          className="rows"
          ref={scroller}
          data-testid="rows"
          onWheel={(e) => e.deltaY < 0 && setFollow(false)}
          tabIndex={-1}
        >
          <div style={{ height: virtualizer.totalSize, position: "relative" }}>
            {/* The rows flow in one block moved to the window's first row: no transform, layer and
                position per row (each frame of a fast tail painted and laid out ~40 of them). */}
            <div className="rows-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
            {items.map((item) => {
              const r = store.row(item.index);
              const prev = store.row(item.index - 1);
              const key = item.index - keyBase;
              return (
                <TimelineRow
                  key={key}
                  index={item.index}
                  row={r}
                  prevTs={prev ? prev.ts_ns : null}
                  selected={item.index === selected}
                  open={r !== undefined && r.seq === openSeq}
                  inRange={
                    anchor !== null && selected !== null && item.index >= Math.min(anchor, selected) && item.index <= Math.max(anchor, selected)
                  }
                  mark={r && markOf(conversations, r.seq)}
                  pause={r && pauseBefore(pauses, r, prev)}
                  lint={r && lint.bySeq.get(r.seq)}
                  actions={rowActions}
                />
              );
            })}
            </div>
          </div>
        </div>
        {store.loaded && store.total === 0 && (
          <p className="empty">{isEmptyFilter(filter) ? "No messages yet." : "No message matches these filters."}</p>
        )}
      </div>
      {openSeq !== null && (
        <Suspense>
        <MessageDetail
          sessionId={sessionId}
          seq={openSeq}
          onOpen={(seq) => open(seq)}
          onClose={() => navigate(`${base}${search}`)}
        />
        </Suspense>
      )}
    </div>
  );
}
