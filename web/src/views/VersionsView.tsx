// The version matrix (/versions?run=ID): probe a server once per protocol revision (a background job),
// pick a past run, and read what changed: rows whose values differ between revisions are highlighted,
// and any two revisions' recorded sessions open in the two-session diff view.
import { useEffect, useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { api, unwrap } from "../api/client";
import type { components } from "../api/schema";
import { dateTime, shortTarget } from "../format";
import { TargetPicker, emptyTarget, formTarget } from "../TargetPicker";
import { useJob } from "./hooks";

type Matrix = components["schemas"]["VersionMatrix"];
type MatrixRow = components["schemas"]["MatrixRow"];
type Job = components["schemas"]["VersionsJobOut"];
type PastRun = components["schemas"]["VersionsRunOut"];

const KNOWN = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/** The diff view's URL for two revisions' sessions, labelled with the revisions. */
export function revisionDiffUrl(a: number, b: number, la: string, lb: string): string {
  return `/diff?${new URLSearchParams({ a: String(a), b: String(b), la, lb })}`;
}

export function VersionsView() {
  const [params, setParams] = useSearchParams();
  const run = params.get("run");
  const [runs, setRuns] = useState<PastRun[]>([]);
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    api.GET("/api/versions/runs", {}).then(unwrap).then(setRuns, () => setRuns([]));
  }, [refresh]);
  const open = (id: string) => setParams(new URLSearchParams({ run: id }));
  return (
    <section className="versions" data-testid="versions">
      <div className="toolbar">
        <h1>Protocol versions</h1>
        <span className="muted">What does a server do under each protocol revision?</span>
      </div>
      <div className="versions-body">
        <ProbeForm
          onDone={(id) => {
            setRefresh((n) => n + 1);
            open(id);
          }}
        />
        {runs.length > 0 && (
          <label className="past-runs">
            Past runs{" "}
            <select
              value={run ?? ""}
              onChange={(e) => e.target.value && open(e.target.value)}
              data-testid="past-runs"
              aria-label="Past runs"
            >
              <option value="">choose…</option>
              {runs.map((r) => (
                <option key={r.run} value={r.run}>
                  {dateTime(r.started_ns)} · {shortTarget(r.target)} · {Object.keys(r.sessions).length} revisions
                </option>
              ))}
            </select>
          </label>
        )}
        {run && <MatrixView run={run} key={run} />}
      </div>
    </section>
  );
}

function ProbeForm({ onDone }: { onDone: (run: string) => void }) {
  const [fields, setFields] = useState(emptyTarget);
  const [revisions, setRevisions] = useState<string[]>(KNOWN);
  const [replay, setReplay] = useState("");
  const [timeout, setTimeoutSecs] = useState(30);
  const { job, setJob, error, setError } = useJob<Job>((j) =>
    api.GET("/api/versions/jobs/{job_id}", { params: { path: { job_id: j.id }, query: { wait: 10 } } }).then(unwrap),
  );
  useEffect(() => {
    if (job?.state === "finished") onDone(job.run);
  }, [job?.state]);

  const start = async () => {
    setError(null);
    const target = formTarget(fields);
    if ("error" in target) {
      setError(target.error);
      return;
    }
    if (!revisions.length) {
      setError("choose at least one revision");
      return;
    }
    try {
      setJob(
        unwrap(
          await api.POST("/api/versions", {
            body: {
              target,
              revisions: KNOWN.filter((r) => revisions.includes(r)),
              replay_session_id: replay.trim() ? Number(replay) : null,
              timeout,
            },
          }),
        ),
      );
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const running = job?.state === "running";
  return (
    <form
      className="form probe-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!running) start();
      }}
    >
      <fieldset disabled={running}>
        <legend>Server</legend>
        <TargetPicker value={fields} onChange={setFields} testId="versions" />
        <div className="radios">
          {KNOWN.map((r) => (
            <label key={r} className="check">
              <input
                type="checkbox"
                checked={revisions.includes(r)}
                onChange={(e) => setRevisions((rs) => (e.target.checked ? [...rs, r] : rs.filter((x) => x !== r)))}
              />
              {r}
            </label>
          ))}
        </div>
        <div className="radios">
          <label>
            Also replay session{" "}
            <input
              type="number"
              min={1}
              value={replay}
              onChange={(e) => setReplay(e.target.value)}
              aria-label="Session to replay"
              placeholder="id"
            />
          </label>
          <label>
            Timeout{" "}
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
          <button type="submit" className="primary" disabled={running} data-testid="versions-start">
            {running ? "Probing…" : "Probe every revision"}
          </button>
        </div>
      </fieldset>
      {error && (
        <p className="error" role="alert" data-testid="versions-error">
          {error}
        </p>
      )}
      {job && (
        <div className={`job job-${job.state}`} data-testid="versions-state" data-state={job.state} role="status">
          {running && <span className="spinner" aria-hidden />}
          <strong>{job.state}</strong> {job.phase !== job.state && <span className="muted">{job.phase}</span>}
          {job.error && <p className="error">{job.error}</p>}
          {job.warnings.map((w) => (
            <p key={w} className="warn">
              {w}
            </p>
          ))}
        </div>
      )}
    </form>
  );
}

function MatrixView({ run }: { run: string }) {
  const navigate = useNavigate();
  const [matrix, setMatrix] = useState<Matrix | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [only, setOnly] = useState(false);
  const [pair, setPair] = useState<[string, string] | null>(null);
  useEffect(() => {
    api
      .GET("/api/versions/runs/{run_id}", { params: { path: { run_id: run } } })
      .then(unwrap)
      .then(
        (m) => {
          setMatrix(m);
          const revs = m.columns.filter((c) => c.session_id !== null).map((c) => c.revision);
          if (revs.length >= 2) setPair([revs[revs.length - 2], revs[revs.length - 1]]);
        },
        (e: Error) => setError(e.message),
      );
  }, [run]);
  const sections = useMemo(() => {
    const out: { name: string; rows: MatrixRow[] }[] = [];
    for (const row of matrix?.rows ?? []) {
      if (only && !row.differs && row.section !== "negotiation") continue;
      if (out.at(-1)?.name !== row.section) out.push({ name: row.section, rows: [] });
      out.at(-1)!.rows.push(row);
    }
    return out;
  }, [matrix, only]);
  if (error) return <p className="error" data-testid="matrix-error">{error}</p>;
  if (!matrix) return <p className="muted">Loading the matrix of run {run}…</p>;
  const sessionOf = (rev: string) => matrix.columns.find((c) => c.revision === rev)?.session_id ?? null;
  const differing = matrix.rows.filter((r) => r.differs).length;
  const openDiff = () => {
    if (!pair) return;
    const [a, b] = [sessionOf(pair[0]), sessionOf(pair[1])];
    if (a !== null && b !== null) navigate(revisionDiffUrl(a, b, pair[0], pair[1]));
  };
  return (
    <div className="matrix-wrap" data-testid="matrix" data-run={run}>
      <div className="toolbar">
        <strong>Run {run}</strong>
        <span className="muted mono">{shortTarget(matrix.target)}</span>
        <span className="badge status-changed" data-testid="differing-count">
          {differing} rows differ
        </span>
        <label className="check">
          <input type="checkbox" checked={only} onChange={(e) => setOnly(e.target.checked)} data-testid="only-differing" />
          Only differences
        </label>
        <span className="grow" />
        {pair && (
          <span className="diff-pick">
            Diff{" "}
            <RevisionSelect matrix={matrix} value={pair[0]} onChange={(r) => setPair([r, pair[1]])} testId="diff-a" />
            {" ↔ "}
            <RevisionSelect matrix={matrix} value={pair[1]} onChange={(r) => setPair([pair[0], r])} testId="diff-b" />{" "}
            <button type="button" onClick={openDiff} data-testid="open-diff" disabled={pair[0] === pair[1]}>
              Open diff
            </button>
          </span>
        )}
      </div>
      <div className="matrix-scroll">
        <table className="matrix">
          <thead>
            <tr>
              <th />
              {matrix.columns.map((c) => (
                <th key={c.revision} data-testid="matrix-col" data-revision={c.revision}>
                  <div>{c.revision}</div>
                  <span className={`badge outcome-${c.outcome}`} data-testid="outcome">
                    {c.outcome}
                  </span>{" "}
                  {c.session_id !== null && (
                    <Link to={`/sessions/${c.session_id}`} className="muted">
                      #{c.session_id}
                    </Link>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          {sections.map((s) => (
            <tbody key={s.name}>
              <tr className="matrix-section">
                <th colSpan={matrix.columns.length + 1}>{s.name}</th>
              </tr>
              {s.rows.map((row) => (
                <tr
                  key={row.key}
                  className={row.differs ? "differs" : ""}
                  data-testid="matrix-row"
                  data-section={row.section}
                  data-key={row.key}
                  data-differs={row.differs ? "1" : "0"}
                >
                  <th className="mono">{row.key}</th>
                  {matrix.columns.map((c) => {
                    const v = row.values[c.revision];
                    return (
                      <td key={c.revision} className={v === null || v === undefined ? "absent" : ""} data-revision={c.revision}>
                        {v === null || v === undefined ? "—" : String(v)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}

function RevisionSelect({
  matrix,
  value,
  onChange,
  testId,
}: {
  matrix: Matrix;
  value: string;
  onChange: (r: string) => void;
  testId: string;
}) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-label={testId}>
      {matrix.columns
        .filter((c) => c.session_id !== null)
        .map((c) => (
          <option key={c.revision} value={c.revision}>
            {c.revision} (#{c.session_id})
          </option>
        ))}
    </select>
  );
}
