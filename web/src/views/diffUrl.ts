// Links to the diff view.

/** The diff view's URL for two sessions and the extra ignore patterns (`strict`: volatile values
 * count as changes). */
export function diffUrl(a: number, b: number, ignore: string[] = [], strict = false): string {
  const q = new URLSearchParams({ a: String(a), b: String(b) });
  for (const p of ignore) q.append("ignore", p);
  if (strict) q.set("strict", "1");
  return `/diff?${q}`;
}
