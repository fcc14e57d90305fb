// "Start a mock server" on /serve: the UI runs `mcp-inspect serve --http 127.0.0.1:PORT` as its own child
// (recording into this UI's database), then shows the URL a client connects to and the stdio command line
// for a client's config; "Stop" ends the process and its sessions.
import { useCallback, useEffect, useState } from "react";
import { Snippet } from "../views/MockServerDialog";
import { serveApi, type ServeProcess, type ServeProcessList } from "./api";

const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
// `serve --auth-fault`: what the built-in authorization server gets wrong on purpose (docs/how-to/serve.md).
const AUTH_FAULTS = ["wrong-issuer", "resource-mismatch", "no-s256", "expired-token", "step-up"] as const;
type AuthFault = (typeof AUTH_FAULTS)[number];

export function StartServer({ onChange }: { onChange: () => void }) {
  const [list, setList] = useState<ServeProcessList | null>(null);
  const [source, setSource] = useState<"builtin" | "file">("builtin");
  const [path, setPath] = useState("");
  const [versions, setVersions] = useState<string[]>([]);
  const [port, setPort] = useState("");
  const [auth, setAuth] = useState(false);
  const [faults, setFaults] = useState<AuthFault[]>([]);
  const [approvePage, setApprovePage] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => serveApi.processes().then(setList, (e: Error) => setError(e.message)), []);
  useEffect(() => {
    load();
    // Slow: only to notice a process that exited by itself; starts and stops reload at once.
    const timer = window.setInterval(load, 10000);
    return () => window.clearInterval(timer);
  }, [load]);

  const start = async () => {
    setError(null);
    const portNumber = port.trim() ? Number(port.trim()) : null;
    if (portNumber !== null && !(Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65535)) {
      setError(`Port: ${port} is not a port number (1 to 65535), or leave it empty for a free one`);
      return;
    }
    if (source === "file" && !path.trim()) {
      setError("Scenario file: give the path of a YAML or JSON scenario on this machine");
      return;
    }
    setBusy(true);
    try {
      await serveApi.start({
        scenario: source === "file" ? path.trim() : null,
        protocolVersions: versions,
        port: portNumber,
        auth,
        authFaults: auth ? faults : [],
        approve: auth && approvePage ? "ui" : null,
      });
      await load();
      onChange();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const stop = (id: string) =>
    serveApi.stop(id).then(
      () => {
        load();
        onChange();
      },
      (e: Error) => setError(e.message),
    );

  return (
    <section className="serve-start" aria-label="Start a mock server">
      <h3>Start a mock server</h3>
      <div className="serve-form">
        <fieldset>
          <legend>Scenario</legend>
          <label>
            <input type="radio" checked={source === "builtin"} onChange={() => setSource("builtin")} /> Built-in
            scenario (every feature)
          </label>
          <label>
            <input type="radio" checked={source === "file"} onChange={() => setSource("file")} /> Scenario file
          </label>
          {source === "file" && (
            <input
              aria-label="Scenario file path"
              className="mono"
              placeholder="/path/to/scenario.yaml"
              value={path}
              onChange={(e) => setPath(e.target.value)}
            />
          )}
        </fieldset>
        <fieldset>
          <legend>Protocol versions (none checked: all five)</legend>
          {VERSIONS.map((v) => (
            <label key={v}>
              <input
                type="checkbox"
                checked={versions.includes(v)}
                onChange={(e) => setVersions(e.target.checked ? [...versions, v] : versions.filter((x) => x !== v))}
              />{" "}
              {v}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Authorization</legend>
          <label>
            <input type="checkbox" checked={auth} onChange={(e) => setAuth(e.target.checked)} /> Require OAuth (a
            built-in authorization server on the same origin)
          </label>
          {auth && (
            <>
              <label>
                <input type="checkbox" checked={approvePage} onChange={(e) => setApprovePage(e.target.checked)} />{" "}
                Ask on an approval page (else approve at once)
              </label>
              {AUTH_FAULTS.map((f) => (
                <label key={f}>
                  <input
                    type="checkbox"
                    checked={faults.includes(f)}
                    onChange={(e) => setFaults(e.target.checked ? [...faults, f] : faults.filter((x) => x !== f))}
                  />{" "}
                  fault: {f}
                </label>
              ))}
            </>
          )}
        </fieldset>
        <label>
          Port on 127.0.0.1
          <input
            aria-label="Port"
            inputMode="numeric"
            placeholder="a free one"
            value={port}
            onChange={(e) => setPort(e.target.value)}
          />
        </label>
        <div>
          <button onClick={start} disabled={busy}>
            {busy ? "Starting…" : "Start mock server"}
          </button>
        </div>
        {error && (
          <pre className="error start-error" role="alert">
            {error}
          </pre>
        )}
      </div>
      {list?.processes.map((p) => <ProcessCard key={p.id} process={p} stop={() => stop(p.id)} />)}
      {list && list.processes.length === 0 && (
        <details className="serve-stdio-builtin">
          <summary>For a stdio client: the command line to configure instead</summary>
          <Snippet
            text={JSON.stringify(list.builtinStdio.client_config, null, 2)}
            testId="serve-builtin-config"
            copyLabel="Copy config"
          />
          <Snippet text={list.builtinStdio.shell} testId="serve-builtin-stdio" copyLabel="Copy command" />
          <p className="muted small">
            Its connections appear below as clients. Recording database: <code>{list.db}</code>
          </p>
        </details>
      )}
    </section>
  );
}

function ProcessCard({ process: p, stop }: { process: ServeProcess; stop: () => void }) {
  return (
    <div className="result serve-process" data-state={p.state} data-id={p.id} data-pid={p.pid}>
      <div className="toolbar">
        <strong>Mock server {p.id}</strong>
        <span className="badge">{p.state}</span>
        <span className="muted">
          {p.scenario ?? "built-in scenario"} · {p.protocolVersions.length ? p.protocolVersions.join(", ") : "all versions"}{" "}
          · pid {p.pid}
          {p.auth?.length ? ` · authorization: ${p.auth.join(" ")}` : ""}
        </span>
        <span className="grow" />
        <button onClick={stop}>{p.state === "exited" ? "Dismiss" : "Stop"}</button>
      </div>
      {p.url && p.state !== "exited" && (
        <>
          <p className="muted">Point your client at (Streamable HTTP):</p>
          <Snippet text={p.url} testId="serve-url" copyLabel="Copy URL" />
        </>
      )}
      {p.state === "exited" && (
        <>
          <p className="error">The process exited (status {String(p.exitCode)}). Its last output:</p>
          <pre className="mono">{p.output.join("\n")}</pre>
        </>
      )}
      <details open>
        <summary>For a stdio client: the same scenario as a command in its config</summary>
        <Snippet
          text={JSON.stringify(p.stdio.client_config, null, 2)}
          testId="serve-stdio-config"
          copyLabel="Copy config"
        />
        <Snippet text={p.stdio.shell} testId="serve-stdio" copyLabel="Copy command" />
      </details>
    </div>
  );
}
