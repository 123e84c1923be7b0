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
        return `changed ${op.path || '/'}: ${shortJson(valueAt(before, fromPointer(op.path)))} -> ${shortJson(op.value)}`;
      case 'move':
        return `moved ${op.from} -> ${op.path}`;
      default:
        return `${op.op} ${op.path}`;
    }
  });
  return { patch, summary };
}
