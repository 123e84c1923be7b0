/**
 * Field paths as people write them in CSV headers: `vendor.name`, `line_items[0].amount`,
 * `line_items` (a JSON cell). Segments are object keys (strings) and array indexes (numbers).
 */
export type Segment = string | number;

/** Parses a header path; returns undefined when the text is not a path. */
export function parsePath(text: string): Segment[] | undefined {
  const segs: Segment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|(\.)/y;
  let expectKey = true;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return undefined;
    if (m[1] !== undefined) {
      if (!expectKey) return undefined;
      segs.push(m[1].trim());
      expectKey = false;
    } else if (m[2] !== undefined) {
      if (segs.length === 0) return undefined;
      segs.push(Number(m[2]));
      expectKey = false;
    } else {
      if (expectKey) return undefined;
      expectKey = true;
    }
    i = re.lastIndex;
  }
  if (segs.length === 0 || expectKey) return undefined;
  return segs;
}

/** ['line_items', 0, 'amount'] -> 'line_items[0].amount' */
export function formatPath(segs: readonly Segment[]): string {
  let out = '';
  for (const s of segs) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** Whether `prefix` is a prefix of `segs` (equal counts). */
export function isPrefix(prefix: readonly Segment[], segs: readonly Segment[]): boolean {
  if (prefix.length > segs.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== segs[i]) return false;
  return true;
}

/** Sets a value at a path, creating objects for string segments and arrays for numbers. */
export function setAt(root: Record<string, unknown>, segs: readonly Segment[], value: unknown): void {
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < segs.length - 1; i++) {
    const s = segs[i];
    let next = cur[s];
    if (next === undefined || next === null || typeof next !== 'object') {
      next = typeof segs[i + 1] === 'number' ? [] : {};
      cur[s] = next;
    }
    cur = next as Record<string | number, unknown>;
  }
  cur[segs[segs.length - 1]] = value;
}
