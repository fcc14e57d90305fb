// A text input that asks the server for completions (completion/complete) as you type, with the
// other filled arguments as context, and offers them as suggestions (a datalist and buttons).
import { useEffect, useId, useState } from "react";
import { workApi, type CompleteRef } from "./work";

type Props = {
  clientId: string;
  completeRef: CompleteRef;
  name: string;
  value: string;
  onChange: (value: string) => void;
  context: Record<string, string>;
  enabled: boolean;
  required?: boolean;
};

export function CompletingInput({ clientId, completeRef, name, value, onChange, context, enabled, required }: Props) {
  const listId = useId();
  const [values, setValues] = useState<string[]>([]);
  const [asked, setAsked] = useState(false);
  const others = Object.fromEntries(Object.entries(context).filter(([k, v]) => k !== name && v !== ""));
  const contextKey = JSON.stringify(others);
  useEffect(() => {
    if (!enabled || !asked) return;
    const t = window.setTimeout(() => {
      workApi.complete(clientId, completeRef, name, value, others).then(
        (r) => setValues(((r.result as { completion?: { values?: string[] } })?.completion?.values ?? []).slice(0, 100)),
        () => setValues([]),
      );
    }, 200);
    return () => window.clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enabled, asked, clientId, JSON.stringify(completeRef), name, value, contextKey]);
  return (
    <span className="completing">
      <input
        aria-label={name}
        list={enabled ? listId : undefined}
        required={required}
        value={value}
        onFocus={() => setAsked(true)}
        onChange={(e) => (setAsked(true), onChange(e.target.value))}
      />
      {enabled && (
        <>
          <datalist id={listId}>
            {values.map((v) => (
              <option key={v} value={v} />
            ))}
          </datalist>
          {values.length > 0 && values.join() !== value && (
            <span className="suggestions" aria-label={`suggestions for ${name}`}>
              {values.slice(0, 12).map((v) => (
                <button type="button" key={v} className="chip" onClick={() => onChange(v)}>
                  {v}
                </button>
              ))}
            </span>
          )}
        </>
      )}
    </span>
  );
}
