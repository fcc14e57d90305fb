"""A small SDK server exposing an MCP App (`mcp.server.apps`): `show_weather` renders the
`ui://weather/view.html` view; `forecast` is a plain tool the view calls through its host.

The view speaks the App side of the Apps bridge by hand (postMessage JSON-RPC): `ui/initialize`,
then `ui/notifications/initialized`; it shows the tool input and result the host sends, then calls
`forecast` for the input's city (recorded) and for "Atlantis" (never recorded), asks the host to
open a link, and, when the input names a `probe` URL, tries to fetch it (its CSP declares no
connect domain, so a host must block it). Each outcome lands in an element the tests read.
"""

from __future__ import annotations

from mcp.server.apps import Apps
from mcp.server.mcpserver import MCPServer

VIEW_URI = "ui://weather/view.html"

VIEW_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Weather view</title>
<style>
 body { font: 14px system-ui, sans-serif; margin: 12px; color: #123; background: #eef6ff; }
 h2 { margin: 0 0 8px; font-size: 18px; } .row { margin: 4px 0; } b { color: #246; }
</style></head>
<body>
<h2>Weather view</h2>
<div class="row">Input: <span id="input">waiting for the host</span></div>
<div class="row">Result: <b id="result">waiting for the host</b></div>
<div class="row">Forecast: <span id="forecast">not asked yet</span></div>
<div class="row">Atlantis: <span id="atlantis">not asked yet</span></div>
<div class="row">Network: <span id="network">not tried</span></div>
<div class="row">Host page: <span id="isolation">not tried</span></div>
<script>
let next = 0;
const pending = new Map();
function send(msg) { window.parent.postMessage(msg, "*"); }
function request(method, params) {
  const id = ++next;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
function show(id, text) { document.getElementById(id).textContent = text; }
function textOf(result) {
  return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join(" ");
}
let input = null;
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  const msg = event.data;
  if (!msg || msg.jsonrpc !== "2.0") return;
  if (msg.id !== undefined && !msg.method) {
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (waiter) msg.error ? waiter.reject(msg.error) : waiter.resolve(msg.result);
    return;
  }
  if (msg.id !== undefined) { send({ jsonrpc: "2.0", id: msg.id, result: {} }); return; }
  if (msg.method === "ui/notifications/tool-input") {
    input = msg.params.arguments || {};
    show("input", JSON.stringify(input));
  } else if (msg.method === "ui/notifications/tool-result") {
    show("result", textOf(msg.params));
    followUp();
  }
});
async function followUp() {
  const city = (input && input.city) || "Paris";
  try {
    show("forecast", textOf(await request("tools/call", { name: "forecast", arguments: { city } })));
  } catch (e) { show("forecast", "error: " + e.message); }
  try {
    show("atlantis", textOf(await request("tools/call", { name: "forecast", arguments: { city: "Atlantis" } })));
  } catch (e) { show("atlantis", "error: " + e.message); }
  try { await request("ui/open-link", { url: "https://example.com/weather" }); } catch (e) {}
  if (input && input.probe) {
    try { await fetch(input.probe); show("network", "reached " + input.probe); }
    catch (e) { show("network", "blocked: " + e.name); }
  }
}
(() => {
  const out = [];
  try { window.parent.document.title; out.push("parent readable"); } catch (e) { out.push("parent blocked"); }
  try { window.sessionStorage.length; out.push("storage readable"); } catch (e) { out.push("storage blocked"); }
  show("isolation", out.join(", "));
})();
(async () => {
  await request("ui/initialize", {
    appInfo: { name: "weather-view", version: "1.0.0" },
    appCapabilities: {},
    protocolVersion: "2026-01-26",
  });
  send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
})();
</script>
</body></html>
"""

apps = Apps()


@apps.tool(resource_uri=VIEW_URI, description="The weather in a city, shown in a view")
def show_weather(city: str, probe: str = "") -> str:
    """`probe`: a URL the view tries to fetch (tests check that its CSP blocks it)."""
    return f"Sunny in {city}, 21 degrees"


apps.add_html_resource(VIEW_URI, VIEW_HTML, name="weather view", description="The weather, as a card")

server = MCPServer("weather-apps", extensions=[apps])


@server.tool()
def forecast(city: str) -> str:
    """Tomorrow's weather in `city`."""
    return f"Tomorrow in {city}: light rain"


if __name__ == "__main__":
    server.run("stdio")
