// Where a diff change lands in one side's JSON. The server gives each change's path as steps
// (`ChangeOut.segments`: the path grammar lives once, in inspector/replay/paths.py); this follows them.
import type { components } from "../api/schema";

/** One step of a path: an object key, an array index, or an element picked by a key field. */
export type Segment = string | number | components["schemas"]["PathItemOut"];

/** A concrete location in a JSON value: object keys and array indexes. */
export type Location = (string | number)[];

export function locationId(loc: Location): string {
  return JSON.stringify(loc);
}

/**
 * Where a path points in `value`: the full location when every step resolves (`found`), else the
 * deepest location that does (the parent of something added or removed on the other side).
 */
export function resolve(value: unknown, segs: Segment[]): { location: Location; found: boolean } {
  const location: Location = [];
  let node: unknown = value;
  for (const seg of segs) {
    let step: string | number | null = null;
    if (typeof seg === "string") {
      if (node && typeof node === "object" && !Array.isArray(node) && seg in node) step = seg;
    } else if (typeof seg === "number") {
      if (Array.isArray(node) && seg >= 0 && seg < node.length) step = seg;
    } else if (Array.isArray(node)) {
      const i = node.findIndex((el) =>
        seg.field ? el && typeof el === "object" && (el as Record<string, unknown>)[seg.field] === seg.value : el === seg.value,
      );
      if (i >= 0) step = i;
    } else if (node && typeof node === "object" && seg.value in node) {
      step = seg.value; // notifications[<method>]: the view groups them by method
    }
    if (step === null) return { location, found: false };
    location.push(step);
    node = (node as Record<string | number, unknown>)[step];
  }
  return { location, found: true };
}
