// The frame around every view: the top bar, and the token prompt when the API refuses us.
import { useEffect, useState } from "react";
import { Link, Outlet } from "react-router";
import { authHeaders, setToken as keepToken, withToken } from "../api/auth";
import { ThemeToggle } from "../theme";

export function Shell() {
  const [authorised, setAuthorised] = useState<boolean | null>(null);
  useEffect(() => {
    fetch("/api/sessions?limit=1", { headers: authHeaders() }).then(
      (r) => setAuthorised(r.status !== 401),
      () => setAuthorised(true),
    );
  }, []);
  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand">
          <img src="/favicon.svg" alt="" width={20} height={20} /> mcp-inspector
        </Link>
        <Link to="/client" className="nav-link">
          Connect
        </Link>
        <Link to="/serve" className="nav-link">Mock server</Link>
        <Link to="/versions" className="nav-link" data-testid="nav-versions">Versions</Link>
        <Link to="/storage" className="nav-link" data-testid="nav-storage">Storage</Link>
        <Link to="/search" className="nav-link" data-testid="nav-search">Search</Link>
        <Link to="/hosts" className="nav-link" data-testid="nav-hosts">Hosts</Link>
        <span className="grow" />
        {/* A new tab has no sessionStorage of its own: the link carries the token in its fragment. */}
        <a href={withToken("/docs")} target="_blank" rel="noreferrer" className="muted">
          API
        </a>
        <ThemeToggle />
      </header>
      <main className="content">
        {authorised === false ? <TokenPrompt /> : <Outlet />}
      </main>
    </div>
  );
}

function TokenPrompt() {
  const [token, setToken] = useState("");
  return (
    <form
      className="token-prompt"
      onSubmit={(e) => {
        e.preventDefault();
        keepToken(token.trim());
        window.location.reload();
      }}
    >
      <h2>Access token needed</h2>
      <p>
        Open the URL that <code>mcp-inspect ui</code> printed (it ends in <code>#token=…</code>), or paste the
        token here.
      </p>
      <input autoFocus value={token} onChange={(e) => setToken(e.target.value)} placeholder="token" />
      <button type="submit">Open</button>
    </form>
  );
}
