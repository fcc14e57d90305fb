// The diff of two sessions (/diff?a=1&b=2): exchanges side by side (original | replay) with status
// badges and counts, a filter for differences only, and for an opened exchange its changes and the
// JSON of both sides with the differing paths highlighted. An exchange that changed only in
// clock-like parts (times, dates, ids, counters: "volatile") is shown muted and counted apart, and does
// not make the verdict "changed" unless "treat volatile as changes" is on (?strict=1, the API's
// strict_volatile, as `diff --strict-volatile`). Keys: j/k move, Enter opens, Esc closes, d toggles
// "only differences", v toggles "treat volatile as changes". It opens with the runs-compared summary
// (../diff/RunsCompared.tsx): a bucket's chip (?bucket=) lists only that bucket's exchanges.
import { useEffect, useMemo, useState } from "react";
import { DiffReportButton } from "./Share";
import { Link, useSearchParams } from "react-router";
import { api, unwrap, type DiffReport, type DiffSide, type ExchangeDiff, type Session } from "../api/client";
import { arrows, shortTarget } from "../format";
import { JsonDiffTree, type Mark } from "../diff/JsonDiffTree";
import { locationId, resolve } from "../diff/locations";
import { BUCKETS, RunsComparedSummary, type Bucket } from "../diff/RunsCompared";
import { useKeys } from "./hooks";

const STATUSES = ["equal", "changed", "missing", "extra"] as const;
const VOLATILE_TIP = "differs only in clock-like parts: times, dates, ids, counters";

/** Changed, but every change is volatile (the report's `volatile` count counts these). */
function volatileOnly(x: ExchangeDiff): boolean {
  return x.status === "changed" && x.changes.length > 0 && x.changes.every((c) => c.volatile);
}
const PAGE = 1000; // rows rendered at a time (a long session has many thousands of exchanges)

/** A session by reference (id, name or `last`), fetched beside the diff itself. */
function useSessionTitle(ref: string): Session | null {
  const [s, setS] = useState<Session | null>(null);
  useEffect(() => {
    setS(null);
    if (!ref) return;
    api
      .GET("/api/sessions/{session_id}", { params: { path: { session_id: ref } } })
      .then(unwrap)
      .then(setS, () => setS(null));
  }, [ref]);
  return s;
}

export function DiffView() {
  const [params, setParams] = useSearchParams();
  const a = params.get("a") ?? "";
  const b = params.get("b") ?? "";
  const ignore = params.getAll("ignore");
  // What the two sides are called: original | replay, or e.g. two protocol revisions (?la=&lb=).
  const la = params.get("la") || "original";
  const lb = params.get("lb") || "replay";
  // The URL keeps the filter; a local copy answers the checkbox at once (router updates are transitions).
  const onlyInUrl = params.get("only") === "1";
  const [only, setOnly] = useState(onlyInUrl);
  useEffect(() => setOnly(onlyInUrl), [onlyInUrl]);
  const strictInUrl = params.get("strict") === "1";
  const [strict, setStrict] = useState(strictInUrl);
  useEffect(() => setStrict(strictInUrl), [strictInUrl]);
  const openIndex = params.get("open") === null ? null : Number(params.get("open"));
  const bucketParam = params.get("bucket") as Bucket | null;
  const bucket = bucketParam !== null && BUCKETS.includes(bucketParam) ? bucketParam : null;
  // The unchanged bucket needs the equal exchanges listed, whatever "only differences" says.
  const listEqual = !only || bucket === "unchanged";
  const [report, setReport] = useState<DiffReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const [shown, setShown] = useState(PAGE);
  const ignoreKey = ignore.join("\n");

  useEffect(() => {
    if (!a || !b) {
      setError("choose two sessions: /diff?a=ID&b=ID");
      return;
    }
    setError(null);
    let current = true; // a toggle while a diff is on its way: only the last answer is shown
    // The API lists a page of exchanges: the equal ones too unless only differences are shown.
    fetchPage(a, b, ignoreKey, strict, listEqual, null).then(
      (r) => current && setReport(r),
      (e: Error) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [a, b, ignoreKey, strict, listEqual]);
  const more = () => {
    if (!report?.next_cursor) return;
    const shownReport = report;
    fetchPage(a, b, ignoreKey, strict, listEqual, report.next_cursor).then(
      // The summary comes with the first page only.
      (r) =>
        setReport((now) =>
          now === shownReport ? { ...r, summary: now.summary, exchanges: [...now.exchanges, ...r.exchanges] } : now,
        ),
      (e: Error) => setError(e.message),
    );
  };
  // A deep link (?open=N) to an exchange beyond the pages loaded so far: load the next page until
  // the exchange is among them (or the report ends), so the link opens it wherever it is.
  useEffect(() => {
    if (report === null || openIndex === null || !report.next_cursor) return;
    const last = report.exchanges[report.exchanges.length - 1];
    if (last !== undefined && last.index >= openIndex) return;
    more();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `more` reads this very report
  }, [report, openIndex]);
  // Until the answer for these two sessions comes, show none (a strict toggle keeps the old one up).
  useEffect(() => setReport(null), [a, b, ignoreKey]);

  const sa = useSessionTitle(a);
  const sb = useSessionTitle(b);
  const matching = useMemo(
    () =>
      (report?.exchanges ?? [])
        .map((x) => ({ x, index: x.index }))
        // Intervened exchanges stay listed: what the client saw differs from what the server did.
        .filter(({ x }) =>
          bucket !== null ? x.bucket === bucket : !only || x.status !== "equal" || (x.interventions ?? []).length > 0,
        ),
    [report, only, bucket],
  );
  // An exchange opened by a deep link is always among the rows shown.
  const upTo = Math.max(shown, openIndex === null ? 0 : matching.findIndex((r) => r.index === openIndex) + 1);
  const rows = useMemo(() => matching.slice(0, upTo), [matching, upTo]);

  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };
  const showOnly = (on: boolean) => {
    setOnly(on);
    set({ only: on ? "1" : null, open: null });
  };
  const treatVolatileAsChanges = (on: boolean) => {
    setStrict(on);
    set({ strict: on ? "1" : null });
  };
  const toggleOpen = (index: number) => set({ open: openIndex === index ? null : String(index) });
  const showBucket = (b: Bucket | null) => set({ bucket: b, open: null });

  useEffect(() => {
    // Keep the keyboard selection on the opened exchange (deep links, clicks).
    if (openIndex === null) return;
    const at = rows.findIndex((r) => r.index === openIndex);
    if (at >= 0) setSelected(at);
  }, [openIndex, rows]);

  useKeys(
    (e) => {
      if (e.key === "j") setSelected((i) => Math.min(i + 1, rows.length - 1));
      else if (e.key === "k") setSelected((i) => Math.max(i - 1, 0));
      else if (e.key === "Enter" && rows[selected]) toggleOpen(rows[selected].index);
      else if (e.key === "Escape") set(openIndex === null && bucket !== null ? { bucket: null } : { open: null });
      else if (e.key === "d") showOnly(!only);
      else if (e.key === "v") treatVolatileAsChanges(!strict);
      else return;
      e.preventDefault();
    },
    [rows, selected, openIndex, only, strict, params, bucket],
  );

  useEffect(() => {
    document.querySelector(`[data-row-index="${selected}"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  if (error) {
    return (
      <section className="diff">
        <p className="error" data-testid="diff-error">
          {error}
        </p>
      </section>
    );
  }
  if (!report) return <p className="muted empty">Comparing #{a} and #{b}…</p>;
  const c = report.counts;
  const volatileCount = c.volatile ?? 0;
  // The report's `changed` count includes the volatile-only exchanges; unless they count, show them apart.
  const shownCounts: Record<string, number> = {
    ...c,
    changed: (c.changed ?? 0) - (report.strict_volatile ? 0 : volatileCount),
  };
  return (
    <section className="diff" data-testid="diff">
      <div className="toolbar diff-head">
        <h1>Diff</h1>
        <SessionRef s={sa} id={report.a} role="original" label={la} />
        <span className="muted">→</span>
        <SessionRef s={sb} id={report.b} role="replay" label={lb} />
        <span className={`badge verdict ${report.changed ? "status-changed" : "status-equal"}`} data-testid="verdict">
          {report.changed ? "behaviour changed" : "behaviour unchanged"}
        </span>
        <span className="grow" />
        <span className="counts" data-testid="counts">
          {STATUSES.map((s) => (
            <span key={s} className={`badge status-${s}`} data-testid={`count-${s}`}>
              {shownCounts[s] ?? 0} {s}
            </span>
          ))}
          <span
            className="badge status-volatile"
            data-testid="count-volatile"
            title={`${VOLATILE_TIP}; ${report.strict_volatile ? "counted among the changed" : "not counted as changes"}`}
          >
            {report.strict_volatile ? `of which ${volatileCount} volatile` : `${volatileCount} volatile`}
          </span>
        </span>
        <label className="check">
          <input
            type="checkbox"
            checked={only}
            onChange={(e) => showOnly(e.target.checked)}
            data-testid="only-diffs"
          />{" "}
          Only differences <kbd>d</kbd>
        </label>
        <label className="check" title={`Volatile values ${VOLATILE_TIP}; count them as changes (--strict-volatile)`}>
          <input
            type="checkbox"
            checked={strict}
            onChange={(e) => treatVolatileAsChanges(e.target.checked)}
            data-testid="strict-volatile"
          />{" "}
          Treat volatile as changes <kbd>v</kbd>
        </label>
        <Link className="button ghost" to={`/diff?${swapped(params)}`} title="Swap the two sides">
          ⇄ Swap
        </Link>
        <DiffReportButton a={report.a} b={report.b} />
      </div>
      {report.summary && (
        <RunsComparedSummary summary={report.summary} labels={[la, lb]} bucket={bucket} onBucket={showBucket} />
      )}
      <details className="ignored">
        <summary className="muted">Ignored paths ({report.ignored.length})</summary>
        <ul className="mono">
          {report.ignored.map((p) => (
            <li key={p} className={ignore.includes(p) ? "extra-ignore" : ""}>
              {p}
            </li>
          ))}
        </ul>
      </details>
      <div className="diff-list" role="list" aria-label="Exchanges">
        <div className="diff-row head">
          <span className="c-status">status</span>
          <span className="c-side">
            {la} #{report.a}
          </span>
          <span className="c-side">
            {lb} #{report.b}
          </span>
          <span className="c-nchanges">paths</span>
        </div>
        {rows.map(({ x, index }, i) => {
          const volatile = volatileOnly(x);
          const status = volatile && !report.strict_volatile ? "volatile" : x.status;
          return (
          <div key={index} role="listitem">
            <div
              className={`diff-row st-${status} ${i === selected ? "selected" : ""} ${openIndex === index ? "open" : ""}`}
              data-testid="diff-row"
              data-status={status}
              data-bucket={x.bucket}
              data-volatile={volatile ? "1" : undefined}
              data-summary={x.summary}
              data-row-index={i}
              tabIndex={0}
              aria-expanded={openIndex === index}
              onClick={() => {
                setSelected(i);
                toggleOpen(index);
              }}
              onFocus={() => setSelected(i)}
              onKeyDown={(e) => {
                if (e.key === " ") {
                  e.preventDefault();
                  toggleOpen(index);
                }
              }}
            >
              <span className="c-status">
                <span className={`badge status-${status}`} title={volatile ? VOLATILE_TIP : undefined}>
                  {status}
                </span>
                {(x.bucket === "regressed" || x.bucket === "fixed") && (
                  <span className={`badge bucket-${x.bucket}`} data-testid="bucket-badge">
                    {x.bucket}
                  </span>
                )}
                {volatile && status !== "volatile" && (
                  <span className="badge status-volatile" title={VOLATILE_TIP} data-testid="volatile-badge">
                    volatile
                  </span>
                )}
                {(x.interventions ?? []).length > 0 && (
                  <span
                    className="badge iv-injected"
                    data-testid="intervened-badge"
                    title={`${(x.interventions ?? []).join("; ")}: the client saw this when it was recorded; the server's own messages are compared`}
                  >
                    intervened
                  </span>
                )}
              </span>
              <SideCell x={x} seq={x.original_seq} />
              <SideCell x={x} seq={x.replay_seq} />
              <span className="c-nchanges muted">{x.changes.length || ""}</span>
            </div>
            {openIndex === index && (
              <ExchangeDetail report={report} x={x} labels={[la, lb]} key={`${report.a}-${report.b}-${index}`} />
            )}
          </div>
          );
        })}
        {matching.length > rows.length && (
          <div className="pager">
            <button onClick={() => setShown(upTo + PAGE)}>
              Show {Math.min(PAGE, matching.length - rows.length)} more of {matching.length - rows.length}
            </button>
          </div>
        )}
        {matching.length <= rows.length && report.next_cursor && (
          <div className="pager">
            <button
              onClick={() => {
                setShown(upTo + PAGE);
                more();
              }}
            >
              Show more
            </button>
          </div>
        )}
        {!rows.length && (
          <p className="empty">{bucket !== null ? `No ${bucket} exchanges.` : only ? "No differences." : "No exchanges."}</p>
        )}
      </div>
    </section>
  );
}

/** One page of the diff report (`next_cursor` of the last page, or null for the first). */
function fetchPage(a: string, b: string, ignoreKey: string, strict: boolean, equal: boolean, cursor: string | null) {
  const ignore = ignoreKey ? ignoreKey.split("\n") : undefined;
  const query = { a, b, ignore, strict_volatile: strict, equal, limit: PAGE, cursor: cursor ?? undefined };
  return api.GET("/api/diff", { params: { query } }).then(unwrap);
}

function swapped(params: URLSearchParams): string {
  const next = new URLSearchParams(params);
  next.set("a", params.get("b") ?? "");
  next.set("b", params.get("a") ?? "");
  if (params.has("la") || params.has("lb")) {
    next.set("la", params.get("lb") ?? "replay");
    next.set("lb", params.get("la") ?? "original");
  }
  next.delete("open");
  next.delete("bucket"); // swapped, regressed is fixed and new is removed
  return next.toString();
}

function SessionRef({ s, id, role, label }: { s: Session | null; id: number; role: string; label: string }) {
  return (
    <Link to={`/sessions/${id}`} className="session-ref" data-testid={`diff-${role}`} title={label}>
      <span className="muted">#{id}</span> {s ? s.name || shortTarget(s.target) : ""}{" "}
      {s && <span className="badge">{s.kind}</span>}
    </Link>
  );
}

function SideCell({ x, seq }: { x: ExchangeDiff; seq: number | null }) {
  if (seq === null) return <span className="c-side absent muted">—</span>;
  return (
    <span className="c-side">
      <span className="muted seq">#{seq}</span> <span className="dir">{arrows[x.direction] ?? ""}</span> {x.summary}
    </span>
  );
}

/** Where each change's path lands in one side's view: highlighted, or only opened (the parent of
 * something the other side has). */
function marksFor(
  side: "original" | "replay",
  x: ExchangeDiff,
  view: unknown,
  strict: boolean,
): { marks: Map<string, Mark>; reveal: string[] } {
  const marks = new Map<string, Mark>();
  const reveal: string[] = [];
  if (x.status === "missing" || x.status === "extra") {
    marks.set(locationId([]), x.status === "missing" ? "removed" : "added");
    return { marks, reveal };
  }
  for (const ch of x.changes) {
    if (!ch.segments) continue; // a path the server could not read: it is still listed above the JSON
    const where = resolve(view, ch.segments);
    const onThisSide = !(ch.kind === "added" && side === "original") && !(ch.kind === "removed" && side === "replay");
    if (where.found && onThisSide) marks.set(locationId(where.location), ch.volatile && !strict ? "volatile" : ch.kind);
    else reveal.push(locationId(where.location));
  }
  return { marks, reveal };
}

function ExchangeDetail({ report, x, labels }: { report: DiffReport; x: ExchangeDiff; labels: [string, string] }) {
  const [sides, setSides] = useState<{ original: DiffSide | null; replay: DiffSide | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = (session: number, seq: number | null) =>
      seq === null
        ? Promise.resolve(null)
        : api.GET("/api/diff/side", { params: { query: { session, seq } } }).then(unwrap);
    Promise.all([load(report.a, x.original_seq), load(report.b, x.replay_seq)]).then(
      ([original, replay]) => setSides({ original, replay }),
      (e: Error) => setError(e.message),
    );
  }, [report.a, report.b, x.original_seq, x.replay_seq]);
  return (
    <div className="exchange-detail" data-testid="exchange-detail">
      {(x.interventions ?? []).length > 0 && (
        <ul className="interventions" data-testid="exchange-interventions">
          {(x.interventions ?? []).map((t) => (
            <li key={t}>
              {t} <span className="muted">(not the server's doing: compared as the server sent and received it)</span>
            </li>
          ))}
        </ul>
      )}
      {x.changes.length > 0 && (
        <table className="changes" data-testid="changes">
          <tbody>
            {x.changes.map((ch) => (
              <tr key={ch.path + ch.kind} className={`ch-${ch.kind}`}>
                <td className="mono path" data-testid="change-path">
                  {ch.path}
                </td>
                <td>
                  <span className={`badge ch-badge ch-${ch.kind}`}>{ch.kind}</span>
                  {ch.volatile && (
                    <>
                      {" "}
                      <span className="badge status-volatile" title={VOLATILE_TIP} data-testid="volatile-badge">
                        volatile
                      </span>
                    </>
                  )}
                </td>
                {isCount(ch) ? (
                  <td colSpan={3} className="mono">
                    {String(ch.before)} → {String(ch.after)} received
                  </td>
                ) : (
                  <>
                    <td className="mono before">{ch.kind === "added" ? "" : short(ch.before)}</td>
                    <td className="muted">{ch.kind === "changed" ? "→" : ""}</td>
                    <td className="mono after">{ch.kind === "removed" ? "" : short(ch.after)}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {error && <p className="error">{error}</p>}
      {!sides && !error && <p className="muted">Loading both sides…</p>}
      {sides && (
        <div className="sides">
          <SidePane title={`${labels[0]} #${report.a}`} side={sides.original} x={x} which="original" sessionId={report.a} strict={report.strict_volatile} testId="side-original" />
          <SidePane title={`${labels[1]} #${report.b}`} side={sides.replay} x={x} which="replay" sessionId={report.b} strict={report.strict_volatile} testId="side-replay" />
        </div>
      )}
    </div>
  );
}

/** A change in how many notifications of one method a request got (the diff reports counts). */
function isCount(ch: ExchangeDiff["changes"][number]): boolean {
  return /^notifications\[[^\]]*\]$/.test(ch.path) && typeof (ch.before ?? ch.after) === "number";
}

function short(v: unknown): string {
  const text = JSON.stringify(v);
  return text === undefined ? "" : text.length > 120 ? text.slice(0, 117) + "…" : text;
}

function SidePane({
  title,
  side,
  x,
  which,
  sessionId,
  strict,
  testId,
}: {
  title: string;
  side: DiffSide | null;
  x: ExchangeDiff;
  which: "original" | "replay";
  sessionId: number;
  strict: boolean;
  testId: string;
}) {
  const found = side ? marksFor(which, x, side.view, strict) : null;
  return (
    <div className="side-pane" data-testid={testId}>
      <div className="side-title">
        <strong>{title}</strong>
        {side && (
          <span className="muted">
            {" "}
            <Link to={`/sessions/${sessionId}/messages/${side.seq}`}>#{side.seq}</Link>
            {side.answer_seq !== null && (
              <>
                {" ↔ "}
                <Link to={`/sessions/${sessionId}/messages/${side.answer_seq}`}>#{side.answer_seq}</Link>
              </>
            )}
          </span>
        )}
      </div>
      {side && found ? (
        <JsonDiffTree value={side.view} marks={found.marks} reveal={found.reveal} />
      ) : (
        <p className="muted empty">not in this session</p>
      )}
    </div>
  );
}
