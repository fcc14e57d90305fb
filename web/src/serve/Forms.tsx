// Composers for sampling, roots, logging, raw messages, and the live tool list.
import { useState } from "react";
import type { Json, ServedClient } from "./api";
import { parseJson } from "./api";

type Send = (method: string, params: Json | null) => void;

function useErrors() {
  const [error, setError] = useState<string | null>(null);
  const guard = (fn: () => void) => {
    setError(null);
    try {
      fn();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { error, guard };
}

const DEFAULT_MESSAGES = JSON.stringify([{ role: "user", content: { type: "text", text: "Hello, model!" } }], null, 2);
const DEFAULT_TOOLS = JSON.stringify(
  [{ name: "get_weather", description: "Weather for a city", inputSchema: { type: "object", properties: { city: { type: "string" } } } }],
  null,
  2,
);

export function SamplingForm({ send }: { send: Send }) {
  const [messages, setMessages] = useState(DEFAULT_MESSAGES);
  const [systemPrompt, setSystemPrompt] = useState("");
  const [maxTokens, setMaxTokens] = useState(200);
  const [hints, setHints] = useState("");
  const [intelligence, setIntelligence] = useState("");
  const [withTools, setWithTools] = useState(false);
  const [tools, setTools] = useState(DEFAULT_TOOLS);
  const [toolChoice, setToolChoice] = useState("auto");
  const { error, guard } = useErrors();
  const submit = () =>
    guard(() => {
      const params: Json = { messages: parseJson(messages, "messages"), maxTokens };
      if (systemPrompt) params.systemPrompt = systemPrompt;
      const names = hints.split(",").map((h) => h.trim()).filter(Boolean);
      if (names.length || intelligence) {
        params.modelPreferences = {
          ...(names.length ? { hints: names.map((name) => ({ name })) } : {}),
          ...(intelligence ? { intelligencePriority: Number(intelligence) } : {}),
        };
      }
      if (withTools) {
        params.tools = parseJson(tools, "tools");
        if (toolChoice) params.toolChoice = { mode: toolChoice };
      }
      send("sampling/createMessage", params);
    });
  return (
    <div className="serve-form" aria-label="Sampling">
      <label>
        Messages (JSON)
        <textarea aria-label="Sampling messages" className="code" rows={6} value={messages} onChange={(e) => setMessages(e.target.value)} />
      </label>
      <label>
        System prompt <input aria-label="System prompt" value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} />
      </label>
      <label>
        Max tokens{" "}
        <input aria-label="Max tokens" type="number" value={maxTokens} onChange={(e) => setMaxTokens(Number(e.target.value))} />
      </label>
      <label>
        Model hints <input aria-label="Model hints" placeholder="claude, gpt" value={hints} onChange={(e) => setHints(e.target.value)} />
      </label>
      <label>
        Intelligence priority (0-1){" "}
        <input aria-label="Intelligence priority" value={intelligence} onChange={(e) => setIntelligence(e.target.value)} />
      </label>
      <label>
        <input type="checkbox" checked={withTools} onChange={(e) => setWithTools(e.target.checked)} /> with tools
      </label>
      {withTools && (
        <>
          <textarea aria-label="Sampling tools" className="code" rows={6} value={tools} onChange={(e) => setTools(e.target.value)} />
          <label>
            Tool choice{" "}
            <select aria-label="Tool choice" value={toolChoice} onChange={(e) => setToolChoice(e.target.value)}>
              <option value="">(none given)</option>
              <option>auto</option>
              <option>required</option>
              <option>none</option>
            </select>
          </label>
        </>
      )}
      {error && <p className="error">{error}</p>}
      <button className="primary" onClick={submit}>
        Send sampling/createMessage
      </button>
    </div>
  );
}

export function RootsForm({ send }: { send: Send }) {
  return (
    <div className="serve-form">
      <p className="muted">Ask the client for its roots; they must be file:// URIs.</p>
      <button className="primary" onClick={() => send("roots/list", null)}>
        Send roots/list
      </button>
      <button onClick={() => send("ping", null)}>Send ping</button>
    </div>
  );
}

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export function LoggingForm({ notify }: { notify: Send }) {
  const [level, setLevel] = useState("info");
  const [logger, setLogger] = useState("mock");
  const [data, setData] = useState("a log message");
  return (
    <div className="serve-form">
      <label>
        Level{" "}
        <select aria-label="Log level" value={level} onChange={(e) => setLevel(e.target.value)}>
          {LEVELS.map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
      </label>
      <label>
        Logger <input aria-label="Logger" value={logger} onChange={(e) => setLogger(e.target.value)} />
      </label>
      <label>
        Data (text or JSON) <input aria-label="Log data" value={data} onChange={(e) => setData(e.target.value)} />
      </label>
      <button
        className="primary"
        onClick={() => {
          let value: unknown = data;
          try {
            value = JSON.parse(data);
          } catch {
            value = data;
          }
          notify("notifications/message", { level, logger, data: value });
        }}
      >
        Send notifications/message
      </button>
    </div>
  );
}

export function RawForm({ send, notify }: { send: Send; notify: Send }) {
  const [method, setMethod] = useState("notifications/resources/updated");
  const [params, setParams] = useState('{"uri": "mock://readme"}');
  const { error, guard } = useErrors();
  const go = (fn: Send) => guard(() => fn(method, params.trim() ? (parseJson(params, "params") as Json) : null));
  return (
    <div className="serve-form">
      <label>
        Method <input aria-label="Raw method" value={method} onChange={(e) => setMethod(e.target.value)} />
      </label>
      <label>
        Params (JSON)
        <textarea aria-label="Raw params" className="code" rows={5} value={params} onChange={(e) => setParams(e.target.value)} />
      </label>
      {error && <p className="error">{error}</p>}
      <div>
        <button onClick={() => go(send)}>Send as request</button> <button onClick={() => go(notify)}>Send as notification</button>
      </div>
    </div>
  );
}

const NEW_TOOL = JSON.stringify(
  { name: "live_tool", description: "Added from the UI", result: { content: [{ type: "text", text: "hello" }] } },
  null,
  2,
);

export function ToolsForm({
  client,
  put,
  remove,
}: {
  client: ServedClient;
  put: (tool: Json, announce: boolean) => void;
  remove: (name: string, announce: boolean) => void;
}) {
  const [tool, setTool] = useState(NEW_TOOL);
  const [announce, setAnnounce] = useState(true);
  const { error, guard } = useErrors();
  return (
    <div className="serve-form">
      <ul className="tool-names">
        {client.tools.map((t) => (
          <li key={String(t.name)}>
            <code>{String(t.name)}</code> <button onClick={() => remove(String(t.name), announce)}>Remove</button>
          </li>
        ))}
      </ul>
      <label>
        Tool (scenario format)
        <textarea aria-label="New tool" className="code" rows={6} value={tool} onChange={(e) => setTool(e.target.value)} />
      </label>
      <label>
        <input type="checkbox" checked={announce} onChange={(e) => setAnnounce(e.target.checked)} /> send
        notifications/tools/list_changed
      </label>
      {error && <p className="error">{error}</p>}
      <button className="primary" onClick={() => guard(() => put(parseJson(tool, "tool") as Json, announce))}>
        Add tool
      </button>
    </div>
  );
}
