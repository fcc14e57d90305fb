// Pausing a live session's recording (issue 20): the header's Pause/Resume button, the pauses
// panel above the timeline and the mark on the first row recorded after a pause.
import { useState } from "react";
import { api, unwrap, type Row, type Session } from "../api/client";
import { clock, duration } from "../format";

export interface RecordingPause {
  after_seq: number;
  from_ns: number;
  to_ns: number | null;
  messages_not_recorded: number;
  until_end?: boolean;
}

function factsOf(s: Session | null | undefined): Record<string, unknown> {
  return s?.facts && typeof s.facts === "object" ? (s.facts as Record<string, unknown>) : {};
}

/** The session's pauses (its `recording_pauses` fact), oldest first. */
export function pausesOf(s: Session | null | undefined): RecordingPause[] {
  const list = factsOf(s).recording_pauses;
  return Array.isArray(list) ? (list as RecordingPause[]) : [];
}

export function isPaused(s: Session | null | undefined): boolean {
  const list = pausesOf(s);
  return s?.state === "recording" && list.length > 0 && list[list.length - 1].to_ns === null;
}

export function isMetadataOnly(s: Session | null | undefined): boolean {
  return factsOf(s).record === "metadata";
}

/** The pause that ended right before row `r` (the first row recorded after it), if any. */
export function pauseBefore(pauses: RecordingPause[], r: Row, prev: Row | null | undefined): RecordingPause | undefined {
  return pauses.find((p) => r.seq > p.after_seq && (!prev || prev.seq <= p.after_seq));
}

/** The header's button: pause or resume recording of a live session (signals its recorder). */
export function PauseButton({ session: s, onChange }: { session: Session; onChange: (s: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (s.state !== "recording") return null;
  const paused = isPaused(s);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      onChange(
        unwrap(
          await api.POST("/api/sessions/{session_id}/recording", {
            params: { path: { session_id: s.id } },
            body: { paused: !paused },
          }),
        ),
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {paused && (
        <span className="badge state-paused" data-testid="recording-paused">
          recording paused
        </span>
      )}
      <button
        className="ghost"
        onClick={toggle}
        disabled={busy}
        data-testid="recording-pause"
        title={paused ? "Record this session's messages again" : "Stop recording this session's messages; bytes keep flowing"}
      >
        {paused ? "Resume recording" : "Pause recording"}
      </button>
      {error && (
        <span className="error" data-testid="recording-pause-error">
          {error}
        </span>
      )}
    </>
  );
}

/** Where recording paused, above the timeline. */
export function PausesPanel({ session }: { session: Session | null | undefined }) {
  const pauses = pausesOf(session);
  const metadata = isMetadataOnly(session);
  if (!pauses.length && !metadata) return null;
  return (
    <div className="recording-pauses" data-testid="recording-pauses">
      {metadata && <p data-testid="metadata-only">Metadata only: bodies of this session were not recorded.</p>}
      {pauses.map((p, i) => (
        <p key={i} data-testid="recording-pause-item">
          ⏸ Recording paused after #{p.after_seq} at {clock(p.from_ns)}
          {p.to_ns === null ? " (still paused)" : `, ${p.until_end ? "until the end" : `resumed at ${clock(p.to_ns)}`} (${duration(p.to_ns - p.from_ns)})`}:{" "}
          {p.messages_not_recorded} message{p.messages_not_recorded === 1 ? "" : "s"} not recorded
        </p>
      ))}
    </div>
  );
}
