// The page's head script (a classic script, bundled on its own by vite.config.ts `headScript`: the
// CSP allows no inline script, and a hashed file is kept by the browser without asking again). It
// runs before the app's bundle has loaded, so on a new tab of a timeline:
// - it asks for the timeline's first page and the session at once (the app takes these answers when
//   it asks for the same: timeline/rowStore.ts `takeEarly`, views/hooks.ts `primeSession`); only an
//   unfiltered timeline or its deep link to a row is asked for here, a filtered one starts from the
//   bundle;
// - it draws the rows in view of that page where the list was last laid out (first/firstRows.ts),
//   until the app shows its own (not for a deep link: the app opens the row's detail beside a
//   narrower list);
// - it applies the saved theme before the first paint (no flash of the wrong theme); after the
//   requests, whose start the first read of localStorage (10-40 ms) would have delayed.
import type { Row } from "../api/client";
import { drawFirstRows, rowsAt } from "./firstRows";

const PAGE = 200; // timeline/rowStore.ts PAGE

type Page = { items: Row[]; total?: number | null };
type Early = Window & {
  __earlyPage?: { session: number; afterSeq: number; limit: number; answer: Promise<Page | null> };
  __earlySession?: { session: number; answer: Promise<unknown> };
};

function prime(): void {
  const m = /^\/sessions\/(\d+)(?:\/messages\/(\d+))?\/?$/.exec(location.pathname);
  if (!m || location.search.replace(/^\?/, "") !== "") return;
  const given = new URLSearchParams(location.hash.slice(1)).get("token");
  const token = given || sessionStorage.getItem("mcp-inspector-token");
  if (!token) return;
  const headers = { Authorization: `Bearer ${token}` };
  const json = (r: Response) => (r.ok ? r.json() : null);
  const none = () => null;
  const afterSeq = m[2] ? Math.floor((Number(m[2]) - 1) / PAGE) * PAGE : 0;
  const answer: Promise<Page | null> = fetch(`/api/sessions/${m[1]}/messages?after_seq=${afterSeq}&limit=${PAGE}&count=true`, {
    headers,
  }).then(json, none);
  const w = window as Early;
  w.__earlyPage = { session: Number(m[1]), afterSeq, limit: PAGE, answer };
  // The session's own facts (the page's header) too: the first render then holds the header above
  // the rows, not a "Loading" line the rows moved down from when it came (views/hooks.ts).
  w.__earlySession = { session: Number(m[1]), answer: fetch(`/api/sessions/${m[1]}`, { headers }).then(json, none) };
  if (m[2]) return;
  const at = rowsAt();
  if (!at) return;
  answer.then((page) => {
    if (!page || !Array.isArray(page.items)) return;
    const draw = () => drawFirstRows(page.items, at);
    // The page is small: its body is parsed long before the answer comes, but not when this script
    // itself waited on the network.
    if (document.body) draw();
    else document.addEventListener("readystatechange", draw, { once: true });
  }, none);
}

function theme(): void {
  document.documentElement.dataset.theme =
    localStorage.getItem("theme") || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
}

try {
  prime();
} finally {
  theme();
}
