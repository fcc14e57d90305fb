// A sampling/createMessage request shown in full (messages of every content kind, system prompt,
// model preferences, tools, toolChoice) and the reply a person writes: text, or tool_use blocks
// when tools were offered (each tool's input from a form generated from its inputSchema).
// The API checks the reply against the spec's rules and refuses an invalid one before sending.
import Form from "@rjsf/core/lib/components/Form.js"; // not "@rjsf/core": its index imports Ajv (see formValidator.ts)
import type { RJSFSchema } from "@rjsf/utils";
import { formValidator as validator } from "./formValidator";
import { useState } from "react";
import { JsonBox } from "./Content";
import type { Json } from "./api";

type Block = Json & { type?: string };
type Tool = { name: string; description?: string; inputSchema?: Json };
export type Reply = (answer: { result?: unknown; error?: Json }) => Promise<void>;
export const REJECTED = { code: -1, message: "rejected by the user" };

const blocks = (content: unknown): Block[] =>
  Array.isArray(content) ? (content as Block[]) : content && typeof content === "object" ? [content as Block] : [];

function BlockView({ block }: { block: Block }) {
  switch (block.type) {
    case "text":
      return <span>{String(block.text ?? "")}</span>;
    case "tool_use":
      return (
        <span className="tool-block">
          tool_use <code>{String(block.name)}</code> id <code>{String(block.id)}</code>{" "}
          <code>{JSON.stringify(block.input)}</code>
        </span>
      );
    case "tool_result":
      return (
        <span className="tool-block">
          tool_result for <code>{String(block.toolUseId)}</code>:{" "}
          {blocks(block.content).map((b, i) => (
            <BlockView key={i} block={b} />
          ))}
        </span>
      );
    case "image":
      return <img className="content-image" alt="sampled image" src={`data:${block.mimeType};base64,${block.data}`} />;
    default:
      return <code>&lt;{String(block.type)}&gt;</code>;
  }
}

export function SamplingRequest({ params }: { params: Json }) {
  const messages = (params.messages ?? []) as { role: string; content: unknown }[];
  const tools = (params.tools ?? []) as Tool[];
  return (
    <div className="stack sampling-request">
      {typeof params.systemPrompt === "string" && (
        <p className="muted small" data-testid="system-prompt">
          system: {params.systemPrompt}
        </p>
      )}
      {messages.map((m, i) => (
        <div key={i} className="sample-message">
          <strong>{m.role}:</strong>{" "}
          {blocks(m.content).map((b, j) => (
            <BlockView key={j} block={b} />
          ))}
        </div>
      ))}
      <p className="muted small">
        maxTokens {String(params.maxTokens ?? "?")}
        {params.temperature !== undefined && ` · temperature ${String(params.temperature)}`}
        {params.toolChoice !== undefined && (
          <span data-testid="tool-choice"> · toolChoice {JSON.stringify(params.toolChoice)}</span>
        )}
      </p>
      {params.modelPreferences !== undefined && (
        <details>
          <summary className="small">model preferences</summary>
          <JsonBox value={params.modelPreferences} />
        </details>
      )}
      {tools.length > 0 && (
        <details open>
          <summary className="small">tools offered ({tools.length})</summary>
          <ul className="small" aria-label="offered tools">
            {tools.map((t) => (
              <li key={t.name}>
                <code>{t.name}</code> {t.description ?? ""}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

let nextUse = 1;

function ToolUseBuilder({ tools, onAdd }: { tools: Tool[]; onAdd: (block: Block) => void }) {
  const [name, setName] = useState(tools[0]?.name ?? "");
  const [input, setInput] = useState<Json>({});
  const tool = tools.find((t) => t.name === name);
  return (
    <div className="card stack tool-use-builder">
      <label className="check small">
        tool
        <select aria-label="tool to use" value={name} onChange={(e) => (setName(e.target.value), setInput({}))}>
          {tools.map((t) => (
            <option key={t.name}>{t.name}</option>
          ))}
        </select>
      </label>
      <Form
        key={name}
        schema={(tool?.inputSchema ?? { type: "object" }) as RJSFSchema}
        validator={validator}
        formData={input}
        onChange={(e) => setInput((e.formData ?? {}) as Json)}
        onSubmit={(e) => {
          onAdd({ type: "tool_use", id: `toolu_${nextUse++}`, name, input: e.formData ?? {} });
          setInput({});
        }}
        noHtml5Validate
        showErrorList="top"
        uiSchema={{ "ui:submitButtonOptions": { submitText: "Add tool_use" } }}
      />
    </div>
  );
}

export function SamplingReply({ params, reply }: { params: Json; reply: Reply }) {
  const [text, setText] = useState("");
  const [model, setModel] = useState("a-person");
  const [uses, setUses] = useState<Block[]>([]);
  const [stop, setStop] = useState<string>("auto");
  const tools = (params.tools ?? []) as Tool[];
  const stopReason = stop === "auto" ? (uses.length ? "toolUse" : "endTurn") : stop;
  const content: Block[] = [...(text ? [{ type: "text", text }] : []), ...uses];
  const send = () =>
    reply({
      result: {
        role: "assistant",
        content: content.length === 1 && !uses.length ? content[0] : content,
        model,
        stopReason,
      },
    });
  return (
    <div className="stack">
      <textarea aria-label="assistant reply" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      {tools.length > 0 && (
        <>
          <ToolUseBuilder tools={tools} onAdd={(b) => setUses([...uses, b])} />
          {uses.map((u, i) => (
            <div key={String(u.id)} className="tool-block small" data-testid="tool-use">
              <BlockView block={u} />{" "}
              <button className="link" onClick={() => setUses(uses.filter((_, j) => j !== i))}>
                remove
              </button>
            </div>
          ))}
        </>
      )}
      <div className="actions small">
        <label className="check">
          model <input aria-label="model" value={model} onChange={(e) => setModel(e.target.value)} />
        </label>
        <label className="check">
          stopReason
          <select aria-label="stop reason" value={stop} onChange={(e) => setStop(e.target.value)}>
            <option value="auto">auto ({uses.length ? "toolUse" : "endTurn"})</option>
            <option>endTurn</option>
            <option>toolUse</option>
            <option>maxTokens</option>
            <option>stopSequence</option>
          </select>
        </label>
      </div>
      <div className="actions">
        <button disabled={!content.length} onClick={send}>
          Send reply
        </button>
        <button onClick={() => reply({ error: REJECTED })}>Reject</button>
      </div>
    </div>
  );
}
