import { InputError } from '../util/errors.js';
import { at, type Site } from './detect.js';
import { applyPlan, compose, inPlaceOf, sourcePath, type Member } from './members.js';
import { stepsBetween, type Lossy, type StepOptions } from './steps.js';
import { toPointer } from '../util/json.js';
import type { Dropped, Finding, Layout, ProcessorType } from './types.js';

export type { Member } from './members.js';
export { applyPlan, setOwn } from './members.js';

export interface Plan {
  members: Member[];
  /** True when every member is a kept or renamed top-level key in the original order (others left out): see inPlaceOf. */
  inPlace: boolean;
}

export interface PlanResult {
  /** null when nothing changes. */
  plan: Plan | null;
  /** The migrated config (the input itself when nothing changes). */
  next: Record<string, unknown>;
  dropped: Dropped[];
  warnings: Finding[];
}

export interface PlanOptions extends StepOptions {
  allowLossy: boolean;
}

/**
 * Plan the conversion of one config of a known type from `from` to `to`: the steps between them
 * applied one after the other, their members composed into one plan on the source (so one text
 * edit serves the whole chain). Keys that have no place in the target are refused (InputError
 * naming each key) unless allowLossy; INFERRED mappings apply only when named in `infer`.
 */
export function planConfig(config: Record<string, unknown>, type: ProcessorType, from: Layout, to: Layout, opts: PlanOptions, site: Site): PlanResult {
  if (from === to) return { plan: null, next: config, dropped: [], warnings: [] };
  let cur = config;
  let members: Member[] | null = null;
  const lossy: Lossy[] = [];
  const warnings: Finding[] = [];
  for (const { step, dir } of stepsBetween(from, to)) {
    const d = step[dir](cur, type, site, opts);
    // Pointers of a later step name the key where the input has it, when it was copied from there.
    for (const l of d.lossy) lossy.push(members ? relocate(l, members, site) : l);
    for (const w of d.warnings) warnings.push(w);
    members = members ? compose(members, d.members) : d.members;
    cur = applyPlan(cur, d.members);
  }
  if (lossy.length && !opts.allowLossy) throw lossyError(lossy, to, site);
  // The key list once: indexing Object.keys(config) inside every() made this quadratic.
  const keys = Object.keys(config);
  const ms = members!;
  const identity = ms.length === keys.length && ms.every((m, i) => 'from' in m && m.from.length === 1 && m.key === m.from[0] && keys[i] === m.key);
  if (identity) return { plan: null, next: config, dropped: [], warnings };
  const dropped: Dropped[] = [];
  for (const { pointer, key, value } of lossy) dropped.push({ pointer, key, value });
  return { plan: { members: ms, inPlace: inPlaceOf(ms, keys) }, next: cur, dropped, warnings };
}

function relocate(l: Lossy, members: readonly Member[], site: Site): Lossy {
  if (l.path.some((s) => typeof s === 'number')) return l;
  const src = sourcePath(members, l.path as string[]);
  return src ? { ...l, pointer: toPointer([...site.path, ...src]) } : l;
}

export function lossyError(lossy: ReadonlyArray<Dropped & { infer?: Lossy['infer'] }>, to: Layout, site: Site): InputError {
  const list = lossy.map((d) => d.pointer).join(', ');
  const infer = [...new Set(lossy.flatMap((l) => (l.infer ? [l.infer] : [])))];
  const hint =
    'pass --allow-lossy to drop these keys (each is listed with its value), or remove them first' +
    (infer.length ? `; ${infer.map((i) => `--infer ${i}`).join(' and ')} would map ${infer.length === 1 ? 'it' : 'them'} instead (an INFERRED equivalence: docs/migrate.md)` : '');
  return new InputError(`${lossy.length === 1 ? 'a key has' : `${lossy.length} keys have`} no counterpart in ${to}: ${list}`, {
    location: { ...at(site), pointer: lossy[0].pointer },
    hint,
  });
}
