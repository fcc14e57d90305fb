// One message: its facts, pretty JSON (collapsible) and raw bytes (CodeMirror), its pair, copy and download.
import { lazy, Suspense, useEffect, useState } from "react";
import { Link } from "react-router";
import { download } from "../api/auth";
import { api, unwrap, type Detail, type Row } from "../api/client";
import { arrows, dateTime, duration, grouped, jsonTextDepth, size, TREE_DEPTH_LIMIT } from "../format";
import { JsonBlock } from "./Info";
import { MessageFindings } from "./MessageFindings";
import { interventionOf, interventionText } from "../timeline/interventions";
import { AppViewLink } from "../apps/AppsTab";
import { RoutingHeaders } from "./RoutingHeaders";

const PRETTY_LIMIT = 2_000_000;
// CodeMirror is most of the bundle: load it when a raw view is first opened.
const RawView = lazy(() => import("./RawView"));

export function MessageDetail({
  sessionId,
  seq,
  onOpen,
  onClose,
}: {
  sessionId: number;
  seq: number;
  onOpen: (seq: number) => void;
  onClose: () => void;
}) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState<"pretty" | "raw">("pretty");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    let alive = true;
    setError(null);
    api
      .GET("/api/sessions/{session_id}/messages/{seq}", { params: { path: { session_id: sessionId, seq } } })
      .then(unwrap)
      .then(
        (d) => alive && setDetail(d),
        (e: Error) => alive && setError(e.message),
      );
    return () => {
      alive = false;
    };
  }, [sessionId, seq]);

  if (error) return <aside className="detail"><p className="error">{error}</p></aside>;
  if (!detail || detail.message.seq !== seq) return <aside className="detail"><p className="muted">Loading #{seq}…</p></aside>;
  const m = detail.message;
  const text = m.raw ?? null;
  // An SSE row's raw bytes are the whole event (field lines, blank line); its JSON is `body`.
  const json = m.body ?? text;
  let parsed: unknown = undefined;
  // Past the depth limit the tree view (and JSON.stringify) would overflow the stack: raw text instead.
  const tooDeep = json !== null && m.size <= PRETTY_LIMIT && jsonTextDepth(json) > TREE_DEPTH_LIMIT;
  if (json !== null && m.size <= PRETTY_LIMIT && m.kind !== "log" && !tooDeep) {
    try {
      parsed = JSON.parse(json);
    } catch {
      parsed = undefined;
    }
  }
  const pretty = parsed !== undefined ? JSON.stringify(parsed, null, 2) : text ?? "";
  const dark = document.documentElement.dataset.theme === "dark";
  const copy = async () => {
    await navigator.clipboard.writeText(pretty);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  const flags = m.meta?.flags ?? [];
  const iv = interventionOf(m);
  return (
    <aside className="detail" data-testid="detail">
      <div className="detail-head">
        <h2>
          #{m.seq} <span className={`kind-${m.kind}`}>{m.kind}</span> {m.method ?? ""}
        </h2>
        <span className="grow" />
        <button className="ghost" onClick={onClose} aria-label="Close" title="Close (Esc)">
          ✕
        </button>
      </div>
      <dl className="facts">
        <dt>direction</dt>
        <dd>
          {arrows[m.direction]} <span className="muted">({m.channel})</span>
        </dd>
        <dt>time</dt>
        <dd>{dateTime(m.ts_ns)}</dd>
        {m.rpc_id !== null && (
          <>
            <dt>id</dt>
            <dd className="mono">{m.rpc_id}</dd>
          </>
        )}
        {m.latency_ns !== null && (
          <>
            <dt>latency</dt>
            <dd>{duration(m.latency_ns)}</dd>
          </>
        )}
        <dt>size</dt>
        <dd>{size(m.size)}</dd>
        <dt>parse</dt>
        <dd>
          {m.parse_status}
          {m.meta?.problem ? <span className="error"> {String(m.meta.problem)}</span> : null}
        </dd>
        {m.error_code !== null && (
          <>
            <dt>error code</dt>
            <dd className="error">{m.error_code}</dd>
          </>
        )}
        {iv && (
          <>
            <dt>intervention</dt>
            <dd data-testid="detail-intervention" className={iv.kind === "injected" ? "iv-injected" : iv.delivered ? "iv-changed" : "iv-undelivered"}>
              {interventionText(iv)}
              <div className="muted">
                {iv.kind === "injected"
                  ? "These bytes were sent by the inspector, not by the peer."
                  : iv.delivered
                    ? "The peer received these bytes (changed in timing or count)."
                    : "The peer never received these bytes."}
              </div>
              {(detail.intervention ?? [])
                .filter((r) => r.seq !== m.seq)
                .map((r) => {
                  const other = interventionOf(r);
                  return (
                    <a key={r.seq} className="iv-link" data-testid="iv-link" onClick={() => onOpen(r.seq)}>
                      {other?.kind === "intercept" ? "original" : "sent instead"} #{r.seq} {r.direction} {r.kind}
                    </a>
                  );
                })}
            </dd>
          </>
        )}
        {flags.length > 0 && (
          <>
            <dt>flags</dt>
            <dd>
              {flags.map((f) => (
                <span key={f} className="flag">
                  {f}
                </span>
              ))}
            </dd>
          </>
        )}
        {m.http_method && (
          <>
            <dt>HTTP</dt>
            <dd className="mono">
              {m.http_method} {m.http_path} {m.http_status ?? ""}
            </dd>
          </>
        )}
      </dl>
      <RoutingHeaders routing={detail.routing ?? null} />
      <div className="actions">
        {m.method === "tools/call" && <AppViewLink sessionId={sessionId} seq={m.kind === "request" ? m.seq : m.answers_seq} />}
        {detail.pair && (
          <button onClick={() => onOpen(detail.pair!.seq)} data-testid="jump-pair">
            Jump to pair #{detail.pair.seq} ({detail.pair.kind})
          </button>
        )}
        <button className="ghost" onClick={copy} disabled={!json}>
          {copied ? "Copied" : "Copy as JSON"}
        </button>
        {/* A plain link could not send the token header: the click fetches the bytes and saves them. */}
        <a
          className="button ghost"
          href={`/api/sessions/${sessionId}/messages/${seq}/raw`}
          download
          onClick={(e) => {
            e.preventDefault();
            void download(`/api/sessions/${sessionId}/messages/${seq}/raw`, `session${sessionId}-msg${seq}.bin`);
          }}
        >
          Download raw
        </a>
        {m.direction === "c2s" && m.kind !== "http" && m.kind !== "log" && (
          <Link className="button ghost" to={`/client/resend/${sessionId}/${seq}`}>
            Edit and resend
          </Link>
        )}
      </div>
      <MessageFindings sessionId={sessionId} message={m} />
      {detail.related.length > 0 && <RelatedList rows={detail.related} onOpen={onOpen} />}
      <div className="tabs small">
        <button className={tab === "pretty" ? "on" : ""} onClick={() => setTab("pretty")}>
          Pretty
        </button>
        <button className={tab === "raw" ? "on" : ""} onClick={() => setTab("raw")}>
          Raw
        </button>
      </div>
      {m.meta?.body === "not recorded (metadata only)" ? (
        <p className="muted" data-testid="body-not-recorded">
          body not recorded (metadata only): {grouped(m.size)} bytes on the wire
        </p>
      ) : tab === "pretty" ? (
        parsed !== undefined ? (
          <JsonBlock value={parsed} />
        ) : (
          <>
            {tooDeep && (
              <p className="muted" data-testid="detail-too-deep">
                nested deeper than {TREE_DEPTH_LIMIT} levels: shown as raw text
              </p>
            )}
            <pre className="mono raw-text">{text ?? "(binary: see Raw)"}</pre>
          </>
        )
      ) : text !== null ? (
        <Suspense fallback={<p className="muted">Loading editor…</p>}>
          <RawView text={m.size <= PRETTY_LIMIT ? text : text.slice(0, PRETTY_LIMIT)} dark={dark} />
        </Suspense>
      ) : (
        <pre className="mono raw-text">base64: {m.raw_base64}</pre>
      )}
    </aside>
  );
}

function RelatedList({ rows, onOpen }: { rows: Row[]; onOpen: (seq: number) => void }) {
  return (
    <div className="related">
      <h3>Related</h3>
      {rows.map((r) => (
        <a key={r.seq} onClick={() => onOpen(r.seq)}>
          #{r.seq} {r.kind} {r.method}
        </a>
      ))}
    </div>
  );
}
