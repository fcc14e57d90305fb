// The first page of a timeline and its session, asked for before the app's bundle has loaded (a
// classic script file: the CSP allows no inline script). On a large session the bundle's loading
// and evaluation took as long as the request itself; the app takes these answers
// (web/src/timeline/rowStore.ts `takeEarly`, web/src/views/hooks.ts `primeSession`) when it asks for
// the same. Only an unfiltered timeline (or its deep link to a row) is asked for here: a filtered one
// starts from the bundle, as before.
(function () {
  var m = /^\/sessions\/(\d+)(?:\/messages\/(\d+))?\/?$/.exec(location.pathname);
  if (!m || location.search.replace(/^\?/, "") !== "") return;
  var given = new URLSearchParams(location.hash.slice(1)).get("token");
  var token = given || sessionStorage.getItem("mcp-inspector-token");
  if (!token) return;
  var headers = { Authorization: "Bearer " + token };
  var json = function (r) { return r.ok ? r.json() : null; };
  var none = function () { return null; };
  var page = 200; // rowStore.ts PAGE
  var afterSeq = m[2] ? Math.floor((Number(m[2]) - 1) / page) * page : 0;
  window.__earlyPage = {
    session: Number(m[1]),
    afterSeq: afterSeq,
    limit: page,
    answer: fetch("/api/sessions/" + m[1] + "/messages?after_seq=" + afterSeq + "&limit=" + page + "&count=true", {
      headers: headers,
    }).then(json, none),
  };
  // The session's own facts (the page's header) too: the first render then holds the header above
  // the rows, not a "Loading" line the rows moved down from when it came (views/hooks.ts).
  window.__earlySession = {
    session: Number(m[1]),
    answer: fetch("/api/sessions/" + m[1], { headers: headers }).then(json, none),
  };
})();
