// The access token: it arrives in the page URL's fragment (#token=..., which browsers never send), is kept in
// this tab's sessionStorage (its origin includes the port, unlike a cookie, so no other local server ever
// gets it) and goes to the API as `Authorization: Bearer`. Tabs opened without it (middle click, a bookmark)
// ask the other open tabs of this server for it over a BroadcastChannel (same origin only).
const KEY = "mcp-inspector-token";
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(KEY) : null;

/** The token of this tab, if it has one. */
export function token(): string | null {
  return sessionStorage.getItem(KEY);
}

export function setToken(value: string) {
  sessionStorage.setItem(KEY, value);
}

/** The headers that authorise an API call. */
export function authHeaders(): Record<string, string> {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

/** A same-server page URL that carries the token, for links that open a new tab (it has no sessionStorage). */
export function withToken(path: string): string {
  const t = token();
  return t ? `${path}#token=${encodeURIComponent(t)}` : path;
}

/** Move `#token=` from the address bar into sessionStorage; if there is none, ask the other tabs. */
export async function startAuth(): Promise<void> {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    setToken(given);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(history.state, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  }
  if (!channel) return;
  channel.onmessage = (e: MessageEvent<{ ask?: boolean; token?: string }>) => {
    const t = token();
    if (e.data.ask && t) channel.postMessage({ token: t });
  };
  if (token()) return;
  // No answer within a moment means no other tab of this server is open: the page then asks the person.
  await new Promise<void>((resolve) => {
    const done = () => {
      channel.removeEventListener("message", onAnswer);
      resolve();
    };
    const onAnswer = (e: MessageEvent<{ token?: string }>) => {
      if (e.data.token && !token()) setToken(e.data.token);
      if (e.data.token) done();
    };
    channel.addEventListener("message", onAnswer);
    channel.postMessage({ ask: true });
    setTimeout(done, 400);
  });
}

/** Save an API answer as a file (a plain link could not send the Authorization header). */
export async function download(path: string, filename: string): Promise<void> {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
