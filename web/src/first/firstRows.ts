// A timeline's first rows drawn before the app has loaded (issue #21: a new tab's first row).
//
// A new tab must load, compile and run react-dom and the app before React can show a row: on this
// project's 2-core machine that floor alone was 210-330 ms. The page's head script (first/prime.ts)
// already has the first page of rows by then, so it draws the rows in view with plain DOM calls
// where the timeline's list was when the app last laid it out (remembered here, per window size),
// and the app removes them in the same frame as it shows its own (`dropFirstRows`, from the
// timeline's layout effect). They show what the app's rows show of the message (`rowCells`), take
// no clicks (the app's rows do, a moment later), and are hidden from assistive technology.
//
// Never drawn: on a first visit or a window of another size (no place known), once the app has
// shown its rows, for a filtered timeline or a deep link (not asked for early), without rows.
import type { Row } from "../api/client";
import { interventionCell, lintCells, ROW_HEIGHT, rowCells } from "../timeline/rowCells";

export const FIRST_ROWS_ID = "first-rows";
const AT_KEY = "mcp-inspector-rows-at";

/** Where the timeline's row list was laid out, in a window of `w` x `h` px. */
export interface RowsAt {
  w: number;
  h: number;
  top: number;
  left: number;
  width: number;
  height: number;
}

type Flagged = Window & { __appRows?: boolean };

/** Keep where `list` (the timeline's row list, laid out) is, for the next page load's first rows. */
export function rememberRowsAt(list: Element): void {
  const r = list.getBoundingClientRect();
  const at: RowsAt = { w: innerWidth, h: innerHeight, top: r.top, left: r.left, width: r.width, height: r.height };
  try {
    const text = JSON.stringify(at);
    if (localStorage.getItem(AT_KEY) !== text) localStorage.setItem(AT_KEY, text);
  } catch {
    /* storage refused: no early rows next time */
  }
}

/** Where to draw, if the list's place is known for a window of this size. */
export function rowsAt(): RowsAt | null {
  try {
    const at = JSON.parse(localStorage.getItem(AT_KEY) ?? "null") as RowsAt | null;
    if (!at || at.w !== innerWidth || at.h !== innerHeight || !(at.height > 0 && at.width > 0)) return null;
    return at;
  } catch {
    return null;
  }
}

/** The app shows its own rows (or will show none): the early ones go, and none are drawn after. */
export function dropFirstRows(): void {
  (window as Flagged).__appRows = true;
  document.getElementById(FIRST_ROWS_ID)?.remove();
}

function el(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text; // text, never markup: the rows are recorded bytes
  return node;
}

/** One row as the app renders it for the same message (TimelineRow.tsx), without its handlers and
 * without test ids but its own (`first-row`): a test looking for the app's rows never finds these. */
export function rowElement(r: Row, prevTs: number | null): HTMLElement {
  const c = rowCells(r, prevTs);
  const row = el("div", c.className);
  row.dataset.testid = "first-row";
  row.dataset.seq = c.seq;
  row.style.height = `${ROW_HEIGHT}px`;
  const method = el("span", "c-method");
  method.title = c.method;
  if (c.pair !== null) {
    const pair = el("a", "pair-link", c.pair);
    pair.title = `answers #${r.answers_seq}`;
    method.append(pair);
  }
  method.append(c.method);
  for (const f of c.flags) method.append(el("span", "flag", f));
  if (c.errorCode !== null) method.append(el("span", "flag err", c.errorCode));
  const iv = interventionCell(r);
  if (iv) {
    const badge = el(iv.injected ? "a" : "span", iv.className, iv.text);
    badge.dataset.iv = iv.iv;
    badge.title = iv.title;
    method.append(badge);
  }
  for (const b of lintCells(r)) {
    const badge = el("span", `lint-badge lint-${b.severity}`, b.text);
    badge.dataset.severity = b.severity;
    badge.title = b.title;
    method.append(badge);
  }
  row.append(
    el("span", "c-seq", c.seq),
    el("span", "c-time", c.time),
    el("span", "c-delta", c.delta),
    el("span", "c-dir", c.dir),
    el("span", `c-kind kind-${c.kind}`, c.kind),
    method,
    el("span", "c-id", c.id),
    el("span", "c-lat", c.latency),
    el("span", "c-size", c.size),
  );
  return row;
}

/** Draw the rows of `items` (the timeline's first page) that fit where the list was; false if not drawn. */
export function drawFirstRows(items: Row[], at: RowsAt | null = rowsAt()): boolean {
  if (!at || !items.length || (window as Flagged).__appRows || document.getElementById(FIRST_ROWS_ID)) return false;
  const box = el("div", "rows first-rows");
  box.id = FIRST_ROWS_ID;
  box.setAttribute("aria-hidden", "true");
  Object.assign(box.style, {
    position: "fixed",
    top: `${at.top}px`,
    left: `${at.left}px`,
    width: `${at.width}px`,
    height: `${at.height}px`,
    pointerEvents: "none",
  });
  const rows = el("div", "rows-window");
  const fit = Math.min(items.length, Math.ceil(at.height / ROW_HEIGHT));
  for (let i = 0; i < fit; i++) rows.append(rowElement(items[i], i > 0 ? items[i - 1].ts_ns : null));
  box.append(rows);
  document.body.append(box);
  return true;
}
