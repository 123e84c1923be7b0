import { InputError } from '../util/errors.js';
import { isPlainObject, toPointer } from '../util/json.js';
import { at, type Site } from './detect.js';
import { DEFAULT_BASE_PROCESSOR, MAPPING_2026, type KeyPath, type Row2026 } from './mapping-2026-02-09.js';
import { convertFields, isFieldsOutput } from './fields-schema.js';
import { membersOf, type Edit } from './members.js';
import { deepEqual } from './patch.js';
import type { Step, StepDraft, StepOptions, Lossy } from './steps.js';
import type { Finding, ProcessorType } from './types.js';

/**
 * The step 2025-04-21 <-> 2026-02-09 (spec 3.2-3.5): the rows of MAPPING_2026 plus the structural
 * rules no single key carries: `type` leaves the config going up and comes back going down, a page
 * range needs both ends in 2026-02-09, a fields-form EXTRACT config has no 2026-02-09 form (with
 * `convertFields` its fields become a schema: fields-schema.ts), and a
 * `baseVersion` needs a `baseProcessor` in 2025-04-21. (An EXTRACT config without `schema` is
 * copied down as it is: the 2025-04-21 schema check names what it lacks.)
 */
export const STEP_2026_02_09: Step = {
  lower: '2025-04-21',
  upper: '2026-02-09',
  lowerEvidence: (config, type) => evidence(config, type, 'lower'),
  upperEvidence: (config, type) => evidence(config, type, 'upper'),
  up,
  down,
};

const ROWS = new Map<ProcessorType, readonly Row2026[]>();
function rowsOf(type: ProcessorType): readonly Row2026[] {
  let rows = ROWS.get(type);
  if (!rows) ROWS.set(type, (rows = MAPPING_2026.filter((r) => r.types.includes(type))));
  return rows;
}

const LOWER_ROWS = new Map<ProcessorType, readonly Row2026[]>();
/** The rows of a type with a 2025-04-21 key (the ones going up reads), in table order. */
function lowerRowsOf(type: ProcessorType): readonly Row2026[] {
  let rows = LOWER_ROWS.get(type);
  if (!rows) LOWER_ROWS.set(type, (rows = rowsOf(type).filter((r) => r.lower !== null)));
  return rows;
}

/** Every place in `obj` that `path` names (`[]`: each array item; `x*`: each key starting with x), with its value. */
export function matches(obj: unknown, path: KeyPath): Array<{ path: Array<string | number>; value: unknown }> {
  // Asked for every row of every config migrated: most configs lack the row's first key.
  const first = path[0];
  // (The last character compared as a code: endsWith is a call V8 does not inline here.)
  if (!isPlainObject(obj) || (first !== '[]' && first.charCodeAt(first.length - 1) !== STAR && obj[first] === undefined)) return NO_MATCHES;
  const out: Array<{ path: Array<string | number>; value: unknown }> = [];
  const walk = (node: unknown, i: number, prefix: Array<string | number>) => {
    if (i === path.length) {
      if (node !== undefined) out.push({ path: prefix, value: node });
      return;
    }
    const seg = path[i];
    if (seg === '[]') {
      if (Array.isArray(node)) node.forEach((v, j) => walk(v, i + 1, [...prefix, j]));
    } else if (isPlainObject(node)) {
      if (seg.endsWith('*')) {
        const stem = seg.slice(0, -1);
        for (const k of Object.keys(node)) if (k.startsWith(stem)) walk(node[k], i + 1, [...prefix, k]);
      } else if (Object.hasOwn(node, seg)) walk(node[seg], i + 1, [...prefix, seg]);
    }
  };
  walk(obj, 0, []);
  return out;
}

const NO_MATCHES: Array<{ path: Array<string | number>; value: unknown }> = [];
const STAR = 42;

/** The paths (and values) that are evidence of one side, per type and side: built once. */
const EVIDENCE = new Map<string, ReadonlyArray<{ path: KeyPath; wanted: string | undefined }>>();
function evidenceRows(type: ProcessorType, side: 'lower' | 'upper'): ReadonlyArray<{ path: KeyPath; wanted: string | undefined }> {
  const id = type + side;
  let rows = EVIDENCE.get(id);
  if (!rows) {
    rows = rowsOf(type).flatMap((r) => {
      const path = r[side];
      const other = side === 'lower' ? r.upper : r.lower;
      const wanted = side === 'lower' ? r.lowerValue : r.upperValue;
      // A key both sides have counts only for the value that differs.
      return path && !(other && sameKeyPath(other, path) && wanted === undefined) ? [{ path, wanted }] : [];
    });
    EVIDENCE.set(id, rows);
  }
  return rows;
}

/** Paths of keys (or values) only one side of this step has. */
function evidence(config: Record<string, unknown>, type: ProcessorType, side: 'lower' | 'upper'): ReadonlyArray<readonly string[]> {
  let out: Array<readonly string[]> | undefined;
  for (const { path, wanted } of evidenceRows(type, side)) {
    for (const m of matches(config, path)) if (wanted === undefined || m.value === wanted) (out ??= []).push(m.path.map(String));
  }
  return out ?? NONE;
}
const NONE: ReadonlyArray<readonly string[]> = [];

function sameKeyPath(a: KeyPath, b: KeyPath): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function lossyAt(site: Site, path: Array<string | number>, value: unknown, row?: Row2026): Lossy {
  return { pointer: at(site, ...path).pointer, key: path.join('.'), value, path, ...(row?.inferred ? { infer: row.inferred } : {}) };
}

function up(config: Record<string, unknown>, type: ProcessorType, site: Site, opts: StepOptions): StepDraft {
  const edits: Edit[] = [];
  const lossy: Lossy[] = [];
  const warnings: Finding[] = [];
  let converted: Lossy[] = [];
  if (type === 'EXTRACT' && config.fields !== undefined) {
    if (!opts.convertFields) {
      throw new InputError('a fields-form EXTRACT config has no 2026-02-09 form (extractors take a JSON Schema `schema` only)', {
        location: at(site, 'fields'),
        hint: 'pass --convert-fields (with the items of its evaluation sets) to convert the fields to a JSON Schema, or rewrite them yourself (docs/migrate.md, "Fields-form configs"), or keep this config on the 2025-04-21 /processors endpoints',
      });
    }
    const c = convertFields(config, site);
    edits.push({ path: ['fields'], kind: 'replace', to: 'schema', value: c.schema, hasValue: true });
    converted = c.lossy;
  }
  for (const r of lowerRowsOf(type)) {
    for (const m of matches(config, r.lower!)) {
      if (r.route) edits.push({ path: m.path, kind: 'drop' });
      else if (r.upper && r.lowerValue === undefined) {
        edits.push({ path: m.path, kind: 'replace', to: r.upper[r.upper.length - 1], hasValue: false });
      } else if (r.upper) {
        if (m.value !== r.lowerValue) continue;
        if (r.inferred && opts.infer.has(r.inferred)) {
          edits.push({ path: m.path, kind: 'replace', value: r.upperValue, hasValue: true });
          warnings.push({ pointer: at(site, ...m.path).pointer, message: `INFERRED (--infer ${r.inferred}): ${JSON.stringify(r.lowerValue)} became ${JSON.stringify(r.upperValue)}` });
        } else lossy.push(lossyAt(site, m.path, m.value, r));
      } else if (r.inferred === 'fixedPageLimit' && opts.infer.has('fixedPageLimit')) {
        edits.push(fixedPageLimitEdit(config, m.path, m.value, site));
        warnings.push({ pointer: at(site, ...m.path).pointer, message: `INFERRED (--infer fixedPageLimit): fixedPageLimit ${JSON.stringify(m.value)} became pageRanges [{"start": 1, "end": ${JSON.stringify(m.value)}}]` });
      } else if (!isUnder(m.path, edits)) lossy.push(lossyAt(site, m.path, m.value, r));
    }
  }
  checkPageRanges(config, site);
  for (const l of lossy) edits.push({ path: l.path, kind: 'drop' });
  // Inside the replaced `fields`: listed, no edit of their own.
  for (const l of converted) lossy.push(l);
  return { members: membersOf(config, edits), lossy, warnings };
}

/** A path inside one dropped already (nothing more to say about it). */
function isUnder(path: ReadonlyArray<string | number>, edits: readonly Edit[]): boolean {
  return edits.some((e) => e.kind === 'drop' && e.path.length < path.length && e.path.every((s, i) => s === path[i]));
}

function fixedPageLimitEdit(config: Record<string, unknown>, path: ReadonlyArray<string | number>, value: unknown, site: Site): Edit {
  const options = config.advancedOptions;
  if (isPlainObject(options) && options.pageRanges !== undefined) {
    throw new InputError(`both ${at(site, 'advancedOptions', 'pageRanges').pointer} and ${at(site, ...path).pointer} are present; --infer fixedPageLimit would overwrite pageRanges`, {
      location: at(site, ...path),
      hint: 'keep one of the two (pageRanges is what 2026-02-09 reads), then migrate',
    });
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InputError(`fixedPageLimit must be a whole number of pages (1 or more) to become a page range; got ${JSON.stringify(value)}`, {
      location: at(site, ...path),
      hint: 'fix the value, or pass --allow-lossy instead of --infer fixedPageLimit to drop it',
    });
  }
  return { path, kind: 'replace', to: 'pageRanges', value: [{ start: 1, end: value }], hasValue: true };
}

/** 2026-02-09 requires both ends of every page range (spec 3.2); a missing one is not guessed. */
function checkPageRanges(config: Record<string, unknown>, site: Site): void {
  for (const m of matches(config, ['advancedOptions', 'pageRanges', '[]'])) {
    if (!isPlainObject(m.value)) continue;
    const missing = ['start', 'end'].filter((k) => m.value !== null && (m.value as Record<string, unknown>)[k] === undefined);
    if (missing.length) {
      throw new InputError(`a page range without ${missing.join(' and ')}: 2026-02-09 requires both start and end`, {
        location: at(site, ...m.path),
        hint: `add ${missing.map((k) => `"${k}"`).join(' and ')} to the range (page numbers from 1), then migrate`,
      });
    }
  }
}

function down(config: Record<string, unknown>, type: ProcessorType, site: Site, opts: StepOptions): StepDraft {
  const edits: Edit[] = [];
  const lossy: Lossy[] = [];
  const warnings: Finding[] = [];
  if (config.type === undefined && !opts.partial) edits.push({ path: ['type'], kind: 'add', value: type, before: null });
  for (const r of rowsOf(type)) {
    if (!r.upper || r.route) continue;
    for (const m of matches(config, r.upper)) {
      if (r.lower && r.upperValue === undefined) {
        if (!sameKeyPath(r.lower, r.upper)) edits.push({ path: m.path, kind: 'replace', to: r.lower[r.lower.length - 1], hasValue: false });
      } else if (r.upperValue !== undefined) {
        if (m.value !== r.upperValue) continue;
        if (r.lower && r.inferred && opts.infer.has(r.inferred)) {
          edits.push({ path: m.path, kind: 'replace', value: r.lowerValue, hasValue: true });
          warnings.push({ pointer: at(site, ...m.path).pointer, message: `INFERRED (--infer ${r.inferred}): ${JSON.stringify(r.upperValue)} became ${JSON.stringify(r.lowerValue)}` });
        } else lossy.push(lossyAt(site, m.path, m.value, r));
      } else if (r.defaultValue !== undefined && deepEqual(m.value, r.defaultValue)) {
        // Its value is what its absence means: dropping it loses nothing.
        edits.push({ path: m.path, kind: 'drop' });
      } else lossy.push(lossyAt(site, m.path, m.value));
    }
  }
  if (config.baseVersion !== undefined && config.baseProcessor === undefined && !opts.partial) {
    edits.push({ path: ['baseProcessor'], kind: 'add', value: DEFAULT_BASE_PROCESSOR[type], before: 'baseVersion' });
    warnings.push({ pointer: at(site, 'baseProcessor').pointer, message: `added "baseProcessor": "${DEFAULT_BASE_PROCESSOR[type]}" (2025-04-21 needs one beside baseVersion; 2026-02-09's default)` });
  }
  for (const l of lossy) edits.push({ path: l.path, kind: 'drop' });
  return { members: membersOf(config, edits), lossy, warnings };
}

/**
 * Split ids going down (2025-04-21 requires one per split, 2026-02-09 has none): `split_<n>`, n the
 * split's position in the list from 1. Deterministic, so migrating down twice gives the same ids,
 * and an id equal to it is dropped going up without loss.
 */
export function splitId(index: number): string {
  return `split_${index + 1}`;
}

/**
 * One split of a SPLITTER expected output going up (spec 3.7): it loses `id`, `identifier` and
 * `observation`. Each one it has is named in `drop`, and given to `lose` unless dropping it loses
 * nothing (an id that going down gives back: splitId). Returns the split without them (a copy),
 * or null when it has none of them.
 */
export function splitUp(split: Record<string, unknown>, index: number, lose: (key: string, value: unknown) => void): { kept: Record<string, unknown>; drop: string[] } | null {
  if (split.id === undefined && split.identifier === undefined && split.observation === undefined) return null;
  const { id, identifier, observation, ...kept } = split;
  const drop: string[] = [];
  if (id !== undefined) {
    drop.push('id');
    if (id !== splitId(index)) lose('id', id);
  }
  if (identifier !== undefined) {
    drop.push('identifier');
    lose('identifier', identifier);
  }
  if (observation !== undefined) {
    drop.push('observation');
    lose('observation', observation);
  }
  return { kept, drop };
}

/**
 * An expected output (an evaluation set item's, spec 3.7) from 2025-04-21 to 2026-02-09: CLASSIFY
 * loses `confidence` (lossless when 1), SPLITTER splits lose `id` (lossless when it is the id going
 * down would give back), `identifier` and `observation`; a fields-form EXTRACT output has no
 * 2026-02-09 form. Returns the members of the converted output and what they drop.
 */
export function expectedUp(output: Record<string, unknown>, type: ProcessorType, site: Site): { edits: Edit[]; lossy: Lossy[] } {
  const edits: Edit[] = [];
  const lossy: Lossy[] = [];
  // The keys of these paths need no escaping: the pointer is the output's pointer and the key path
  // (one pointer per output, not one per key dropped: an output may drop dozens).
  const base = toPointer(site.path);
  const lose = (path: Array<string | number>, key: string, tail: string, value: unknown) => {
    lossy.push({ pointer: `${base}/${tail}`, key, value, path });
    edits.push({ path, kind: 'drop' });
  };
  if (type === 'CLASSIFY' && output.confidence !== undefined) {
    if (output.confidence === 1) edits.push({ path: ['confidence'], kind: 'drop' });
    else lose(['confidence'], 'confidence', 'confidence', output.confidence);
  } else if (type === 'SPLITTER' && Array.isArray(output.splits)) {
    const splits = output.splits;
    for (let i = 0; i < splits.length; i++) {
      const s: unknown = splits[i];
      if (!isPlainObject(s)) continue;
      const r = splitUp(s, i, (key, value) => lossy.push({ pointer: `${base}/splits/${i}/${key}`, key: `splits.${i}.${key}`, value, path: ['splits', i, key] }));
      for (const key of r?.drop ?? []) edits.push({ path: ['splits', i, key], kind: 'drop' });
    }
  } else if (type === 'EXTRACT' && isFieldsOutput(output)) {
    throw new InputError('a fields-form EXTRACT expected output (a record of fields) has no 2026-02-09 form', {
      location: at(site),
      hint: 'expected outputs in 2026-02-09 are {"value": {...}} of a schema extractor: rewrite the item as the value of its fields, or keep it on 2025-04-21',
    });
  }
  return { edits, lossy };
}

/** An expected output from 2026-02-09 to 2025-04-21: each split gets its id (splitId) first. */
export function expectedDown(output: Record<string, unknown>, type: ProcessorType): Edit[] {
  const edits: Edit[] = [];
  if (type === 'SPLITTER' && Array.isArray(output.splits)) {
    output.splits.forEach((s, i) => {
      if (isPlainObject(s) && s.id === undefined) edits.push({ path: ['splits', i, 'id'], kind: 'add', value: splitId(i), before: null });
    });
  }
  return edits;
}

/** The layout an expected output shows: splits with ids or a confidence -> 2025-04-21 (or older), a split without id -> 2026-02-09; null when it reads the same in both. */
export function expectedLayout(output: Record<string, unknown>, type: ProcessorType): '2025-04-21' | '2026-02-09' | null {
  if (type === 'CLASSIFY') return output.confidence !== undefined ? '2025-04-21' : null;
  if (type === 'SPLITTER' && Array.isArray(output.splits) && output.splits.length) {
    return output.splits.every((s) => isPlainObject(s) && s.id !== undefined) ? '2025-04-21' : '2026-02-09';
  }
  if (type === 'EXTRACT' && isFieldsOutput(output)) return '2025-04-21';
  return null;
}
