import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { at, type Site } from './detect.js';
import { SPLITTER_OUTPUT_KEY } from './mapping.js';
import { setOwn } from './plan.js';
import { LAYOUTS, NEW_LAYOUT, OLD_LAYOUT } from './types.js';
import type { Layout } from './types.js';

export interface OutputPlan {
  from: Layout | null;
  /** [old key, new key] when the list is renamed. */
  rename: [string, string] | null;
}

/** Layout of a splitter output: `subDocumentClassifications` (2024-11-14) or `splits` (2025-04-21). */
export function planOutput(output: Record<string, unknown>, to: Layout, forced: Layout | undefined, site: Site): OutputPlan {
  const oldKey = SPLITTER_OUTPUT_KEY[OLD_LAYOUT];
  const newKey = SPLITTER_OUTPUT_KEY[NEW_LAYOUT];
  const hasOld = output[oldKey] !== undefined;
  const hasNew = output[newKey] !== undefined;
  if (hasOld && hasNew) {
    throw new InputError(`mixed layouts in one splitter output: ${at(site, oldKey).pointer} (${OLD_LAYOUT}) and ${at(site, newKey).pointer} (${NEW_LAYOUT})`, {
      location: at(site, oldKey),
      hint: 'keep one of the two lists',
    });
  }
  const detected = hasOld ? OLD_LAYOUT : hasNew ? NEW_LAYOUT : null;
  const from = forced ?? detected;
  if (from === null || from === to) return { from, rename: null };
  const source = SPLITTER_OUTPUT_KEY[from];
  if (output[source] === undefined || source === SPLITTER_OUTPUT_KEY[to]) return { from, rename: null };
  return { from, rename: [source, SPLITTER_OUTPUT_KEY[to]] };
}

/** A copy of `obj` with one key renamed in place (same position). */
export function renameKey(obj: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) setOwn(out, k === from ? to : k, v);
  return out;
}

/**
 * Splitter output in the `to` layout: `subDocumentClassifications` <-> `splits`, the list keeping
 * its position. Anything that is not a splitter output is returned as it is. Throws InputError
 * when both keys are present.
 */
export function convertSplitterOutput(output: unknown, to: Layout): unknown {
  if (!LAYOUTS.includes(to)) throw new InputError(`unknown layout "${String(to)}"`, { hint: `use ${LAYOUTS.join(' or ')}` });
  if (!isPlainObject(output)) return output;
  const plan = planOutput(output, to, undefined, { path: [] });
  return plan.rename ? renameKey(output, ...plan.rename) : output;
}
