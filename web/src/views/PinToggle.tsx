// Pin or unpin a session (retention never removes a pinned one): PATCH /api/sessions/{id}.
import { useState } from "react";
import { api, unwrap, type Session } from "../api/client";

export function PinToggle({ id, pinned, onChange }: { id: number; pinned: boolean; onChange?: (updated: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <button
      type="button"
      className={`pin${pinned ? " pinned" : ""}`}
      data-testid="pin"
      aria-pressed={pinned}
      disabled={busy}
      title={error ?? (pinned ? "Pinned: retention keeps it. Click to unpin." : "Pin: retention will keep it.")}
      onClick={(e) => {
        e.stopPropagation();
        setBusy(true);
        api
          .PATCH("/api/sessions/{session_id}", {
            params: { path: { session_id: id } },
            body: { pinned: !pinned },
          })
          .then(unwrap)
          .then(
            (updated) => {
              setError(null);
              onChange?.(updated);
            },
            (err: Error) => setError(err.message),
          )
          .finally(() => setBusy(false));
      }}
    >
      {pinned ? "pinned" : "pin"}
    </button>
  );
}
