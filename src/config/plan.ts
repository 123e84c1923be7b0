import { InputError } from '../util/errors.js';
import { isPlainObject, valueAt } from '../util/json.js';
import { at, type Segment, type Site } from './detect.js';
import { ADVANCED, rowsByOldKey, rowsOf } from './mapping.js';
import { NEW_LAYOUT, OLD_LAYOUT } from './types.js';
import type { Dropped, Finding, Layout, ProcessorType } from './types.js';

/**
 * How the migrated config is built from the source config, member by member and in order.
 * The same plan builds the migrated object and the migrated text, so both agree on key order.
 */
export type Member =
  /** The value at `from` (a path inside the source config), under `key`. */
  | { key: string; from: readonly string[] }
  /** A new object built from members (advancedOptions gathered from moved keys). */
  | { key: string; members: Member[] };

export interface Plan {
  members: Member[];
  /** True when every member is a kept or renamed top-level key in the original order. */
  renameOnly: boolean;
}

export interface PlanResult {
  /** null when nothing changes. */
  plan: Plan | null;
  dropped: Dropped[];
  warnings: Finding[];
}

const LOSSY_HINT = 'pass --allow-lossy to drop these keys (each is listed with its value), or remove them first';

/**
 * Plan the conversion of one config of a known type from `from` to `to`. Keys that have no
 * place in the target are refused (InputError naming each key) unless allowLossy.
 */
export function planConfig(
  config: Record<string, unknown>,
  type: ProcessorType,
  from: Layout,
  to: Layout,
  allowLossy: boolean,
  site: Site,
): PlanResult {
  if (from === to) return { plan: null, dropped: [], warnings: [] };
  const r = to === NEW_LAYOUT ? planUp(config, type, site) : planDown(config, type, site);
  if (r.lossy.length && !allowLossy) {
    const list = r.lossy.map((d) => d.pointer).join(', ');
    const target = to === NEW_LAYOUT ? NEW_LAYOUT : OLD_LAYOUT;
    throw new InputError(`${r.lossy.length === 1 ? 'a key has' : `${r.lossy.length} keys have`} no counterpart in ${target}: ${list}`, {
      location: { ...at(site), pointer: r.lossy[0].pointer },
      hint: LOSSY_HINT,
    });
  }
  // The key list once: indexing Object.keys(config) inside every() made this quadratic.
  const keys = Object.keys(config);
  const identity = r.members.length === keys.length && r.members.every((m, i) => 'from' in m && m.from.length === 1 && m.key === m.from[0] && keys[i] === m.key);
  const renameOnly = r.members.length === keys.length && r.members.every((m, i) => 'from' in m && m.from.length === 1 && keys[i] === m.from[0]);
  return { plan: identity ? null : { members: r.members, renameOnly }, dropped: r.lossy, warnings: r.warnings };
}

interface Draft {
  members: Member[];
  lossy: Dropped[];
  warnings: Finding[];
}

function collision(site: Site, existing: Segment[], incoming: Segment[]): InputError {
  const a = at(site, ...existing).pointer;
  const b = at(site, ...incoming).pointer;
  return new InputError(`both ${b} and ${a} are present; moving ${b} would overwrite ${a}`, {
    location: at(site, ...incoming),
    hint: 'keep one of the two keys (they mean the same setting in different layouts)',
  });
}

/** 2024-11-14 -> 2025-04-21. */
function planUp(config: Record<string, unknown>, type: ProcessorType, site: Site): Draft {
  const rows = rowsByOldKey(type);
  const members: Member[] = [];
  const lossy: Dropped[] = [];
  const existing = config[ADVANCED];
  const moved: Member[] = [];
  const keys = Object.keys(config);
  for (const key of keys) {
    const row = rows.get(key);
    const value = config[key];
    if (!row || value === undefined) continue;
    if (row.new === null) lossy.push({ pointer: at(site, key).pointer, key, value });
    else if (row.new.length === 2) {
      if (existing !== undefined && !isPlainObject(existing)) {
        throw new InputError(`cannot move ${at(site, key).pointer} into ${at(site, ADVANCED).pointer}: it is not an object`, {
          location: at(site, ADVANCED),
          hint: 'make advancedOptions an object, or remove it',
        });
      }
      if (isPlainObject(existing) && existing[row.new[1]] !== undefined) throw collision(site, [ADVANCED, row.new[1]], [key]);
      moved.push({ key: row.new[1], from: [key] });
    } else if (config[row.new[0]] !== undefined) throw collision(site, [row.new[0]], [key]);
  }
  let advancedPlaced = false;
  for (const key of keys) {
    const row = rows.get(key);
    if (!row || config[key] === undefined) {
      if (key === ADVANCED && moved.length && isPlainObject(existing)) {
        // Merging into an advancedOptions that is already there (only with --from): it keeps its place.
        members.push({ key, members: [...Object.keys(existing).map((k) => ({ key: k, from: [ADVANCED, k] })), ...moved] });
        advancedPlaced = true;
      } else members.push({ key, from: [key] });
      continue;
    }
    if (row.new === null) continue;
    if (row.new.length === 1) members.push({ key: row.new[0], from: [key] });
    else if (!advancedPlaced && !isPlainObject(existing)) {
      // advancedOptions takes the place of the first key moved into it.
      members.push({ key: ADVANCED, members: moved });
      advancedPlaced = true;
    }
  }
  return { members, lossy, warnings: [] };
}

/** 2025-04-21 -> 2024-11-14. */
function planDown(config: Record<string, unknown>, type: ProcessorType, site: Site): Draft {
  const rows = rowsOf(type);
  const renamed = new Map(rows.filter((r) => r.new?.length === 1).map((r) => [r.new![0], r.old]));
  const unnested = new Map(rows.filter((r) => r.new?.length === 2).map((r) => [r.new![1], r.old]));
  const members: Member[] = [];
  const lossy: Dropped[] = [];
  const warnings: Finding[] = [];
  for (const [key, value] of Object.entries(config)) {
    const old = renamed.get(key);
    if (old !== undefined && value !== undefined) {
      if (config[old] !== undefined) throw collision(site, [old], [key]);
      members.push({ key: old, from: [key] });
    } else if (key === ADVANCED && value !== undefined) {
      if (!isPlainObject(value)) {
        lossy.push({ pointer: at(site, key).pointer, key, value });
        continue;
      }
      if (Object.keys(value).length === 0) {
        warnings.push({ pointer: at(site, key).pointer, message: `removed an empty ${ADVANCED} (${OLD_LAYOUT} has no such object)` });
      }
      // Members that have an old name take the place of advancedOptions, in their order.
      for (const [option, v] of Object.entries(value)) {
        const oldKey = unnested.get(option);
        if (oldKey === undefined || v === undefined) {
          if (v !== undefined) lossy.push({ pointer: at(site, key, option).pointer, key: `${key}.${option}`, value: v });
          continue;
        }
        if (config[oldKey] !== undefined) throw collision(site, [oldKey], [key, option]);
        members.push({ key: oldKey, from: [key, option] });
      }
    } else members.push({ key, from: [key] });
  }
  return { members, lossy, warnings };
}

/** Build the migrated object from a plan; values are shared with the source, not copied. */
export function applyPlan(config: Record<string, unknown>, members: readonly Member[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of members) setOwn(out, m.key, 'from' in m ? valueAt(config, m.from) : applyPlan(config, m.members));
  return out;
}

/** obj[key] = value, also for "__proto__" (which JSON.parse makes an ordinary member). */
export function setOwn(obj: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
