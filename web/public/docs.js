// The API docs page (/docs): Swagger UI, sending this tab's access token with every request it makes
// (the spec at /api/openapi.json included). The token arrives in the fragment (#token=...), as for the UI;
// a tab opened without it asks the other open tabs of this server, as web/src/api/auth.ts does.
(function () {
  var KEY = "mcp-inspector-token";
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem(KEY, fragment.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }

  function start() {
    SwaggerUIBundle({
      url: "/api/openapi.json",
      dom_id: "#swagger-ui",
      validatorUrl: null,
      requestInterceptor: function (request) {
        var token = sessionStorage.getItem(KEY);
        if (token) request.headers.Authorization = "Bearer " + token;
        return request;
      },
    });
  }

  if (sessionStorage.getItem(KEY) || typeof BroadcastChannel !== "function") return start();
  var channel = new BroadcastChannel(KEY);
  var started = false;
  function once() {
    if (started) return;
    started = true;
    channel.close();
    start();
  }
  channel.onmessage = function (e) {
    if (!e.data || !e.data.token) return;
    sessionStorage.setItem(KEY, e.data.token);
    once();
  };
  channel.postMessage({ ask: true });
  setTimeout(once, 400);
})();
