// The connect form: a stdio command or a URL, the protocol revision (or a custom one), the client info,
// the capabilities to offer, extra HTTP headers, the request timeout and the inbox timeout.
import { useState } from "react";
import { VERSIONS, clientApi, type Json } from "./api";
import { cleanOptions, type OAuthOptions } from "./auth/api";
import { OAuthFields } from "./auth/OAuthFields";
import { PendingAuthorizations } from "./auth/PendingAuthorizations";
import { TargetPicker, emptyTarget, formTarget } from "../TargetPicker";

function capabilities(c: Record<string, boolean>): Json {
  const out: Json = {};
  if (c.roots) out.roots = { listChanged: c.rootsListChanged };
  if (c.sampling) out.sampling = c.samplingTools ? { tools: {} } : {};
  if (c.elicitForm || c.elicitUrl) {
    out.elicitation = { ...(c.elicitForm ? { form: {} } : {}), ...(c.elicitUrl ? { url: {} } : {}) };
  }
  return out;
}

export function ConnectForm({ onConnected }: { onConnected: (id: string) => void }) {
  const [fields, setFields] = useState(emptyTarget);
  const { mode, url } = fields;
  const [version, setVersion] = useState("2025-11-25");
  const [custom, setCustom] = useState("");
  const [caps, setCaps] = useState<Record<string, boolean>>({
    roots: true,
    rootsListChanged: true,
    sampling: true,
    samplingTools: false,
    elicitForm: true,
    elicitUrl: true,
  });
  const [clientName, setClientName] = useState("");
  const [clientVersion, setClientVersion] = useState("");
  const [headers, setHeaders] = useState("");
  const [timeout, setTimeoutS] = useState(60);
  const [inboxTimeout, setInboxTimeout] = useState(60);
  const [oauth, setOauth] = useState(false);
  const [oauthOptions, setOauthOptions] = useState<OAuthOptions>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const check = (key: string, label: string) => (
    <label className="check">
      <input type="checkbox" checked={caps[key]} onChange={(e) => setCaps({ ...caps, [key]: e.target.checked })} />
      {label}
    </label>
  );

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setError(null);
    const headerMap: Record<string, string> = {};
    for (const line of headers.split("\n")) {
      const at = line.indexOf(":");
      if (at > 0) headerMap[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    const target = formTarget(fields);
    if ("error" in target) {
      setError(target.error);
      return;
    }
    setBusy(true);
    try {
      const created = await clientApi.create({
        target,
        protocol_version: version === "custom" ? custom : version,
        capabilities: capabilities(caps),
        // Left empty: the inspector's own name and version.
        client_info:
          clientName.trim() || clientVersion.trim()
            ? { name: clientName.trim() || "mcp-inspector", version: clientVersion.trim() || "0" }
            : null,
        headers: headerMap,
        timeout,
        inbox_timeout: inboxTimeout,
        responders: {},
        auth: mode === "url" && oauth ? cleanOptions(oauthOptions) : null,
      });
      onConnected(created.id);
    } catch (err) {
      setError(String((err as Error).message));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="form connect-form card" onSubmit={submit} aria-label="connect">
      <h2>Connect to a server</h2>
      <TargetPicker value={fields} onChange={setFields} urlLabel="URL (HTTP)" />
      {mode === "url" && (
        <fieldset className="caps">
          <legend>
            <label className="check">
              <input type="checkbox" checked={oauth} onChange={(e) => setOauth(e.target.checked)} /> Authorize (OAuth)
            </label>
          </legend>
          {oauth && <OAuthFields value={oauthOptions} onChange={setOauthOptions} />}
        </fieldset>
      )}
      <label className="stack">
        Protocol version
        <select aria-label="protocol version" value={version} onChange={(e) => setVersion(e.target.value)}>
          {VERSIONS.map((v) => (
            <option key={v}>{v}</option>
          ))}
          <option value="custom">custom…</option>
        </select>
      </label>
      {version === "custom" && (
        <input aria-label="custom version" value={custom} onChange={(e) => setCustom(e.target.value)} />
      )}
      <fieldset className="caps">
        <legend>Client info (empty: mcp-inspector and its version)</legend>
        <input aria-label="client name" placeholder="name" value={clientName} onChange={(e) => setClientName(e.target.value)} />{" "}
        <input
          aria-label="client version"
          placeholder="version"
          value={clientVersion}
          onChange={(e) => setClientVersion(e.target.value)}
        />
      </fieldset>
      <fieldset className="caps">
        <legend>Capabilities</legend>
        {check("roots", "roots")} {check("rootsListChanged", "roots listChanged")} {check("sampling", "sampling")}{" "}
        {check("samplingTools", "sampling with tools")} {check("elicitForm", "elicitation form")}{" "}
        {check("elicitUrl", "elicitation url")}
      </fieldset>
      <label className="stack">
        Headers (one <code>Name: value</code> per line)
        <textarea aria-label="headers" rows={2} value={headers} onChange={(e) => setHeaders(e.target.value)} />
      </label>
      <label className="stack">
        Timeout (seconds)
        <input
          type="number"
          min={1}
          aria-label="timeout"
          value={timeout}
          onChange={(e) => setTimeoutS(Number(e.target.value))}
        />
      </label>
      <label className="stack">
        Inbox timeout (seconds a server request waits for your answer)
        <input
          type="number"
          min={1}
          aria-label="inbox timeout"
          value={inboxTimeout}
          onChange={(e) => setInboxTimeout(Number(e.target.value))}
        />
      </label>
      {error && <p className="error" role="alert">{error}</p>}
      {busy && mode === "url" && oauth && <PendingAuthorizations serverUrl={url.trim()} />}
      <div className="dialog-actions">
        <button type="submit" disabled={busy}>
          {busy ? "Connecting…" : "Connect"}
        </button>
      </div>
    </form>
  );
}
