// Tasks (2025-11-25): the tasks this client knows (from task-augmented calls, tasks/list and
// notifications/tasks/status), with poll (tasks/get, also automatic), fetch the result, cancel.
import { useEffect, useState } from "react";
import { ResultView } from "./Content";
import { rpcError, type Rpc } from "./api";
import { clock, workApi, type Activity } from "./work";

type Task = Record<string, unknown> & { taskId: string; status?: string; statusMessage?: string; pollInterval?: number };
const TERMINAL = ["completed", "failed", "cancelled"];

export function TasksTab({ clientId, activity }: { clientId: string; activity: Activity }) {
  const f = activity.features;
  const [error, setError] = useState<string | null>(null);
  const refresh = () =>
    workApi.listTasks(clientId).then((r) => setError(rpcError(r)), (e: Error) => setError(e.message));
  if (!f.tasks) return <p className="muted pane">The server did not declare the tasks capability.</p>;
  const tasks = activity.tasks as Task[];
  return (
    <div className="pane">
      <div className="toolbar">
        <strong>{tasks.length} tasks</strong>
        <button onClick={refresh} disabled={!f.task_list}>
          Refresh (tasks/list)
        </button>
        <span className="muted small">Call a tool as a task from the Tools tab ("run as a task").</span>
      </div>
      {error && <p className="error">{error}</p>}
      <ul className="history" aria-label="tasks">
        {tasks.map((t) => (
          <TaskRow key={t.taskId} clientId={clientId} task={t} canCancel={f.task_cancel} />
        ))}
      </ul>
    </div>
  );
}

function TaskRow({ clientId, task, canCancel }: { clientId: string; task: Task; canCancel: boolean }) {
  const [auto, setAuto] = useState(true);
  const [answer, setAnswer] = useState<Rpc | null>(null);
  const [busy, setBusy] = useState(false);
  const done = TERMINAL.includes(String(task.status));
  const poll = () => workApi.getTask(clientId, task.taskId).catch(() => undefined);
  useEffect(() => {
    if (!auto || done) return;
    const t = window.setInterval(poll, Math.max(500, Number(task.pollInterval ?? 1000)));
    return () => window.clearInterval(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [auto, done, task.taskId, task.pollInterval]);
  return (
    <li className="card task" data-testid="task" data-status={String(task.status)}>
      <div className="toolbar">
        <code>{task.taskId}</code>
        <span className="badge">{String(task.status)}</span>
        {task.statusMessage && <span className="muted">{task.statusMessage}</span>}
        <span className="grow" />
        <span className="muted small">
          {task.request ? `${String(task.request)} · ` : ""}created {String(task.createdAt ?? clock(task.seen as number))}
        </span>
      </div>
      <div className="toolbar">
        <button onClick={poll}>Poll (tasks/get)</button>
        <label className="check">
          <input type="checkbox" checked={auto && !done} disabled={done} onChange={(e) => setAuto(e.target.checked)} />
          poll automatically
        </label>
        <button
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              setAnswer(await workApi.taskAction(clientId, task.taskId, "result"));
            } finally {
              setBusy(false);
            }
          }}
        >
          {busy ? "Waiting for the result…" : "Get result (tasks/result)"}
        </button>
        <button disabled={done || !canCancel} onClick={() => workApi.taskAction(clientId, task.taskId, "cancel").then(setAnswer)}>
          Cancel task
        </button>
      </div>
      {answer && <ResultView response={answer} />}
    </li>
  );
}
