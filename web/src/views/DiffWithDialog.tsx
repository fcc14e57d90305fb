// "Diff with…": pick another recorded session and open the diff of the two.
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { api, unwrap, type Session } from "../api/client";
import { dateTime, shortTarget } from "../format";
import { Dialog } from "./Dialog";
import { diffUrl } from "./diffUrl";

export function DiffWithDialog({ session, onClose }: { session: Session; onClose: () => void }) {
  const navigate = useNavigate();
  const [others, setOthers] = useState<Session[]>([]);
  const [other, setOther] = useState<number | null>(null);
  const [thisFirst, setThisFirst] = useState(session.parent_id === null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .GET("/api/sessions", { params: { query: { limit: 200 } } })
      .then(unwrap)
      .then(
        (page) => {
          const list = page.items.filter((s) => s.id !== session.id);
          setOthers(list);
          // A replay or mock session is naturally compared with the session it came from.
          const parent = list.find((s) => s.id === session.parent_id);
          setOther((parent ?? list.find((s) => s.parent_id === session.id) ?? list[0])?.id ?? null);
        },
        (e: Error) => setError(e.message),
      );
  }, [session.id, session.parent_id]);
  const open = () => {
    if (other === null) return;
    navigate(thisFirst ? diffUrl(session.id, other) : diffUrl(other, session.id));
  };
  return (
    <Dialog title={`Diff session #${session.id} with…`} onClose={onClose} testId="diff-with-dialog">
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          open();
        }}
      >
        {error && <p className="error">{error}</p>}
        <label className="stack">
          Other session
          <select
            autoFocus
            value={other ?? ""}
            onChange={(e) => setOther(Number(e.target.value))}
            aria-label="Other session"
            data-testid="diff-with-select"
          >
            {others.map((s) => (
              <option key={s.id} value={s.id}>
                #{s.id} {s.name || shortTarget(s.target)} · {s.kind} · {dateTime(s.started_ns)}
                {s.id === session.parent_id ? " (its original)" : s.parent_id === session.id ? " (from this one)" : ""}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={thisFirst} onChange={(e) => setThisFirst(e.target.checked)} /> This session
          is the original (left side)
        </label>
        {!others.length && !error && <p className="muted">There is no other session to compare with.</p>}
        <div className="dialog-actions">
          <button type="button" className="ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={other === null} data-testid="diff-with-open">
            Open diff
          </button>
        </div>
      </form>
    </Dialog>
  );
}
