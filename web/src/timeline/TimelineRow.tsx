// One row of the timeline, memoised: a render of the timeline (a live push, a scroll event, a count
// change) renders again only the rows whose message, neighbour or marks changed. Its props are the
// row's own values and objects the timeline keeps stable (the row objects of the store, the
// conversations' marks, the pauses, the lint badges of a seq, one `RowActions`).
import { memo } from "react";
import type { LintBadge, Row } from "../api/client";
import { ConversationBadge, type SeqMark } from "../views/Conversations";
import type { RecordingPause } from "../views/RecordingPause";
import { interventionCell, lintCells, ROW_HEIGHT, rowCells } from "./rowCells";

export { ROW_HEIGHT };

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
  const iv = interventionCell(row);
  if (!iv) return null;
  if (iv.injected)
    return (
      <a
        className={iv.className}
        data-testid="iv-badge"
        data-iv={iv.iv}
        title={iv.title}
        onClick={(e) => {
          e.stopPropagation();
          onOriginal();
        }}
      >
        {iv.text}
      </a>
    );
  return (
    <span className={iv.className} data-testid="iv-badge" data-iv={iv.iv} title={iv.title}>
      {iv.text}
    </span>
  );
}

/** One badge per severity of a row's lint findings, the rules in its tooltip. */
function LintBadges({ row, known }: { row: Row; known?: LintBadge[] }) {
  return (
    <>
      {lintCells(row, known).map((b) => (
        <span key={b.severity} className={`lint-badge lint-${b.severity}`} title={b.title} data-testid="lint-badge" data-severity={b.severity}>
          {b.text}
        </span>
      ))}
    </>
  );
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
  // The cells come from `rowCells`, which the first rows drawn before the app (first/firstRows.ts)
  // read too: what is added here (selection, conversation, pause, intervention badge, the session's
  // findings) is what those rows cannot know yet.
  const c = rowCells(r, prevTs);
  return (
    <div
      role="row"
      data-testid="row"
      data-seq={r.seq}
      data-index={index}
      className={[
        c.className,
        selected ? "selected" : "",
        open ? "open" : "",
        inRange ? "in-range" : "",
        mark?.conversation ? `in-conv conv-${mark.conversation.role}` : "",
        pause ? "after-pause" : "",
      ]
        .filter(Boolean)
        .join(" ")}
      data-conv={mark?.conversation?.id}
      style={style}
      onMouseDown={(e) => e.shiftKey && e.preventDefault() /* no text selection on shift-click */}
      onClick={(e) => actions.click(index, r.seq, e.shiftKey)}
    >
      <span className="c-seq">{c.seq}</span>
      <span className="c-time">{c.time}</span>
      <span className="c-delta">{c.delta}</span>
      <span className="c-dir">{c.dir}</span>
      <span className={`c-kind kind-${c.kind}`}>{c.kind}</span>
      <span className="c-method" title={c.method}>
        {c.pair !== null && (
          <a
            className="pair-link"
            title={`answers #${r.answers_seq}`}
            onClick={(e) => {
              e.stopPropagation();
              actions.open(r.answers_seq!);
            }}
          >
            {c.pair}
          </a>
        )}
        {pause && (
          <span className="flag paused" data-testid="row-after-pause" title="recording was paused before this row">
            ⏸ {pause.messages_not_recorded} not recorded
          </span>
        )}
        {c.method}
        {c.flags.map((f) => (
          <span key={f} className="flag">
            {f}
          </span>
        ))}
        {c.errorCode !== null && <span className="flag err">{c.errorCode}</span>}
        {mark && <ConversationBadge mark={mark} onOpen={actions.open} />}
        <InterventionBadge row={r} onOriginal={() => actions.openOriginal(r.seq)} />
        <LintBadges row={r} known={lint} />
      </span>
      <span className="c-id">{c.id}</span>
      <span className="c-lat">{c.latency}</span>
      <span className="c-size">{c.size}</span>
    </div>
  );
}

export const TimelineRow = memo(TimelineRowView);
