import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { at, type Segment, type Site } from './detect.js';
import { ADVANCED, newOnlyKeys, oldOnlyKeys, rowsByOldKey, rowsOf } from './mapping.js';
import type { Member } from './members.js';
import type { Lossy, Step, StepDraft } from './steps.js';
import { OLD_LAYOUT, type Finding, type ProcessorType } from './types.js';

/**
 * The step 2024-11-14 <-> 2025-04-21: the key changes of mapping.ts (MAPPING), top-level keys
 * renamed or moved into advancedOptions and back.
 */
export const STEP_2025_04_21: Step = {
  lower: '2024-11-14',
  upper: '2025-04-21',
  lowerEvidence: (config, type) => present(config, oldOnlyKeys(type)),
  upperEvidence: (config, type) => present(config, newOnlyKeys(type)),
  up: (config, type, site) => planUp(config, type, site),
  down: (config, type, site) => planDown(config, type, site),
};

/** The keys of `keys` that `config` has (with a value), as paths; without allocating when it has none. */
function present(config: Record<string, unknown>, keys: readonly string[]): ReadonlyArray<readonly string[]> {
  let out: Array<readonly string[]> | undefined;
  for (const k of keys) if (config[k] !== undefined) (out ??= []).push([k]);
  return out ?? NONE;
}
const NONE: ReadonlyArray<readonly string[]> = [];

function collision(site: Site, existing: Segment[], incoming: Segment[]): InputError {
  const a = at(site, ...existing).pointer;
  const b = at(site, ...incoming).pointer;
  return new InputError(`both ${b} and ${a} are present; moving ${b} would overwrite ${a}`, {
    location: at(site, ...incoming),
    hint: 'keep one of the two keys (they mean the same setting in different layouts)',
  });
}

/** 2024-11-14 -> 2025-04-21. */
function planUp(config: Record<string, unknown>, type: ProcessorType, site: Site): StepDraft {
  const rows = rowsByOldKey(type);
  const members: Member[] = [];
  const lossy: Lossy[] = [];
  const existing = config[ADVANCED];
  const moved: Member[] = [];
  const keys = Object.keys(config);
  for (const key of keys) {
    const row = rows.get(key);
    const value = config[key];
    if (!row || value === undefined) continue;
    if (row.new === null) lossy.push({ pointer: at(site, key).pointer, key, value, path: [key] });
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
function planDown(config: Record<string, unknown>, type: ProcessorType, site: Site): StepDraft {
  const rows = rowsOf(type);
  const renamed = new Map(rows.filter((r) => r.new?.length === 1).map((r) => [r.new![0], r.old]));
  const unnested = new Map(rows.filter((r) => r.new?.length === 2).map((r) => [r.new![1], r.old]));
  const members: Member[] = [];
  const lossy: Lossy[] = [];
  const warnings: Finding[] = [];
  for (const [key, value] of Object.entries(config)) {
    const old = renamed.get(key);
    if (old !== undefined && value !== undefined) {
      if (config[old] !== undefined) throw collision(site, [old], [key]);
      members.push({ key: old, from: [key] });
    } else if (key === ADVANCED && value !== undefined) {
      if (!isPlainObject(value)) {
        lossy.push({ pointer: at(site, key).pointer, key, value, path: [key] });
        continue;
      }
      if (Object.keys(value).length === 0) {
        warnings.push({ pointer: at(site, key).pointer, message: `removed an empty ${ADVANCED} (${OLD_LAYOUT} has no such object)` });
      }
      // Members that have an old name take the place of advancedOptions, in their order.
      for (const [option, v] of Object.entries(value)) {
        const oldKey = unnested.get(option);
        if (oldKey === undefined || v === undefined) {
          if (v !== undefined) lossy.push({ pointer: at(site, key, option).pointer, key: `${key}.${option}`, value: v, path: [key, option] });
          continue;
        }
        if (config[oldKey] !== undefined) throw collision(site, [oldKey], [key, option]);
        members.push({ key: oldKey, from: [key, option] });
      }
    } else members.push({ key, from: [key] });
  }
  return { members, lossy, warnings };
}

