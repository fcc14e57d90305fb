// The timeline's rows: a sparse cache of pages fetched on demand, so a 100,000-message
// session opens with one request and scrolls by fetching only the pages that come into view.
//
// Without a filter, row i is message seq i + 1 (seq is gap-free): pages are fetched by
// `after_seq`, an index lookup however deep. With a filter, pages are fetched by offset.
import { api, filterQuery, isEmptyFilter, unwrap, type Filter, type Row } from "../api/client";

export const PAGE = 200;

type Page = { items: Row[]; total?: number | null };

/** The page first/prime.ts asked for before the bundle ran, if it is this one (taken once). */
async function takeEarly(sessionId: number, afterSeq: number): Promise<Page | null> {
  const w = window as { __earlyPage?: { session: number; afterSeq: number; limit: number; answer: Promise<Page | null> } };
  const early = w.__earlyPage;
  if (!early || early.session !== sessionId || early.afterSeq !== afterSeq || early.limit !== PAGE) return null;
  delete w.__earlyPage;
  const page = await early.answer;
  return page && Array.isArray(page.items) ? page : null;
}

export class RowStore {
  total = 0;
  loaded = false;
  error: string | null = null;
  private pages = new Map<number, Row[]>();
  private loading = new Set<number>();
  private fetchedAtTotal = new Map<number, number>(); // page -> the total when it was last fetched
  private listeners = new Set<() => void>();
  private version = 0;
  private recountTimer: number | null = null;
  private liveTail = new Map<number, Row>(); // seq -> live row that came after a gap (insertion order)
  private readonly unfiltered: boolean;

  constructor(
    readonly sessionId: number,
    readonly filter: Filter,
  ) {
    this.unfiltered = isEmptyFilter(filter);
  }

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getVersion = () => this.version;

  private changed() {
    this.version++;
    for (const fn of this.listeners) fn();
  }

  row(index: number): Row | undefined {
    // (live rows that came after a gap show at the tail until their page is fetched)
    return this.pages.get(Math.floor(index / PAGE))?.[index % PAGE] ?? this.liveTail.get(index + 1);
  }

  private started: Promise<void> | null = null;

  /** Fetch the total and the page holding row `startIndex` (the first, or a deep link's row): one request. */
  init(startIndex = 0): Promise<void> {
    this.started ??= this.fetchPages(Math.floor(Math.max(startIndex, 0) / PAGE), 1, true).then(
      () => {
        this.loaded = true;
        this.changed();
      },
      (e) => {
        this.error = String((e as Error).message ?? e);
        this.changed();
      },
    );
    return this.started;
  }

  /** Make sure the rows from `start` to `end` (inclusive) are loaded or loading: the missing pages
   * next to each other come in one request (a jump to the end is one request, one render). */
  ensure(start: number, end: number): void {
    let run: number | null = null;
    const flush = (upto: number) => {
      if (run === null) return;
      this.fetchPages(run, upto - run, false).then(
        () => this.changed(),
        (e) => {
          this.error = String((e as Error).message ?? e);
          this.changed();
        },
      );
      run = null;
    };
    const lastPage = Math.floor(end / PAGE);
    for (let p = Math.floor(start / PAGE); p <= lastPage; p++) {
      if (p * PAGE >= this.total) {
        flush(p);
        break;
      }
      const have = this.pages.get(p);
      const complete = have && (have.length === PAGE || p * PAGE + have.length >= this.total);
      // An incomplete page is fetched again only once the total has grown since its last fetch.
      const stale = !have || this.fetchedAtTotal.get(p) !== this.total;
      if (!complete && stale && !this.loading.has(p)) run ??= p;
      else flush(p);
      if (p === lastPage) flush(p + 1);
    }
  }

  /** Pages `p` .. `p + n - 1` in one request (with the total when `count`). */
  private async fetchPages(p: number, n: number, count: boolean): Promise<void> {
    for (let k = p; k < p + n; k++) this.loading.add(k);
    const totalBefore = this.total;
    try {
      const query = this.unfiltered
        ? { after_seq: p * PAGE, limit: n * PAGE, count }
        : { ...filterQuery(this.filter), offset: p * PAGE, limit: n * PAGE, count };
      const page =
        (this.unfiltered && count && n === 1 ? await takeEarly(this.sessionId, p * PAGE) : null) ??
        unwrap(
          await api.GET("/api/sessions/{session_id}/messages", {
            params: { path: { session_id: this.sessionId }, query },
          }),
        );
      if (page.total !== null && page.total !== undefined)
        this.total = this.unfiltered ? Math.max(this.total, page.total) : page.total;
      else this.total = Math.max(this.total, p * PAGE + page.items.length);
      for (let k = p; k < p + n; k++) {
        let items = page.items.slice((k - p) * PAGE, (k - p + 1) * PAGE);
        if (!items.length && k > p) break;
        const prev = this.pages.get(k);
        // Live rows appended while this request was out are newer than its answer: keep them (both
        // run from the page's first row, so the longer one extends the shorter).
        if (this.unfiltered && prev && prev.length > items.length) items = items.concat(prev.slice(items.length));
        if (this.unfiltered) items = this.extendFromLive(k, items);
        this.pages.set(k, items);
        // Had the total grown meanwhile, the answer may miss rows: the page counts as fetched at the
        // older total, so `ensure` asks again instead of leaving placeholders for good.
        this.fetchedAtTotal.set(k, this.total === totalBefore ? this.total : totalBefore);
      }
    } finally {
      for (let k = p; k < p + n; k++) this.loading.delete(k);
    }
  }

  /** New rows from the live feed (any order, maybe with gaps); `count` is the session's message count
   * (also from a `behind` marker: rows up to it exist, fetched by `ensure` when they come into view).
   * Called once per animation frame with that frame's rows. */
  applyLive(rows: Row[], count: number | null): void {
    if (this.unfiltered) {
      for (const r of rows) {
        const i = r.seq - 1;
        const p = Math.floor(i / PAGE);
        const page = this.pages.get(p);
        // Only extend a page at its end: a gap is fetched by `ensure` when it comes into view.
        if (page && page.length === i % PAGE) page.push(r);
        else if (!page && i % PAGE === 0) this.pages.set(p, [r]);
        else if (!page || page.length < i % PAGE) this.liveTail.set(r.seq, r); // after a gap
        this.total = Math.max(this.total, r.seq);
      }
      // The rows kept after a gap: the newest few pages' worth (what a fetch of the tail can use).
      for (const seq of this.liveTail.keys()) {
        if (this.liveTail.size <= 2 * PAGE) break;
        this.liveTail.delete(seq);
      }
      if (count !== null) this.total = Math.max(this.total, count);
      this.changed();
      return;
    }
    // Which new rows match is the server's to say (one filter: `MessageFilter`), so new rows or a new
    // count ask it again (debounced), as does a (re)connection under a text search.
    if (rows.length || count !== null || this.filter.q) this.recount();
  }

  /** A fetched page of the tail, extended by the live rows that came after a gap and follow on from
   * its end (rows that arrived while the page was missing or being fetched). */
  private extendFromLive(p: number, items: Row[]): Row[] {
    if (!this.liveTail.size || items.length >= PAGE) return items;
    let next = p * PAGE + items.length + 1;
    let out = items;
    while (out.length < PAGE && this.liveTail.has(next)) {
      if (out === items) out = items.slice();
      out.push(this.liveTail.get(next)!);
      this.liveTail.delete(next++);
    }
    return out;
  }

  /** Filtered views ask the server again (debounced): the last page and the total may have grown. */
  private recount() {
    if (this.recountTimer !== null) return;
    this.recountTimer = window.setTimeout(async () => {
      this.recountTimer = null;
      const last = Math.floor(Math.max(this.total - 1, 0) / PAGE);
      this.pages.delete(last);
      try {
        await this.fetchPages(last, 1, true);
      } catch {
        /* the next update retries */
      }
      this.changed();
    }, 300);
  }

  /** The index of a message under this store's filter (asks the server unless the row is loaded). */
  async indexOf(seq: number): Promise<{ index: number; matches: boolean }> {
    if (this.unfiltered) return { index: seq - 1, matches: true };
    for (const [p, rows] of this.pages) {
      const k = rows.findIndex((r) => r.seq === seq);
      if (k >= 0) return { index: p * PAGE + k, matches: true };
    }
    const pos = unwrap(
      await api.GET("/api/sessions/{session_id}/messages/{seq}/position", {
        params: { path: { session_id: this.sessionId, seq }, query: filterQuery(this.filter) },
      }),
    );
    return { index: pos.index, matches: pos.matches };
  }

  dispose() {
    if (this.recountTimer !== null) clearTimeout(this.recountTimer);
    this.listeners.clear();
  }
}
