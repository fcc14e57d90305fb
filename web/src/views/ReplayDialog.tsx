// "Replay…": re-drive a server (a command or a URL) with this session's client messages, follow the
// job, then open the diff of the original and the replay.
import { useEffect, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, unwrap, type ReplayJob, type Session } from "../api/client";
import { TargetPicker, formTarget, targetFields } from "../TargetPicker";
import { Dialog } from "./Dialog";
import { diffUrl } from "./diffUrl";
import { useJob } from "./hooks";

export function ReplayDialog({ session, onClose }: { session: Session; onClose: () => void }) {
  const navigate = useNavigate();
  const [fields, setFields] = useState(() => targetFields(session.target));
  const [calibrate, setCalibrate] = useState(false);
  const [strictVolatile, setStrictVolatile] = useState(false);
  const [ignore, setIgnore] = useState("");
  const [timeout, setTimeoutSecs] = useState(30);
  // Follow a running job by long polling: each answer comes when its phase changes or it ends.
  const { job, setJob, error, setError } = useJob<ReplayJob>((j) =>
    api.GET("/api/replays/{job_id}", { params: { path: { job_id: j.id }, query: { wait: 10 } } }).then(unwrap),
  );

  useEffect(() => {
    if (job?.state === "finished" && job.report) {
      navigate(diffUrl(job.report.original, job.report.replay, job.report.extra_ignore, job.strict_volatile));
    }
  }, [job, navigate]);

  const start = async () => {
    setError(null);
    const target = formTarget(fields);
    if ("error" in target) {
      setError(target.error);
      return;
    }
    const patterns = ignore
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    try {
      const started = unwrap(
        await api.POST("/api/sessions/{session_id}/replay", {
          params: { path: { session_id: session.id } },
          body: { target, calibrate, ignore: patterns, timeout, match: "strict", strict_volatile: strictVolatile },
        }),
      );
      setJob(started);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const running = job?.state === "running";
  return (
    <Dialog title={`Replay session #${session.id}`} onClose={onClose} testId="replay-dialog">
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!running) start();
        }}
      >
        <p className="muted">
          Sends this session's client messages to a server and records its answers as a new session, then shows
          what changed.
        </p>
        <fieldset disabled={running}>
          <legend>Target</legend>
          <TargetPicker value={fields} onChange={setFields} testId="replay" autoFocus />
        </fieldset>
        <fieldset disabled={running}>
          <legend>Diff</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={calibrate}
              onChange={(e) => setCalibrate(e.target.checked)}
              data-testid="replay-calibrate"
            />{" "}
            Calibrate: replay twice and ignore what differs between the two runs (timestamps, random ids)
          </label>
          <label className="check" title="Volatile values differ only in clock-like parts: times, dates, ids, counters">
            <input
              type="checkbox"
              checked={strictVolatile}
              onChange={(e) => setStrictVolatile(e.target.checked)}
              data-testid="replay-strict-volatile"
            />{" "}
            Treat volatile values (times, dates, ids, counters) as changes
          </label>
          <label className="stack">
            Ignore paths, one per line
            <textarea
              className="mono"
              rows={3}
              aria-label="Ignore paths"
              data-testid="replay-ignore"
              placeholder={"**.timestamp\ntools/call[name=clock]:result.content"}
              value={ignore}
              onChange={(e) => setIgnore(e.target.value)}
            />
          </label>
          <label>
            Timeout per response{" "}
            <input
              type="number"
              min={1}
              max={600}
              value={timeout}
              onChange={(e) => setTimeoutSecs(Number(e.target.value))}
              aria-label="Timeout in seconds"
            />{" "}
            s
          </label>
        </fieldset>
        {error && (
          <p className="error" role="alert" data-testid="replay-error">
            {error}
          </p>
        )}
        {job && <JobState job={job} />}
        <div className="dialog-actions">
          <button type="button" className="ghost" onClick={onClose}>
            {running ? "Close (keeps running)" : job ? "Close" : "Cancel"}
          </button>
          <button type="submit" className="primary" disabled={running} data-testid="replay-start">
            {running ? "Replaying…" : job ? "Replay again" : "Start replay"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function JobState({ job }: { job: ReplayJob }) {
  return (
    <div className={`job job-${job.state}`} data-testid="replay-state" data-state={job.state} role="status">
      {job.state === "running" && <span className="spinner" aria-hidden />}
      <strong>{job.state}</strong> {job.phase !== job.state && <span className="muted">{job.phase}</span>}
      {job.error && <p className="error">{job.error}</p>}
      {job.warnings.map((w) => (
        <p key={w} className="warn">
          {w}
        </p>
      ))}
      {job.replay_session_id !== null && job.state !== "running" && (
        <p>
          <Link to={`/sessions/${job.replay_session_id}`}>Open the replay session #{job.replay_session_id}</Link>
        </p>
      )}
    </div>
  );
}
