/**
 * The difference between two processor configs: RFC 6902 operations (the migrate module's
 * makePatch: fast-json-patch's compare with renames folded into moves) and one readable line
 * per operation.
 */
import type { Operation } from 'fast-json-patch';
import { makePatch } from '../config/index.js';
import { fromPointer, valueAt } from '../util/json.js';

export interface ConfigDiff {
  patch: Operation[];
  /** One line per operation: `changed /extractionRules: "a" -> "b"`. */
  summary: string[];
}

const MAX_VALUE = 80;

/** A value as short JSON for a summary line. */
export function shortJson(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE - 3)}...` : s;
}

/** Characters shown before the first difference of two long strings, and in all. */
const BEFORE = 20;
const WINDOW = 80;

/** `s` from `start` (a code point boundary), at most WINDOW characters, as JSON with `…` where text is left out. */
function windowOf(s: string, start: number): string {
  let end = Math.min(s.length, start + WINDOW);
  // Not between the two halves of a surrogate pair.
  if (end < s.length && /[\uDC00-\uDFFF]/.test(s[end])) end--;
  return `"${start > 0 ? '…' : ''}${JSON.stringify(s.slice(start, end)).slice(1, -1)}${end < s.length ? '…' : ''}"`;
}

/**
 * Two strings as a changed line shows them: whole when both are short; else each from a little
 * before the first character where they differ (the common prefix left out, marked `…`), so that
 * the change is on the line whatever its place in the text.
 */
export function changedStrings(before: string, after: string): [string, string] {
  const a = JSON.stringify(before);
  const b = JSON.stringify(after);
  if (a.length <= MAX_VALUE && b.length <= MAX_VALUE) return [a, b];
  let same = 0;
  while (same < before.length && same < after.length && before[same] === after[same]) same++;
  let start = Math.max(0, same - BEFORE);
  if (start > 0 && /[\uDC00-\uDFFF]/.test(before[start])) start--;
  return [windowOf(before, start), windowOf(after, start)];
}

function changed(before: unknown, after: unknown): string {
  if (typeof before === 'string' && typeof after === 'string') return changedStrings(before, after).join(' -> ');
  return `${shortJson(before)} -> ${shortJson(after)}`;
}

/** What an array element at `pointer` is called, when it is an item with an id (`fields/2 (id "total")`). */
function label(doc: unknown, pointer: string): string {
  const v = valueAt(doc, fromPointer(pointer));
  const id = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).id : undefined;
  return typeof id === 'string' ? `${pointer || '/'} (id ${JSON.stringify(id)})` : pointer || '/';
}

export function diffConfigs(before: unknown, after: unknown): ConfigDiff {
  const patch = makePatch(before, after);
  const summary = patch.map((op) => {
    switch (op.op) {
      case 'add':
        return `added ${label(after, op.path)}: ${shortJson(op.value)}`;
      case 'remove':
        return `removed ${label(before, op.path)} (was ${shortJson(valueAt(before, fromPointer(op.path)))})`;
      case 'replace':
        return `changed ${op.path || '/'}: ${changed(valueAt(before, fromPointer(op.path)), op.value)}`;
      case 'move':
        return `moved ${op.from} -> ${op.path}`;
      default:
        return `${op.op} ${op.path}`;
    }
  });
  return { patch, summary };
}
