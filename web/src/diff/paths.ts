// The diff's JSON paths (as inspector/replay/paths.py writes them) read back, and resolved in a JSON value.
//
//   result.content[0].text
//   result.tools[name=weather].inputSchema.required[1]
//   result._meta["io.modelcontextprotocol/serverInfo"]
//   notifications[notifications/progress]

/** One step of a path: an object key, an array index, or an element picked by a key field. */
export type Segment =
  | { key: string }
  | { index: number }
  | { field: string; value: string };

const BARE_KEY = /[^.[\]"\s:=]+/y;
const FIELD = /[A-Za-z_][A-Za-z0-9_-]*/y;
const INDEX = /^-?[0-9]+$/;

function jsonString(text: string, pos: number): [string, number] {
  // A JSON string starting at pos: find its closing quote, then let JSON.parse decode it.
  let i = pos + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\") i += 2;
    else if (ch === '"') return [JSON.parse(text.slice(pos, i + 1)) as string, i + 1];
    else i += 1;
  }
  throw new Error(`unclosed string in ${text}`);
}

function match(re: RegExp, text: string, pos: number): string | null {
  re.lastIndex = pos;
  const m = re.exec(text);
  return m ? m[0] : null;
}

function bracket(text: string, pos: number): [Segment, number] {
  let seg: Segment;
  let end: number;
  const field = match(FIELD, text, pos);
  if (text[pos] === '"') {
    const [key, after] = jsonString(text, pos);
    [seg, end] = [{ key }, after];
  } else if (text[pos] === "=") {
    const [value, after] = jsonString(text, pos + 1);
    [seg, end] = [{ field: "", value }, after];
  } else if (field && text.startsWith('="', pos + field.length)) {
    const [value, after] = jsonString(text, pos + field.length + 1);
    [seg, end] = [{ field, value }, after];
  } else {
    const close = text.indexOf("]", pos);
    if (close < 0) throw new Error(`unclosed [ in ${text}`);
    const inner = text.slice(pos, close);
    if (INDEX.test(inner)) seg = { index: Number(inner) };
    else if (field && text[pos + field.length] === "=" && pos + field.length < close)
      seg = { field, value: text.slice(pos + field.length + 1, close) };
    else seg = { field: "", value: inner };
    end = close;
  }
  if (text[end] !== "]") throw new Error(`expected ] at ${end} in ${text}`);
  return [seg, end + 1];
}

/** The segments of a path's text; throws on text the diff never writes. */
export function parsePath(text: string): Segment[] {
  const segs: Segment[] = [];
  let pos = 0;
  while (pos < text.length) {
    if (text[pos] === "[") {
      const [seg, next] = bracket(text, pos + 1);
      segs.push(seg);
      pos = next;
      continue;
    }
    if (text[pos] === ".") pos += 1;
    const word = match(BARE_KEY, text, pos);
    if (!word) throw new Error(`expected a key at ${pos} in ${text}`);
    segs.push({ key: word });
    pos += word.length;
  }
  return segs;
}

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
    if ("key" in seg) {
      if (node && typeof node === "object" && !Array.isArray(node) && seg.key in node) step = seg.key;
    } else if ("index" in seg) {
      if (Array.isArray(node) && seg.index >= 0 && seg.index < node.length) step = seg.index;
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
