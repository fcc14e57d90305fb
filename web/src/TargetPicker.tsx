// The one server-target picker (connect, replay, protocol versions): a stdio command line or a URL,
// as the API's `{command}` / `{url}` target (Streamable HTTP; a URL ending in /sse is legacy SSE).
import { useId } from "react";
import { joinShell, splitShell } from "./shell";

export type TargetMode = "command" | "url";
/** What the picker's fields hold. */
export interface TargetFields {
  mode: TargetMode;
  command: string;
  url: string;
}
export type Target = { command: string[] } | { url: string };

export const emptyTarget: TargetFields = { mode: "command", command: "", url: "" };

/** A recorded session's target (a command's argv, or a URL) as the picker's fields. */
export function targetFields(target: unknown): TargetFields {
  if (Array.isArray(target)) return { ...emptyTarget, command: joinShell(target as string[]) };
  const text = typeof target === "string" ? target : "";
  if (/^https?:\/\//.test(text)) return { ...emptyTarget, mode: "url", url: text };
  return emptyTarget;
}

/** The target the fields give (a command line split like a shell, or a URL), or why it is unusable. */
export function formTarget(t: TargetFields): Target | { error: string } {
  let target: Target;
  try {
    target = t.mode === "command" ? { command: splitShell(t.command) } : { url: t.url.trim() };
  } catch (e) {
    return { error: (e as Error).message };
  }
  if ("command" in target && !target.command.length) return { error: "type the server's command, e.g. python server.py" };
  return target;
}

export function TargetPicker({
  value,
  onChange,
  urlLabel = "URL (Streamable HTTP, or …/sse)",
  testId,
  autoFocus,
}: {
  value: TargetFields;
  onChange: (t: TargetFields) => void;
  /** The URL choice's label. */
  urlLabel?: string;
  /** The inputs' test ids: `${testId}-command`, `${testId}-url`. */
  testId?: string;
  autoFocus?: boolean;
}) {
  const name = useId();
  const set = (change: Partial<TargetFields>) => onChange({ ...value, ...change });
  return (
    <>
      <div className="radios" role="radiogroup">
        <label className="check">
          <input type="radio" name={name} checked={value.mode === "command"} onChange={() => set({ mode: "command" })} />{" "}
          Command (stdio)
        </label>
        <label className="check">
          <input type="radio" name={name} checked={value.mode === "url"} onChange={() => set({ mode: "url" })} />{" "}
          {urlLabel}
        </label>
      </div>
      {value.mode === "command" ? (
        <input
          className="mono wide-input"
          aria-label="command"
          data-testid={testId && `${testId}-command`}
          placeholder="python server.py"
          value={value.command}
          onChange={(e) => set({ command: e.target.value })}
          autoFocus={autoFocus}
        />
      ) : (
        <input
          className="mono wide-input"
          aria-label="url"
          data-testid={testId && `${testId}-url`}
          placeholder="http://127.0.0.1:3001/mcp"
          value={value.url}
          onChange={(e) => set({ url: e.target.value })}
          autoFocus={autoFocus}
        />
      )}
    </>
  );
}
