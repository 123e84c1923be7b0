import { createRequire } from 'node:module';
import type * as JsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { fromPointer, isPlainObject, valueAt } from '../util/json.js';

// Loaded when a patch is first asked for: `migrate --out-dir` and `--write` in text mode need none.
let jsonpatch: typeof JsonPatch | undefined;

/**
 * RFC 6902 operations that turn `before` into `after` (fast-json-patch's compare), with each
 * remove + add of the same value under object members folded into one `move`, so a renamed
 * key reads as a rename instead of a copy of its whole value.
 */
export function makePatch(before: unknown, after: unknown): Operation[] {
  if (before === after) return [];
  if (!isContainer(before) || !isContainer(after)) return [{ op: 'replace', path: '', value: after }];
  jsonpatch ??= createRequire(import.meta.url)('fast-json-patch') as typeof JsonPatch;
  const ops = jsonpatch.compare(before, after);
  const removes = new Map<number, unknown>();
  ops.forEach((op, i) => {
    if (op.op === 'remove' && parentIsObject(before, op.path)) removes.set(i, valueAt(before, fromPointer(op.path)));
  });
  if (removes.size === 0) return ops;
  const dropped = new Set<number>();
  const out: Operation[] = [];
  ops.forEach((op) => {
    if (op.op === 'add' && parentIsObject(after, op.path)) {
      for (const [j, value] of removes) {
        if (dropped.has(j) || !deepEqual(value, op.value)) continue;
        dropped.add(j);
        out.push({ op: 'move', from: (ops[j] as { path: string }).path, path: op.path });
        return;
      }
    }
    out.push(op);
  });
  const folded = new Set([...dropped].map((j) => ops[j]));
  return out.filter((op) => !folded.has(op));
}

function isContainer(v: unknown): v is object {
  return v !== null && typeof v === 'object';
}

function parentIsObject(doc: unknown, pointer: string): boolean {
  const tokens = fromPointer(pointer);
  return tokens.length > 0 && isPlainObject(valueAt(doc, tokens.slice(0, -1)));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Where a pointer of the patched document was before the patch: `patch`'s moves (a renamed key)
 * followed back, last operation first. null when the pointer names something the patch added or
 * replaced (it is not in the document before). Array items a remove shifted are not followed
 * (migration removes object members, not array items).
 */
export function sourcePointer(patch: readonly Operation[], pointer: string): string | null {
  let p = pointer;
  for (let i = patch.length - 1; i >= 0; i--) {
    const op = patch[i];
    const under = p === op.path || p.startsWith(`${op.path}/`);
    if (op.op === 'move') {
      if (under) p = op.from + p.slice(op.path.length);
    } else if ((op.op === 'add' || op.op === 'replace' || op.op === 'copy') && under) return null;
  }
  return p;
}
