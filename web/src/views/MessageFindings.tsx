// The lint findings of one message (rule, severity, explanation, spec section), shown in the message detail.
// A stdout line no client reads (rules `stdout-*`, inspector/protocol/stdout_lines.py) says what it is,
// what the clients do with it and the fix: its explanation's three parts are shown one under another.
import { useEffect, useState } from "react";
import { api, unwrap, type Row } from "../api/client";
import type { components } from "../api/schema";

type Finding = components["schemas"]["FindingOut"];

function SpecSection({ text }: { text: string }) {
  const m = /^(.*)\((https?:\/\/[^)\s]+)\)\s*$/.exec(text);
  if (!m) return <span className="spec muted">{text}</span>;
  return (
    <span className="spec muted">
      {m[1]}
      <a href={m[2]} target="_blank" rel="noreferrer">
        {m[2]}
      </a>
    </span>
  );
}

const STDIO_PARTS = /^(.*?)\. Clients: (.*?)\. Fix: (.*?)\.?$/s;

function Explanation({ f }: { f: Finding }) {
  const m = f.rule.startsWith("stdout-") ? STDIO_PARTS.exec(f.explanation) : null;
  if (!m) return <>{f.explanation}</>;
  return (
    <span className="stdio-note" data-testid="stdio-note">
      <span className="stdio-what">{m[1]}.</span>
      <span className="stdio-clients">
        <b>What clients do:</b> {m[2]}.
      </span>
      <span className="stdio-fix">
        <b>Fix:</b> {m[3]}.
      </span>
    </span>
  );
}

export function MessageFindings({ sessionId, message }: { sessionId: number; message: Row }) {
  const [findings, setFindings] = useState<Finding[] | null>(null);
  useEffect(() => {
    let alive = true;
    api
      .GET("/api/sessions/{session_id}/findings", {
        params: { path: { session_id: sessionId }, query: { seq: message.seq } },
      })
      .then(unwrap)
      .then((f) => alive && setFindings(f.items), () => undefined);
    return () => {
      alive = false;
    };
  }, [sessionId, message.seq]);
  if (!findings?.length) return null;
  return (
    <div className="related" data-testid="findings">
      <h3>Findings</h3>
      <ul className="findings-list">
        {findings.map((f, i) => (
          <li key={i} data-testid="finding" data-rule={f.rule}>
            <span className={`lint-badge lint-${f.severity}`}>{f.severity}</span> <b>{f.rule}</b>{" "}
            {f.revision && <span className="muted">({f.revision})</span>} <Explanation f={f} />
            <SpecSection text={f.spec_section} />
          </li>
        ))}
      </ul>
    </div>
  );
}
