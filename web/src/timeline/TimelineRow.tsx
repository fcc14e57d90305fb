// One row of the timeline, memoised: a render of the timeline (a live push, a scroll event, a count
// change) renders again only the rows whose message, neighbour or marks changed. Its props are the
// row's own values and objects the timeline keeps stable (the row objects of the store, the
// conversations' marks, the pauses, the lint badges of a seq, one `RowActions`).
import { memo } from "react";
import { lintOf, type LintBadge, type Row } from "../api/client";
import { arrows, clock, delta, duration, rowLabel, size } from "../format";
import { ConversationBadge, type SeqMark } from "../views/Conversations";
import type { RecordingPause } from "../views/RecordingPause";
import { interventionClass, interventionOf, interventionText } from "./interventions";

export const ROW_HEIGHT = 26;
const SEVERITIES = ["error", "warning", "info"] as const;
const DETAIL_PARAM: Record<string, RegExp> = {
  "tools/call": /"name"\s*:\s*"([^"]{1,60})"/,
  "prompts/get": /"name"\s*:\s*"([^"]{1,60})"/,
  "resources/read": /"uri"\s*:\s*"([^"]{1,80})"/,
};

/** What a click in a row does (one object for every row, kept across renders: the timeline's
 * handlers are read through it at click time, so they are not props that change every render). */
export interface RowActions {
  click: (index: number, seq: number, shift: boolean) => void;
  open: (seq: number) => void;
  openOriginal: (seq: number) => void;
}

/** Rows rendered since the page loaded, when `window.__countRowRenders` is set (tests read
 * `window.__rowRenders`): a render that changes no row must render none. */
function counted(): void {
  const w = window as { __countRowRenders?: boolean; __rowRenders?: number };
  if (w.__countRowRenders) w.__rowRenders = (w.__rowRenders ?? 0) + 1;
}

/** The timeline's mark of an intervention: "not delivered" (struck), "injected" (links to its original), "delayed". */
function InterventionBadge({ row, onOriginal }: { row: Row; onOriginal: () => void }) {
  const iv = interventionOf(row);
  if (!iv) return null;
  const text = interventionText(iv);
  if (iv.kind === "injected")
    return (
      <a
        className="iv-badge iv-injected"
        data-testid="iv-badge"
        data-iv="injected"
        title={`${text}: sent by the inspector, not by the peer. Click for the original.`}
        onClick={(e) => {
          e.stopPropagation();
          onOriginal();
        }}
      >
        injected
      </a>
    );
  const label = iv.delivered ? (iv.action === "delay" && iv.delayMs !== null ? `delayed ${iv.delayMs} ms` : text.split(" by ")[0]) : "not delivered";
  return (
    <span className={`iv-badge ${iv.delivered ? "iv-changed" : "iv-undelivered"}`} data-testid="iv-badge" data-iv={iv.delivered ? "changed" : "undelivered"} title={text}>
      {label} · {iv.delivered ? iv.who : `${iv.action} by ${iv.who}`}
    </span>
  );
}

/** One badge per severity of a row's lint findings, the rules in its tooltip. */
function LintBadges({ row, known }: { row: Row; known?: LintBadge[] }) {
  const badges = lintOf(row).length ? lintOf(row) : known ?? [];
  return (
    <>
      {SEVERITIES.map((sev) => {
        const rules = badges.filter((b) => b.severity === sev).map((b) => b.rule);
        if (!rules.length) return null;
        return (
          <span key={sev} className={`lint-badge lint-${sev}`} title={rules.join(", ")} data-testid="lint-badge" data-severity={sev}>
            {sev === "error" ? "✖" : sev === "warning" ? "▲" : "i"} {rules.length > 1 ? rules.length : rules[0]}
          </span>
        );
      })}
    </>
  );
}

function methodText(r: Row): string {
  const label = rowLabel(r);
  const re = r.kind === "request" && r.method ? DETAIL_PARAM[r.method] : undefined;
  const m = re?.exec(r.preview);
  return m ? `${label} ${m[1]}` : label;
}

export interface TimelineRowProps {
  index: number;
  /** Its message; undefined while its page loads (a placeholder). */
  row: Row | undefined;
  /** The message before it (its time gives the delta), if loaded. */
  prevTs: number | null;
  selected: boolean;
  open: boolean;
  inRange: boolean;
  mark: SeqMark | undefined;
  pause: RecordingPause | undefined;
  lint: LintBadge[] | undefined;
  actions: RowActions;
}

function TimelineRowView({ index, row: r, prevTs, selected, open, inRange, mark, pause, lint, actions }: TimelineRowProps) {
  counted();
  const style = { height: ROW_HEIGHT };
  if (!r)
    return (
      <div className="row loading" style={style}>
        <span className="c-seq muted">…</span>
      </div>
    );
  const flags = (r.meta?.flags as string[] | undefined) ?? [];
  const text = methodText(r);
  return (
    <div
      role="row"
      data-testid="row"
      data-seq={r.seq}
      data-index={index}
      className={[
        "row",
        `dir-${r.direction}`,
        `rk-${r.kind}`,
        r.channel === "stderr" ? "stderr" : "",
        selected ? "selected" : "",
        open ? "open" : "",
        inRange ? "in-range" : "",
        interventionClass(r),
        mark?.conversation ? `in-conv conv-${mark.conversation.role}` : "",
        pause ? "after-pause" : "",
      ].join(" ")}
      data-conv={mark?.conversation?.id}
      style={style}
      onMouseDown={(e) => e.shiftKey && e.preventDefault() /* no text selection on shift-click */}
      onClick={(e) => actions.click(index, r.seq, e.shiftKey)}
    >
      <span className="c-seq">{r.seq}</span>
      <span className="c-time">{clock(r.ts_ns)}</span>
      <span className="c-delta">{prevTs !== null ? delta(r.ts_ns - prevTs) : ""}</span>
      <span className="c-dir">{arrows[r.direction] ?? r.direction}</span>
      <span className={`c-kind kind-${r.kind}`}>{r.kind}</span>
      <span className="c-method" title={text}>
        {r.answers_seq !== null && (
          <a
            className="pair-link"
            title={`answers #${r.answers_seq}`}
            onClick={(e) => {
              e.stopPropagation();
              actions.open(r.answers_seq!);
            }}
          >
            ↳#{r.answers_seq}
          </a>
        )}
        {pause && (
          <span className="flag paused" data-testid="row-after-pause" title="recording was paused before this row">
            ⏸ {pause.messages_not_recorded} not recorded
          </span>
        )}
        {text}
        {flags.map((f) => (
          <span key={f} className="flag">
            {f}
          </span>
        ))}
        {r.error_code !== null && <span className="flag err">code {r.error_code}</span>}
        {mark && <ConversationBadge mark={mark} onOpen={actions.open} />}
        <InterventionBadge row={r} onOriginal={() => actions.openOriginal(r.seq)} />
        <LintBadges row={r} known={lint} />
      </span>
      <span className="c-id">{r.rpc_id ?? ""}</span>
      <span className="c-lat">{duration(r.latency_ns)}</span>
      <span className="c-size">{size(r.size)}</span>
    </div>
  );
}

export const TimelineRow = memo(TimelineRowView);
