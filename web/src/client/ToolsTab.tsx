// Tools: the server's list, a form generated from each tool's inputSchema (rjsf, validated with
// jsonschema before sending: formValidator.ts) or the raw JSON arguments, and the result by content type.
import Form from "@rjsf/core/lib/components/Form.js"; // not "@rjsf/core": its index imports Ajv (see formValidator.ts)
import type { RJSFSchema } from "@rjsf/utils";
import { formValidator as validator } from "./formValidator";
import { useEffect, useState } from "react";
import { ProgressBar } from "./Activity";
import { ResultView } from "./Content";
import { clientApi, rpcError, type Rpc } from "./api";
import { workApi, type Activity } from "./work";
import { LiveApp } from "../apps/LiveApp";

type Tool = {
  name: string;
  description?: string;
  inputSchema?: RJSFSchema;
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  _meta?: { ui?: { resourceUri?: unknown } };
};

export function ToolsTab({ clientId, activity }: { clientId: string; activity: Activity }) {
  const [tools, setTools] = useState<Tool[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Tool | null>(null);

  const load = () =>
    clientApi.request(clientId, "tools/list").then(
      (r) => {
        setError(rpcError(r));
        setTools(((r.result as { tools?: Tool[] })?.tools ?? []) as Tool[]);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => {
    load();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [clientId]);

  return (
    <div className="split">
      <ul className="item-list" aria-label="tools">
        <li className="muted small">
          {tools.length} tools <button onClick={load}>Refresh</button>
        </li>
        {tools.map((t) => (
          <li key={t.name}>
            <button className={selected?.name === t.name ? "link selected" : "link"} onClick={() => setSelected(t)}>
              {t.name}
            </button>
          </li>
        ))}
      </ul>
      <div className="pane">
        {error && <p className="error">{error}</p>}
        {selected ? (
          <ToolCall key={selected.name} clientId={clientId} tool={selected} activity={activity} />
        ) : (
          <p className="muted">Pick a tool.</p>
        )}
      </div>
    </div>
  );
}

function ToolCall({ clientId, tool, activity }: { clientId: string; tool: Tool; activity: Activity }) {
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [rawMode, setRawMode] = useState(false);
  const [rawText, setRawText] = useState("{}");
  const [rawError, setRawError] = useState<string | null>(null);
  const [response, setResponse] = useState<Rpc | null>(null);
  const [called, setCalled] = useState<Record<string, unknown>>({});
  const viewUri = tool._meta?.ui?.resourceUri;
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [progress, setProgress] = useState(true);
  const support = tool.execution?.taskSupport ?? "forbidden";
  const taskable = activity.features.task_tools && support !== "forbidden";
  const [asTask, setAsTask] = useState(support === "required");
  // The call in flight (the newest tools/call of this tool), for its progress bar.
  const running = [...activity.inflight]
    .reverse()
    .find((r) => r.method === "tools/call" && (r.params as { name?: string } | null)?.name === tool.name);

  async function call(arguments_: Record<string, unknown>) {
    setBusy(true);
    setResponse(null);
    setCalled(arguments_);
    setFailure(null);
    try {
      setResponse(
        taskable && asTask
          ? await workApi.callAsTask(clientId, tool.name, arguments_, progress)
          : await clientApi.request(clientId, "tools/call", { name: tool.name, arguments: arguments_ }, progress),
      );
    } catch (e) {
      setFailure((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const schema: RJSFSchema = { type: "object", ...(tool.inputSchema ?? {}) };
  return (
    <div className="tool-call">
      <h3>{tool.name}</h3>
      {tool.description && <p className="muted">{tool.description}</p>}
      <label className="check">
        <input
          type="checkbox"
          checked={rawMode}
          onChange={(e) => {
            setRawMode(e.target.checked);
            setRawText(JSON.stringify(args, null, 2));
          }}
        />
        raw JSON arguments
      </label>
      <label className="check">
        <input type="checkbox" checked={progress} onChange={(e) => setProgress(e.target.checked)} />
        report progress (send a progressToken)
      </label>
      {taskable && (
        <label className="check">
          <input type="checkbox" checked={asTask} disabled={support === "required"} onChange={(e) => setAsTask(e.target.checked)} />
          run as a task (taskSupport: {support}); follow it in the Tasks tab
        </label>
      )}
      {rawMode ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            try {
              const parsed = JSON.parse(rawText) as Record<string, unknown>;
              setRawError(null);
              call(parsed);
            } catch (err) {
              setRawError(`not valid JSON: ${(err as Error).message}`);
            }
          }}
        >
          <textarea className="wide-input code" rows={8} aria-label="arguments JSON" value={rawText} onChange={(e) => setRawText(e.target.value)} />
          {rawError && <p className="error">{rawError}</p>}
          <button type="submit" disabled={busy}>
            Call
          </button>
        </form>
      ) : (
        <Form
          schema={schema}
          validator={validator}
          formData={args}
          onChange={(e) => setArgs((e.formData ?? {}) as Record<string, unknown>)}
          onSubmit={(e) => call((e.formData ?? {}) as Record<string, unknown>)}
          showErrorList="top"
          noHtml5Validate
          uiSchema={{ "ui:submitButtonOptions": { submitText: busy ? "Calling…" : "Call", props: { disabled: busy } } }}
        />
      )}
      {busy && <p className="muted">Waiting for the response (answer server requests in the inbox)…</p>}
      {busy && running && <ProgressBar progress={running.progress} />}
      {failure && <p className="error">{failure}</p>}
      {response && <ResultView response={response} />}
      {response && typeof viewUri === "string" && viewUri.startsWith("ui://") && (
        <LiveApp clientId={clientId} tool={tool.name} uri={viewUri} input={called} response={response} />
      )}
    </div>
  );
}
