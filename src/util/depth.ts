/**
 * Nesting depth of JSON values. Everything that walks a user's document recursively (migration,
 * validation, metrics, the sandbox's checks) relies on this limit being checked first, without
 * recursion, so that a 5,000-deep value is an input error naming its place instead of a stack
 * overflow.
 */
import { toPointer } from './json.js';

/** Documented in the README (Limits): objects and arrays nested more than this are refused. */
export const MAX_DEPTH = 256;

/**
 * The path of the first value nested deeper than `max` (the root object or array is depth 1),
 * or undefined when the value is within the limit. Iterative, so it works at any depth.
 */
export function depthExceededAt(value: unknown, max = MAX_DEPTH): Array<string | number> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // Each entry: a container, its depth, and the key that led to it (parent index in `keys`).
  const stack: Array<{ v: object; depth: number; at: number }> = [{ v: value, depth: 1, at: -1 }];
  const keys: Array<{ key: string | number; parent: number }> = [];
  while (stack.length) {
    const { v, depth, at } = stack.pop()!;
    if (depth > max) return pathOf(keys, at);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') {
          keys.push({ key: i, parent: at });
          stack.push({ v: c, depth: depth + 1, at: keys.length - 1 });
        }
      }
    } else {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const c: unknown = (v as Record<string, unknown>)[k];
        if (c !== null && typeof c === 'object') {
          keys.push({ key: k, parent: at });
          stack.push({ v: c, depth: depth + 1, at: keys.length - 1 });
        }
      }
    }
  }
  return undefined;
}

function pathOf(keys: ReadonlyArray<{ key: string | number; parent: number }>, at: number): Array<string | number> {
  const path: Array<string | number> = [];
  for (let i = at; i >= 0; i = keys[i].parent) path.push(keys[i].key);
  return path.reverse();
}

/** The JSON pointer where `value` passes the depth limit, or undefined. */
export function depthExceededPointer(value: unknown, max = MAX_DEPTH): string | undefined {
  const path = depthExceededAt(value, max);
  return path === undefined ? undefined : toPointer(path);
}

/**
 * A JSON text cannot nest deeper than its count of `{` and `[`: most texts are ruled out by their
 * length alone, and the others by that count (found with native searches, no walk, no allocation).
 */
export function mayExceedDepth(text: string, max = MAX_DEPTH): boolean {
  if (text.length <= 2 * max) return false;
  let opened = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1)) if (++opened > max) return true;
  }
  return false;
}
