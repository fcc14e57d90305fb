// The rows of a list of equal-height rows that are in view: a window over `count` rows, computed from
// the scroll offset alone. A general virtualiser (@tanstack/react-virtual, used before) keeps a
// measurement per row and rebuilds it whenever the count changes: at 100,000 rows that was the
// biggest script cost of opening a timeline (the profile's getMeasurements/estimateSize), and it
// grows with the session. Here the work is per visible row, whatever the count.
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from "react";

export interface WindowRow {
  index: number;
  /** Its offset from the top of the list, in px. */
  start: number;
  key: number;
}

// Pinned to the tail, no rows out of view: each frame of a fast tail gives every rendered row new text
// to lay out and paint (4 rows of overscan above the view were ~11% of that frame's rows).
const PINNED_OVERSCAN = 0;

export type Align = "start" | "center" | "end" | "auto";

export interface FixedRows {
  /** The rows to render: those in view and `overscan` more on each side. */
  items: WindowRow[];
  /** The height of the whole list, in px (fixed by the count: no layout shift while rows load). */
  totalSize: number;
  /** The rows in view (no overscan). */
  range: { startIndex: number; endIndex: number };
  scrollToIndex: (index: number, options?: { align?: Align }) => void;
}

/** The window of rows of height `rowHeight` shown by the scrolling element `scroller`. `pinEnd`: the
 * window is the last rows (a live tail being followed), rendered at once and scrolled to before
 * paint, instead of scrolling there after a render and rendering the new window again on the scroll
 * event (which also read the layout while it was dirty: two layouts and two renders per update). */
export function useFixedRows(
  scroller: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan: number,
  pinEnd = false,
  rememberAs?: string,
): FixedRows {
  // Until the list is measured, its height is taken as the window's and no overscan is rendered: the
  // first render shows the rows in view without reading the layout. Reading it at mount (as before)
  // forced the page's first style and layout inside React's commit, before the rows could even be
  // painted, and then rendered the list a second time (the profile of a timeline's open: the biggest
  // piece of its main-thread task after React itself). The ResizeObserver's first callback, which
  // comes after the browser's own layout, measures it. A followed tail (`pinEnd`) reads it at once:
  // its scroll position depends on the height.
  // With `rememberAs`, the first render takes the list's height as the window's less what the page
  // around the list took when it was last measured (kept in localStorage under that name): a
  // timeline's list starts below the session's header and toolbar (~280 px of an 860 px window), so
  // the window's height rendered a third more rows than are in view, in the render a new tab's first
  // row waits for. If the page is laid out otherwise this time, the rows it lacks come with the
  // measurement, one frame later, like the overscan.
  const [around] = useState(() => (rememberAs ? aroundOf(rememberAs) : 0));
  const [view, setView] = useState({ top: 0, height: 0, measured: false });
  useLayoutEffect(() => {
    const node = scroller.current;
    if (!node) return;
    const read = () =>
      setView((v) =>
        v.measured && v.top === node.scrollTop && v.height === node.clientHeight
          ? v
          : { top: node.scrollTop, height: node.clientHeight, measured: true },
      );
    node.addEventListener("scroll", read, { passive: true });
    const resize = new ResizeObserver(() => {
      if (rememberAs) remember(rememberAs, window.innerHeight - node.clientHeight);
      read();
    });
    resize.observe(node);
    return () => {
      node.removeEventListener("scroll", read);
      resize.disconnect();
    };
  }, [scroller, rememberAs]);
  useLayoutEffect(() => {
    if (pinEnd && !view.measured && scroller.current) {
      const node = scroller.current;
      setView({ top: node.scrollTop, height: node.clientHeight, measured: true });
    }
  }, [pinEnd, view.measured, scroller]);
  const height = view.measured ? view.height : typeof window === "undefined" ? 0 : Math.max(rowHeight, window.innerHeight - around);
  // Pinned while the view is where the last pin left it; rows coming pin it again (as following
  // did before: it scrolled back to the end on every new row), a scroll away alone does not.
  const pin = useRef({ count: -1, top: -1 });
  const atTail = pinEnd && (count !== pin.current.count || view.top >= pin.current.top - 1);
  const top = atTail ? Math.max(0, count * rowHeight - height) : view.top;
  useLayoutEffect(() => {
    const node = scroller.current;
    if (!atTail || !node) return;
    pin.current = { count, top };
    if (Math.abs(node.scrollTop - top) >= 1) node.scrollTop = top;
  }, [atTail, count, top, scroller]);
  const last = count - 1;
  const first = Math.max(0, Math.min(Math.floor(top / rowHeight), last));
  const end = Math.min(last, Math.ceil((top + height) / rowHeight) - 1);
  const items: WindowRow[] = [];
  // Pinned, every update of a fast tail brings new rows into the whole window: no overscan (as
  // many rows as the view shows) instead of `overscan` halves what each frame renders, lays out
  // and paints.
  const extra = !view.measured ? 0 : atTail ? Math.min(overscan, PINNED_OVERSCAN) : overscan;
  for (let i = Math.max(0, first - extra); i <= Math.min(last, end + extra); i++)
    items.push({ index: i, start: i * rowHeight, key: i });
  const scrollToIndex = useCallback(
    (index: number, { align = "auto" }: { align?: Align } = {}) => {
      const node = scroller.current;
      if (!node) return;
      const top = index * rowHeight;
      const height = node.clientHeight;
      let to: number;
      if (align === "start") to = top;
      else if (align === "end") to = top + rowHeight - height;
      else if (align === "center") to = top + rowHeight / 2 - height / 2;
      else if (top < node.scrollTop) to = top;
      else if (top + rowHeight > node.scrollTop + height) to = top + rowHeight - height;
      else return;
      node.scrollTop = Math.max(0, to);
    },
    [scroller, rowHeight],
  );
  return { items, totalSize: Math.max(count, 0) * rowHeight, range: { startIndex: first, endIndex: Math.max(end, first) }, scrollToIndex };
}

const AROUND_KEY = "mcp-inspector-around-";

/** The height the page around list `name` took when last measured (0 if never, or unreadable). */
function aroundOf(name: string): number {
  try {
    const px = Number(localStorage.getItem(AROUND_KEY + name));
    return Number.isFinite(px) && px > 0 ? px : 0;
  } catch {
    return 0; // storage refused (a sandboxed frame, a browser's privacy setting)
  }
}

function remember(name: string, px: number): void {
  const kept = Math.max(0, Math.round(px));
  try {
    if (localStorage.getItem(AROUND_KEY + name) !== String(kept)) localStorage.setItem(AROUND_KEY + name, String(kept));
  } catch {
    /* not kept: the next first render takes the window's height */
  }
}
