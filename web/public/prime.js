// The page's one classic script (a file: the CSP allows no inline script), run before the bundle and
// before the first paint. Two things, in this order:
//
// 1. The first page of a timeline, asked for before the app's bundle has loaded. On a large session the
//    bundle's loading and evaluation took as long as the request itself; the app takes this answer
//    (web/src/timeline/rowStore.ts `takeEarly`) when it asks for the same page. Only an unfiltered
//    timeline (or its deep link to a row) is asked for here: a filtered one starts from the bundle.
// 2. The theme (no flash of the wrong one). The server writes the choice kept in the `theme` cookie into
//    <html data-theme> (inspector/api/routes_pages.py); only without that cookie (a first visit, or a
//    choice kept in localStorage by an older build) is localStorage read, once, and the cookie set. A
//    page's first use of localStorage is a synchronous round trip to the browser process (10-45 ms
//    measured in Chromium, before the first row); it was theme.js's, on every load.
(function () {
  var m = /^\/sessions\/(\d+)(?:\/messages\/(\d+))?\/?$/.exec(location.pathname);
  if (!m || location.search.replace(/^\?/, "") !== "") return;
  var given = new URLSearchParams(location.hash.slice(1)).get("token");
  var token = given || sessionStorage.getItem("mcp-inspector-token");
  if (!token) return;
  var page = 200; // rowStore.ts PAGE
  var afterSeq = m[2] ? Math.floor((Number(m[2]) - 1) / page) * page : 0;
  window.__earlyPage = {
    session: Number(m[1]),
    afterSeq: afterSeq,
    limit: page,
    answer: fetch("/api/sessions/" + m[1] + "/messages?after_seq=" + afterSeq + "&limit=" + page + "&count=true", {
      headers: { Authorization: "Bearer " + token },
    }).then(
      function (r) { return r.ok ? r.json() : null; },
      function () { return null; },
    ),
  };
})();
(function () {
  var root = document.documentElement;
  var kept = root.dataset.theme; // "dark", "light" or "system", from the cookie; none without it
  if (kept === "dark" || kept === "light") return;
  var choice = kept === "system" ? null : localStorage.getItem("theme");
  root.dataset.theme = choice || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  if (kept !== "system") {
    document.cookie = "theme=" + (choice || "system") + "; path=/; max-age=31536000; samesite=strict";
  }
})();
