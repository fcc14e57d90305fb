// What a host run's servers' tools/list costs a model together (`GET /api/host-runs/{id}/tools`,
// store/stats.py `tools_cost`): the sum, and each server's share (its session's Overview has the
// per-tool table).
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";

type Cost = components["schemas"]["HostRunTools"];

export function RunToolsCost({ runId, names }: { runId: number; names: Map<number, string> }) {
  const [cost, setCost] = useState<Cost | null>(null);
  useEffect(() => {
    let gone = false;
    api
      .GET("/api/host-runs/{run_id}/tools", { params: { path: { run_id: runId } } })
      .then((r) => !gone && setCost(unwrap(r)))
      .catch(() => !gone && setCost(null));
    return () => {
      gone = true;
    };
  }, [runId]);
  if (!cost || !cost.servers.length) return null;
  return (
    <div className="muted" data-testid="host-run-tools">
      tools/list of {cost.servers.length} server{cost.servers.length === 1 ? "" : "s"}:{" "}
      <b data-testid="host-run-tools-total">
        {cost.tools} tools, {cost.bytes} bytes, about {cost.tokens} tokens
      </b>{" "}
      (estimated as {cost.token_estimate}):{" "}
      {cost.servers.map((s, i) => (
        <span key={s.session_id}>
          {i ? ", " : ""}
          <Link to={`/sessions/${s.session_id}/overview`}>{names.get(s.session_id) ?? `#${s.session_id}`}</Link>{" "}
          {s.tools_list.bytes} B
        </span>
      ))}
    </div>
  );
}
