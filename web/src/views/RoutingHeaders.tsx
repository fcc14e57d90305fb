// The 2026-07-28 routing headers of an exchange's request (Mcp-Method, Mcp-Name, Mcp-Param-*,
// MCP-Protocol-Version), decoded beside the body field each mirrors, with an agree/disagree mark.
// The server rejects a request whose headers disagree with its body (400, HeaderMismatch -32020).
import type { HttpExchangeOut } from "../api/client";

type Routing = NonNullable<HttpExchangeOut["routing"]>;

const MARKS: Record<string, { mark: string; label: string; cls: string }> = {
  agrees: { mark: "✓", label: "agrees with the body", cls: "ok" },
  disagrees: { mark: "✗", label: "disagrees with the body", cls: "error" },
  missing: { mark: "✗", label: "required, not sent", cls: "error" },
  invalid: { mark: "✗", label: "invalid encoding", cls: "error" },
  unchecked: { mark: "?", label: "not checked (nothing recorded to compare with)", cls: "muted" },
};

export function routingProblems(routing: HttpExchangeOut["routing"]): number {
  return routing ? routing.headers.filter((h) => h.status !== "agrees" && h.status !== "unchecked").length : 0;
}

export function RoutingHeaders({ routing }: { routing: HttpExchangeOut["routing"] }) {
  if (!routing || !routing.headers.length) return null;
  return (
    <>
      <h3>Routing headers{routing.required ? "" : " (before 2026-07-28: informative)"}</h3>
      <table className="headers routing" data-testid="routing-headers">
        <thead>
          <tr>
            <th>header</th>
            <th>decoded</th>
            <th>body</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {routing.headers.map((h: Routing["headers"][number]) => {
            const m = MARKS[h.status] ?? MARKS.unchecked;
            return (
              <tr key={h.name} data-testid="routing-header" data-status={h.status}>
                <th>{h.name}</th>
                <td className="mono" title={h.raw ?? ""}>
                  {h.decoded ?? h.raw ?? "(not sent)"}
                  {h.encoded && <span className="badge" title={h.raw ?? ""}>base64</span>}
                </td>
                <td className="mono" title={h.source ?? ""}>
                  {h.expected ?? ""}
                  {h.source && <span className="muted"> ({h.source})</span>}
                </td>
                <td className={m.cls} title={h.problem ?? m.label} aria-label={m.label} data-testid="routing-mark">
                  {m.mark} {h.status === "agrees" || h.status === "unchecked" ? "" : h.problem}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
