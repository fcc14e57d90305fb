// Session files in the UI: download a session (JSONL, HAR, HTML report), import files (upload, then the
// import's progress), and the diff view's HTML report. Downloads go through `download` (fetch with the
// token header); uploads through XMLHttpRequest, whose upload progress fetch cannot report.
import { useRef, useState } from "react";
import { authHeaders } from "../api/auth";
import type { components } from "../api/schema";

type ImportJob = components["schemas"]["ImportJobOut"];

const FORMATS = [
  { format: "jsonl", label: "Session file (.mcp.jsonl)", suffix: ".mcp.jsonl" },
  { format: "har", label: "HAR (HTTP sessions)", suffix: ".har" },
  { format: "html", label: "HTML report", suffix: ".html" },
] as const;

/** A "Download" menu for one session. */
export function DownloadMenu({ sessionId }: { sessionId: number }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const get = (format: string, suffix: string) => {
    setOpen(false);
    setError(null);
    download(`/api/sessions/${sessionId}/export?format=${format}`, `session-${sessionId}${suffix}`).catch((e: Error) =>
      setError(e.message),
    );
  };
  return (
    <span className="download-menu">
      <button className="ghost" onClick={() => setOpen(!open)} data-testid="download-open" aria-expanded={open}>
        Download ▾
      </button>
      {open && (
        <span className="menu" role="menu">
          {FORMATS.map((f) => (
            <button key={f.format} role="menuitem" className="ghost" data-testid={`download-${f.format}`} onClick={() => get(f.format, f.suffix)}>
              {f.label}
            </button>
          ))}
        </span>
      )}
      {error && (
        <span className="error" data-testid="download-error">
          {error}
        </span>
      )}
    </span>
  );
}

/** Export the diff of two sessions as an HTML report. */
export function DiffReportButton({ a, b }: { a: number; b: number }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        className="ghost"
        data-testid="diff-report"
        onClick={() => download(`/api/diff/report?a=${a}&b=${b}`, `diff-${a}-${b}.html`).catch((e: Error) => setError(e.message))}
      >
        Export report (HTML)
      </button>
      {error && <span className="error">{error}</span>}
    </>
  );
}

/** Save an API answer as a file; a refusal throws with the API's `detail` (e.g. why a HAR cannot be made). */
async function download(path: string, filename: string): Promise<void> {
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(typeof body.detail === "string" ? body.detail : `${response.status} ${response.statusText}`);
  }
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

type Upload = { name: string; phase: "uploading" | "importing" | "done" | "failed"; fraction: number; text: string };

function upload(file: File, onProgress: (fraction: number) => void): Promise<ImportJob> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/imports?filename=${encodeURIComponent(file.name)}`);
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: { detail?: unknown } & Partial<ImportJob> = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: the status says enough */
      }
      if (xhr.status === 202) resolve(body as ImportJob);
      else reject(new Error(typeof body.detail === "string" ? body.detail : `${xhr.status} ${xhr.statusText}`));
    };
    xhr.onerror = () => reject(new Error("the upload failed (connection)"));
    xhr.send(file);
  });
}

async function follow(job: ImportJob, onJob: (job: ImportJob) => void): Promise<ImportJob> {
  while (job.state === "running") {
    await new Promise((r) => setTimeout(r, 150));
    const response = await fetch(`/api/imports/${job.id}`, { headers: authHeaders() });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    job = (await response.json()) as ImportJob;
    onJob(job);
  }
  return job;
}

/** "Import files…": pick session files or HAR files; each is uploaded, then imported, with progress. */
export function ImportButton({ onImported }: { onImported: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const set = (i: number, u: Partial<Upload>) => setUploads((list) => list.map((x, j) => (j === i ? { ...x, ...u } : x)));

  const start = async (files: FileList) => {
    const first = uploads.length;
    setUploads((list) => [
      ...list,
      ...Array.from(files).map((f) => ({ name: f.name, phase: "uploading" as const, fraction: 0, text: "uploading" })),
    ]);
    await Promise.all(
      Array.from(files).map(async (file, k) => {
        const i = first + k;
        try {
          let job = await upload(file, (fraction) => set(i, { fraction: fraction / 2, text: `uploading ${Math.round(fraction * 100)}%` }));
          set(i, { phase: "importing", fraction: 0.5, text: "importing" });
          job = await follow(job, (j) =>
            set(i, { fraction: 0.5 + j.done_bytes / Math.max(j.total_bytes, 1) / 2, text: `importing ${Math.round((j.done_bytes / Math.max(j.total_bytes, 1)) * 100)}%` }),
          );
          if (job.state === "done") {
            const ids = job.session_ids.map((s) => `#${s}`).join(", ");
            set(i, { phase: "done", fraction: 1, text: `imported ${ids || "no sessions"} (${job.messages} messages)` });
            onImported();
          } else set(i, { phase: "failed", text: job.error ?? "failed" });
        } catch (e) {
          set(i, { phase: "failed", text: (e as Error).message });
        }
      }),
    );
  };

  return (
    <>
      <button className="ghost" onClick={() => input.current?.click()} data-testid="import-open">
        Import files…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        accept=".jsonl,.har,.json,application/json"
        hidden
        data-testid="import-input"
        onChange={(e) => {
          if (e.target.files?.length) void start(e.target.files);
          e.target.value = "";
        }}
      />
      {uploads.length > 0 && (
        <ul className="imports" data-testid="imports">
          {uploads.map((u, i) => (
            <li key={i} className={`import-${u.phase}`} data-testid="import-row" data-phase={u.phase}>
              <span>{u.name}</span> <progress max={1} value={u.fraction} /> <span className={u.phase === "failed" ? "error" : "muted"}>{u.text}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
