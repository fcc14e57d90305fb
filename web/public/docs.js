// The API docs page (/docs): Swagger UI, sending this tab's access token with every request it makes
// (the spec at /api/openapi.json included). The token arrives in the fragment (#token=...), as for the UI.
(function () {
  var KEY = "mcp-inspector-token";
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem(KEY, fragment.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  var token = sessionStorage.getItem(KEY) || "";
  SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    requestInterceptor: function (request) {
      if (token) request.headers.Authorization = "Bearer " + token;
      return request;
    },
  });
})();
