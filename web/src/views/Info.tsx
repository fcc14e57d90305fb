// The session's negotiated facts: client/server info and capabilities, as collapsible JSON.
import { allExpanded, darkStyles, defaultStyles, JsonView } from "react-json-view-lite";
import type { Session } from "../api/client";
import { TREE_DEPTH_LIMIT, valueDepth } from "../format";

export function JsonBlock({ value }: { value: unknown }) {
  const dark = document.documentElement.dataset.theme === "dark";
  if (value === null || value === undefined) return <p className="muted">none</p>;
  if (typeof value !== "object") return <pre className="mono">{JSON.stringify(value)}</pre>;
  if (valueDepth(value) > TREE_DEPTH_LIMIT) return <p className="muted">nested deeper than {TREE_DEPTH_LIMIT} levels: not shown as a tree</p>;
  return (
    <div className="json">
      <JsonView data={value as object} shouldExpandNode={allExpanded} style={dark ? darkStyles : defaultStyles} />
    </div>
  );
}

export function Info({ session: s }: { session: Session }) {
  const parts: [string, unknown][] = [
    ["Client info", s.client_info],
    ["Client capabilities", s.client_capabilities],
    ["Server info", s.server_info],
    ["Server capabilities", s.server_capabilities],
    ["Session facts", s.facts],
    ["Target", s.target],
  ];
  return (
    <div className="info">
      {parts.map(([title, value]) => (
        <section key={title} className="card">
          <h3>{title}</h3>
          <JsonBlock value={value} />
        </section>
      ))}
    </div>
  );
}
