// Pretty JSON of one side of an exchange with the diff's paths highlighted. The way down to each
// change is open and a changed subtree is shown whole; what lies beside that way, or any large
// subtree when nothing changed, starts folded (one line, with its `name`/`uri` when it has one).
import { useEffect, useRef, useState } from "react";
import { locationId, type Location } from "./locations";

/** `volatile`: changed only in clock-like parts (times, dates, ids, counters), shown muted. */
export type Mark = "changed" | "added" | "removed" | "volatile";

const FOLD_CHARS = 300; // a subtree with no change is folded beyond this much JSON
const FOLD_BESIDE = 120; // ... and beyond this much when it sits beside the way to a change

interface Ctx {
  marks: Map<string, Mark>;
  onPath: Set<string>; // ancestors of a mark (kept open)
}

/**
 * `marks`: highlighted locations; `reveal`: locations to open without a highlight (where the other
 * side has something this side lacks).
 */
export function JsonDiffTree({
  value,
  marks,
  reveal = [],
  testId,
}: {
  value: unknown;
  marks: Map<string, Mark>;
  reveal?: string[];
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const onPath = new Set<string>(reveal);
  for (const id of [...marks.keys(), ...reveal]) {
    const loc = JSON.parse(id) as Location;
    for (let i = 0; i < loc.length; i++) onPath.add(locationId(loc.slice(0, i)));
  }
  useEffect(() => {
    // Bring the first highlighted node into view inside this pane (not the page).
    const first = box.current?.querySelector<HTMLElement>(".hit");
    if (first && box.current) box.current.scrollTop = Math.max(0, first.offsetTop - box.current.offsetTop - 40);
  }, [value, marks]);
  return (
    <div className="json-diff mono" ref={box} data-testid={testId}>
      <Node name={null} value={value} loc={[]} last ctx={{ marks, onPath }} beside={false} inMark={false} />
    </div>
  );
}

function summary(value: object): string {
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? "" : "s"}`;
  const rec = value as Record<string, unknown>;
  for (const k of ["name", "uri", "type", "role"]) {
    if (typeof rec[k] === "string") return `${k}: ${JSON.stringify(rec[k])}, …`;
  }
  return `${Object.keys(rec).length} keys`;
}

function Scalar({ value }: { value: unknown }) {
  const cls = value === null ? "null" : typeof value;
  return <span className={`jv-${cls}`}>{JSON.stringify(value)}</span>;
}

function Node({
  name,
  value,
  loc,
  last,
  ctx,
  beside,
  inMark,
}: {
  name: string | number | null;
  value: unknown;
  loc: Location;
  last: boolean;
  ctx: Ctx;
  beside: boolean; // the parent is on the way to a change, this node is not
  inMark: boolean; // inside a highlighted subtree
}) {
  const id = locationId(loc);
  const mark = ctx.marks.get(id);
  const branch = value !== null && typeof value === "object";
  const onPath = ctx.onPath.has(id);
  const [open, setOpen] = useState(
    () =>
      !branch ||
      loc.length === 0 ||
      onPath ||
      !!mark ||
      inMark ||
      JSON.stringify(value).length <= (beside ? FOLD_BESIDE : FOLD_CHARS),
  );
  const label =
    name === null || typeof name === "number" ? null : (
      <>
        <span className="jk">{JSON.stringify(name)}</span>:{" "}
      </>
    );
  const comma = last ? "" : ",";
  const hitProps = mark
    ? { className: `hit hit-${mark}`, "data-testid": "diff-hit", "data-path": id, "data-mark": mark, title: mark }
    : { className: onPath && loc.length ? "on-path" : undefined };
  if (!branch) {
    return (
      <div {...hitProps}>
        <div className="jl">
          {label}
          <Scalar value={value} />
          {comma}
        </div>
      </div>
    );
  }
  const isArray = Array.isArray(value);
  const entries: [string | number, unknown][] = isArray
    ? (value as unknown[]).map((v, i) => [i, v])
    : Object.entries(value as Record<string, unknown>);
  const [l, r] = isArray ? ["[", "]"] : ["{", "}"];
  const toggle = entries.length ? (
    <button
      className="fold"
      aria-expanded={open}
      aria-label={open ? "Fold" : "Unfold"}
      onClick={() => setOpen(!open)}
    >
      {open ? "▾" : "▸"}
    </button>
  ) : (
    <span className="fold" />
  );
  if (!open || !entries.length) {
    return (
      <div {...hitProps}>
        <div className="jl">
          {toggle}
          {label}
          {l}
          {entries.length ? <span className="muted"> {summary(value as object)} </span> : null}
          {r}
          {comma}
        </div>
      </div>
    );
  }
  return (
    <div {...hitProps}>
      <div className="jl">
        {toggle}
        {label}
        {l}
      </div>
      <div className="jc">
        {entries.map(([k, v], i) => (
          <Node
            key={String(k)}
            name={k}
            value={v}
            loc={[...loc, k]}
            last={i === entries.length - 1}
            ctx={ctx}
            beside={onPath && !ctx.onPath.has(locationId([...loc, k]))}
            inMark={inMark || !!mark}
          />
        ))}
      </div>
      <div className="jl">
        <span className="fold" />
        {r}
        {comma}
      </div>
    </div>
  );
}
