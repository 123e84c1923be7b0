import type { Operation } from 'fast-json-patch';
import { EvalkitError, InputError } from '../util/errors.js';
import { identicalJson, isPlainObject, toPointer, valueAt } from '../util/json.js';
import { at, detectRange, resolveType, type Segment, type Site } from './detect.js';
import { lossyError, planConfig, setOwn, type Plan, type PlanOptions } from './plan.js';
import { applyPlan, compose, inPlaceOf, membersOf, type Edit, type Member } from './members.js';
import { expectedDown, expectedLayout, expectedUp, splitUp } from './step-2026-02-09.js';
import { convertFieldsOutput, isFieldsOutput } from './fields-schema.js';
import { fieldsRunOf, type FieldsRun } from './fields-run.js';
import type { Lossy } from './steps.js';
import { makePatch } from './patch.js';
import { planOutput, renameKey } from './splitter.js';
import { SPLITTER_OUTPUT_KEY } from './mapping.js';
import type { TextChange } from './text.js';
import { INFERENCES, LATEST_LAYOUT, LAYOUTS, NEW_LAYOUT, OLD_LAYOUT, PROCESSOR_TYPES, isLayout, isProcessorType } from './types.js';
import type { Dropped, Finding, Inference, Layout, MigrateOptions, MigrateResult, ProcessorType } from './types.js';
import { validateConfig } from './validate.js';
import { UnknownKeysError, unknownKeyError, unknownKeys } from './known-keys.js';
import { findSpots, type Spot } from './walk.js';

/** What migration found at one place of a document. */
export interface SpotReport {
  pointer: string;
  kind: 'config' | 'output';
  type: ProcessorType | null;
  from: Layout | null;
  changed: boolean;
}

export interface TreeOptions extends MigrateOptions {
  /** Validate every config found against the target layout's schema (findings become warnings). */
  validate?: boolean;
  /**
   * With convertFields: the call's fields-form configs and items, paired (fields-run.ts). Made
   * by the call from what it is given when absent; migrateFiles makes one for all its files.
   */
  fieldsRun?: FieldsRun;
}

/** Migration of a whole document: every config and splitter output in it. */
export interface TreeResult {
  doc: unknown;
  changed: boolean;
  spots: SpotReport[];
  textChanges: TextChange[];
  warnings: Finding[];
  dropped: Dropped[];
  /** Input errors, one per config or output that could not be migrated. */
  errors: EvalkitError[];
}

export interface Where {
  file?: string;
  /** JSONL line of the record. */
  line?: number;
}

export function checkOptions(opts: MigrateOptions): void {
  const bad = (what: string, v: unknown, allowed: readonly string[]) =>
    new InputError(`unknown ${what} ${JSON.stringify(v)}`, { hint: `use ${allowed.join(' or ')}` });
  if (!isLayout(opts.to)) throw bad('layout', opts.to, LAYOUTS);
  if (opts.from !== undefined && !isLayout(opts.from)) throw bad('layout', opts.from, LAYOUTS);
  if (opts.type !== undefined && !isProcessorType(opts.type)) throw bad('processor type', opts.type, PROCESSOR_TYPES);
  if (opts.inEffect !== undefined && !isLayout(opts.inEffect)) throw bad('layout', opts.inEffect, LAYOUTS);
  for (const i of opts.infer ?? []) if (!INFERENCES.includes(i)) throw bad('INFERRED mapping', i, INFERENCES);
}

interface ConfigOutcome {
  next: Record<string, unknown>;
  plan: Plan | null;
  type: ProcessorType | null;
  from: Layout | null;
  warnings: Finding[];
  dropped: Dropped[];
}

/** One config: type, layout, plan. Throws InputError for what cannot be migrated. */
function migrateOneConfig(config: Record<string, unknown>, envelope: Spot['envelope'], opts: MigrateOptions, site: Site): ConfigOutcome {
  const warnings: Finding[] = [];
  const type = resolveType(config, site, envelope, opts.type, warnings);
  if (!opts.allowUnknown) {
    // A typo of a key would reach the service, which would not apply it (docs/migrate.md, "Unknown keys").
    const unknown = unknownKeys(config, type);
    if (unknown.length) throw new UnknownKeysError(unknown.map((u) => unknownKeyError(u, type, site)), unknown);
  }
  if (type === null) return { next: config, plan: null, type, from: null, warnings, dropped: [] };
  const planOpts: PlanOptions = { allowLossy: opts.allowLossy === true, infer: inferSet(opts), partial: envelope?.partial, convertFields: opts.convertFields === true };
  const from = sourceLayout(config, type, envelope, opts, planOpts, site);
  if (from === null) return { next: config, plan: null, type, from, warnings, dropped: [] };
  const r = planConfig(config, type, from, opts.to, planOpts, site);
  warnings.push(...r.warnings);
  return { next: r.next, plan: r.plan, type, from, warnings, dropped: r.dropped };
}

// One set per options object, not per config.
const INFER_SETS = new WeakMap<MigrateOptions, ReadonlySet<Inference>>();
const NO_INFER: ReadonlySet<Inference> = new Set();
function inferSet(opts: MigrateOptions): ReadonlySet<Inference> {
  if (!opts.infer?.length) return NO_INFER;
  let set = INFER_SETS.get(opts);
  if (!set) INFER_SETS.set(opts, (set = new Set(opts.infer)));
  return set;
}

/**
 * The layout a config is read in (docs/migrate.md, "Which layout a config is in"): its keys when
 * they allow one layout; --from (which must be one the keys allow, or settle a config whose keys
 * are mixed); the envelope (a 2026-02-09 object or run body); no choice needed when every layout
 * the keys allow migrates it alike (null when it is then left unchanged); the layout of the API
 * version in effect; else an InputError asking for --from.
 */
function sourceLayout(config: Record<string, unknown>, type: ProcessorType, envelope: Spot['envelope'], opts: MigrateOptions, planOpts: PlanOptions, site: Site): Layout | null {
  let range;
  try {
    range = detectRange(config, type, site);
  } catch (e) {
    // Mixed: --from says which keys count.
    if (opts.from) return opts.from;
    throw e;
  }
  const { lo, hi } = range;
  const allowed = LAYOUTS.slice(lo, hi + 1);
  if (opts.from) {
    if (allowed.includes(opts.from)) return opts.from;
    throw new InputError(`this ${type} config is not in the ${opts.from} layout (--from): its keys are those of ${allowed.join(' or ')}`, {
      location: at(site),
      hint: `drop --from to let each config's keys decide, or pass --from ${allowed[allowed.length - 1]}`,
    });
  }
  if (lo === hi) return LAYOUTS[lo];
  if (envelope?.layout && allowed.includes(envelope.layout)) return envelope.layout;
  // Several layouts fit: when they all migrate it alike, which one it is does not matter; when
  // they all refuse it alike (a fields-form EXTRACT config going up), that refusal is the answer.
  let first: unknown;
  let refused: InputError | undefined;
  let alike = true;
  for (let i = lo; i <= hi && alike; i++) {
    let next: unknown;
    try {
      next = planConfig(config, type, LAYOUTS[i], opts.to, planOpts, site).next;
    } catch (e) {
      alike = e instanceof InputError && (i === lo || (refused !== undefined && e.describe() === refused.describe()));
      if (alike && i === lo) refused = e as InputError;
      continue;
    }
    if (i === lo) first = next;
    else alike = refused === undefined && identicalJson(first, next);
  }
  if (alike && refused) throw refused;
  if (alike) return first === config ? null : LAYOUTS[hi];
  const inEffect = opts.inEffect ?? NEW_LAYOUT;
  if (allowed.includes(inEffect)) return inEffect;
  throw new InputError(`this ${type} config reads as ${allowed.join(' or ')}, which migrate it differently to ${opts.to}`, {
    location: at(site),
    hint: `pass --from ${allowed.join(' or --from ')} to say which it is`,
  });
}

interface OutputOutcome {
  next: Record<string, unknown>;
  /** The text changes at the output's path (`base`); null when nothing changes. */
  changes: TextChange[] | null;
  from: Layout | null;
  dropped: Dropped[];
}

/**
 * One output: the splitter list's key (2024-11-14 <-> 2025-04-21, run and expected outputs alike)
 * and, for expected outputs, their 2026-02-09 form (spec 3.7; run outputs keep theirs). Going up
 * the key is renamed first, going down last, so each stage sees the layout it knows.
 */
function migrateOutput(output: Record<string, unknown>, type: ProcessorType, expected: boolean, opts: TreeOptions, site: Site): OutputOutcome {
  const plan = type === 'SPLITTER' ? planOutput(output, opts.to, opts.from, site) : { from: null, rename: null };
  const renamed = (o: Record<string, unknown>): Member[] => Object.keys(o).map((k) => ({ key: plan.rename && k === plan.rename[0] ? plan.rename[1] : k, from: [k] }));
  const upTo2026 = opts.to === LATEST_LAYOUT;
  let from: Layout | null = plan.from;
  // A 2024-11-14 list (subDocumentClassifications) is no 2026-02-09 output, whatever its items hold.
  const oldList = type === 'SPLITTER' && output[SPLITTER_OUTPUT_KEY[OLD_LAYOUT]] !== undefined;
  const shown = expected && !oldList ? expectedLayout(output, type) : null;
  if (shown === LATEST_LAYOUT || (shown && from === null)) from = shown;
  const renameOnly = (): OutputOutcome =>
    plan.rename
      ? { next: renameKey(output, ...plan.rename), changes: [{ path: site.path, rename: plan.rename }], from, dropped: [] }
      : { next: output, changes: null, from, dropped: [] };
  if (!expected) return renameOnly();
  let members: Member[] | null = null;
  let cur = output;
  const stage = (ms: Member[]) => {
    members = members ? compose(members, ms) : ms;
    cur = applyPlan(cur, ms);
  };
  let lossy: Lossy[] = [];
  if (upTo2026 && type === 'EXTRACT' && isFieldsOutput(output)) {
    const r = fieldsOutputUp(output, opts, site);
    stage(r.members);
    lossy = r.lossy;
  } else if (upTo2026 && type === 'SPLITTER') {
    const r = splitsUp(output, plan.rename, site);
    if (r === null) return renameOnly();
    if (r.dropped.length && !opts.allowLossy) throw lossyError(r.dropped, opts.to, site);
    return { next: r.next, changes: r.changes, from, dropped: r.dropped };
  } else if (upTo2026) {
    const r = expectedUp(output, type, site);
    if (r.edits.length === 0) return renameOnly();
    lossy = r.lossy;
    if (lossy.length && !opts.allowLossy) throw lossyError(lossy, opts.to, site);
    stage(membersOf(cur, r.edits));
  } else {
    const edits = oldList ? [] : expectedDown(cur, type);
    if (edits.length === 0) return renameOnly();
    const split = splitEdits(output, plan.rename, edits, site);
    if (split) return { next: split.next, changes: split.changes, from, dropped: [] };
    stage(membersOf(cur, edits));
    if (plan.rename) stage(renamed(cur));
  }
  if (lossy.length && !opts.allowLossy) throw lossyError(lossy, opts.to, site);
  const dropped = droppedOf(lossy);
  if (members === null) return { next: output, changes: null, from, dropped };
  const ms: Member[] = members;
  return { next: cur, changes: [{ path: site.path, members: ms, inPlace: inPlaceOf(ms, Object.keys(output)) }], from, dropped };
}

function droppedOf(lossy: readonly Lossy[]): Dropped[] {
  const out: Dropped[] = [];
  for (const l of lossy) out.push({ pointer: l.pointer, key: l.key, value: l.value });
  return out;
}

/**
 * A SPLITTER expected output going up (spec 3.7): each split loses what splitUp says, cut in place
 * split by split, and the list's key is renamed in place when it is renamed, instead of the whole
 * output re-laid out. Lists what is lost, each pointer naming the list by its key in the input.
 * null when no split loses anything.
 */
function splitsUp(output: Record<string, unknown>, rename: [string, string] | null, site: Site): { next: Record<string, unknown>; changes: TextChange[]; dropped: Dropped[] } | null {
  const source = rename ? rename[0] : SPLITTER_OUTPUT_KEY[NEW_LAYOUT];
  const target = rename ? rename[1] : source;
  const list = output[source];
  if (!Array.isArray(list)) return null;
  const changes: TextChange[] = rename ? [{ path: site.path, rename }] : [];
  const dropped: Dropped[] = [];
  let nextList: unknown[] | null = null;
  // Neither list key needs escaping.
  const listAt = `${toPointer(site.path)}/${source}/`;
  const sourcePath = withSegment(site.path, source);
  const targetPath = withSegment(site.path, target);
  let index = 0;
  let splitAt = '';
  const lose = (key: string, value: unknown) => {
    if (splitAt === '') splitAt = `${index}`;
    dropped.push({ pointer: `${listAt}${splitAt}/${key}`, key: `splits.${splitAt}.${key}`, value });
  };
  for (; index < list.length; index++) {
    const split: unknown = list[index];
    if (!isPlainObject(split)) continue;
    splitAt = '';
    const r = splitUp(split, index, lose);
    if (r === null) continue;
    (nextList ??= list.slice())[index] = r.kept;
    changes.push({ path: withSegment(sourcePath, index), at: withSegment(targetPath, index), drop: r.drop });
  }
  if (nextList === null) return null;
  return { next: withList(output, source, target, nextList), changes, dropped };
}

/** The output with its list `source` replaced by `list` under the key `target` (in the same place). */
function withList(output: Record<string, unknown>, source: string, target: string, list: unknown[]): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  for (const k of Object.keys(output)) setOwn(next, k === source ? target : k, k === source ? list : output[k]);
  return next;
}

/** A path and one more segment (slice and push: V8's concat and spread take slower paths). */
function withSegment(path: readonly Segment[], seg: Segment): Segment[] {
  const out = path.slice();
  out.push(seg);
  return out;
}

/**
 * Edits that all lie inside the splits of a splitter output (paths ["splits", index, ...]: split
 * ids going down), made split by split: each split changed on its own, the list's key renamed in
 * place, instead of the whole output re-laid out. null when an edit lies elsewhere. The output's
 * list key is `rename[0]` when it is renamed (the edits name it "splits", the key of 2025-04-21
 * and 2026-02-09).
 */
function splitEdits(output: Record<string, unknown>, rename: [string, string] | null, edits: readonly Edit[], site: Site): { next: Record<string, unknown>; changes: TextChange[] } | null {
  const listKey = SPLITTER_OUTPUT_KEY[NEW_LAYOUT];
  const source = rename ? rename[0] : listKey;
  const target = rename ? rename[1] : listKey;
  const list = output[source];
  if (!Array.isArray(list)) return null;
  const byItem = new Map<number, Edit[]>();
  for (const e of edits) {
    const i = e.path[1];
    if (e.path.length < 3 || e.path[0] !== listKey || typeof i !== 'number' || !isPlainObject(list[i])) return null;
    const inner = { ...e, path: e.path.slice(2) } as Edit;
    const got = byItem.get(i);
    if (got) got.push(inner);
    else byItem.set(i, [inner]);
  }
  const changes: TextChange[] = rename ? [{ path: site.path, rename }] : [];
  const nextList = list.slice();
  for (const [i, itemEdits] of byItem) {
    const item = list[i] as Record<string, unknown>;
    const path = [...site.path, source, i];
    const at = [...site.path, target, i];
    const ms = membersOf(item, itemEdits);
    nextList[i] = applyPlan(item, ms);
    changes.push({ path, at, members: ms, inPlace: inPlaceOf(ms, Object.keys(item)) });
  }
  return { next: withList(output, source, target, nextList), changes };
}

/**
 * A fields-form EXTRACT expected output going up: converted with the config it pairs with in the
 * run (--convert-fields), else refused (it has no 2026-02-09 form).
 */
function fieldsOutputUp(output: Record<string, unknown>, opts: TreeOptions, site: Site): { members: Member[]; lossy: Lossy[] } {
  if (!opts.convertFields || !opts.fieldsRun) {
    throw new InputError('a fields-form EXTRACT expected output (a record of fields) has no 2026-02-09 form', {
      location: at(site),
      hint: 'expected outputs in 2026-02-09 are {"value": {...}} of a schema extractor: pass --convert-fields with the processor\'s fields-form config in the same command to convert both, or keep it on 2025-04-21',
    });
  }
  const { fields, configAt } = opts.fieldsRun.itemFields(site);
  return convertFieldsOutput(output, fields, site, configAt);
}

/** Copy-on-write replacement of values at paths; untouched subtrees are shared. */
function replaceAt(doc: unknown, reps: ReadonlyArray<{ path: readonly Segment[]; value: unknown }>): unknown {
  if (reps.length === 0) return doc;
  const whole = reps.find((r) => r.path.length === 0);
  if (whole) return whole.value;
  const clone = (v: unknown): Record<string | number, unknown> => (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  const root = clone(doc);
  const fresh = new Set<unknown>([root]);
  for (const { path, value } of reps) {
    let cur = root;
    for (const k of path.slice(0, -1)) {
      let child = cur[k];
      if (!fresh.has(child)) {
        child = clone(child);
        setOwn(cur, k, child);
        fresh.add(child);
      }
      cur = child as Record<string | number, unknown>;
    }
    setOwn(cur, path[path.length - 1], value);
  }
  return root;
}

function withLine<T extends object>(v: T, line: number | undefined): T {
  return line === undefined ? v : { ...v, line };
}

/**
 * Migrates every config and splitter output of a parsed document. Never throws for input
 * problems: they are collected in `errors`, and then nothing in the document should be written.
 */
export function migrateTree(doc: unknown, opts: TreeOptions, where: Where = {}): TreeResult {
  const spots: SpotReport[] = [];
  const textChanges: TextChange[] = [];
  const warnings: Finding[] = [];
  const dropped: Dropped[] = [];
  const errors: EvalkitError[] = [];
  const reps: Array<{ path: readonly Segment[]; value: unknown }> = [];
  for (const spot of findSpots(doc)) {
    const site: Site = { file: where.file, line: where.line, path: spot.path };
    const pointer = toPointer(spot.path);
    const value = valueAt(doc, spot.path) as Record<string, unknown>;
    try {
      if (spot.kind === 'config') {
        if (!isPlainObject(value)) {
          throw new InputError(`a processor config must be a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}`, {
            location: at(site),
            hint: 'give the config as an object of its members ({"schema": ...}), or remove the member',
          });
        }
        opts.fieldsRun?.checkConfig(site);
        const r = migrateOneConfig(value, spot.envelope, opts, site);
        for (const w of r.warnings) warnings.push(withLine(w, where.line));
        for (const d of r.dropped) dropped.push(withLine(d, where.line));
        if (r.plan) {
          reps.push({ path: spot.path, value: r.next });
          textChanges.push({ path: spot.path, members: r.plan.members, inPlace: r.plan.inPlace });
        }
        if (opts.validate && r.type) {
          // An override config names only what it replaces (spec 3.1): no member is required in it.
          for (const f of validateConfig(r.next, opts.to, r.type, { partial: spot.envelope?.partial === true })) {
            warnings.push(withLine({ pointer: pointer + f.pointer, message: `${opts.to} schema: ${f.message}` }, where.line));
          }
        }
        spots.push({ pointer, kind: 'config', type: r.type, from: r.from, changed: r.plan !== null });
      } else {
        const given = isProcessorType(spot.envelope?.value) ? spot.envelope.value : (opts.type ?? null);
        const splitterShape = Array.isArray(value.splits) || Array.isArray(value.subDocumentClassifications);
        const type = given ?? (splitterShape ? 'SPLITTER' : isFieldsOutput(value) ? 'EXTRACT' : 'CLASSIFY');
        if (type === 'SPLITTER' ? !splitterShape : !spot.expected) continue;
        const r = migrateOutput(value, type, spot.expected === true, opts, site);
        for (const d of r.dropped) dropped.push(withLine(d, where.line));
        if (r.changes) {
          reps.push({ path: spot.path, value: r.next });
          for (const c of r.changes) textChanges.push(c);
        }
        spots.push({ pointer, kind: 'output', type, from: r.from, changed: r.changes !== null });
      }
    } catch (e) {
      if (!(e instanceof EvalkitError)) throw e;
      if (e instanceof UnknownKeysError) errors.push(...e.all);
      else errors.push(e);
    }
  }
  const next = errors.length ? doc : replaceAt(doc, reps);
  return { doc: next, changed: errors.length === 0 && reps.length > 0, spots, textChanges, warnings, dropped, errors };
}

/** The source layout to report for a document: that of what changed, else the one all agree on. */
export function summarizeFrom(spots: readonly SpotReport[]): Layout | null {
  const changed = new Set(spots.filter((s) => s.changed).map((s) => s.from));
  if (changed.size === 1) return [...changed][0];
  const all = new Set(spots.map((s) => s.from).filter((f) => f !== null));
  return all.size === 1 ? [...all][0] : null;
}

/**
 * Migrates one bare processor config to the `to` layout. Pure: the input is not changed and the
 * result shares nothing with it. Throws InputError for a mixed layout, keys with no counterpart
 * in the target (unless allowLossy), an unknown type, or a type that the keys do not settle.
 */
export function migrateConfig(doc: unknown, opts: MigrateOptions): MigrateResult {
  checkOptions(opts);
  if (!isPlainObject(doc)) throw new InputError('a processor config must be a JSON object', { location: { pointer: '' } });
  // One config is a whole run: converted fields need noItems (its items are not in the call).
  if (opts.convertFields) fieldsRunOf([{ doc }], opts).checkConfig({ path: [] });
  const r = migrateOneConfig(doc, undefined, opts, { path: [] });
  const next = r.plan ? structuredClone(r.next) : structuredClone(doc);
  return {
    doc: next,
    from: r.from,
    to: opts.to,
    type: r.type,
    changed: r.plan !== null,
    patch: r.plan ? makePatch(doc, r.next) : [],
    warnings: r.warnings,
    dropped: structuredClone(r.dropped),
  };
}

/** What a migration reports, of a document or of a file. */
export interface MigrationReport {
  from: Layout | null;
  to: Layout;
  /** Every config and splitter output found, with its pointer, type and layout. */
  items: SpotReport[];
  /** RFC 6902 operations from the input to its migrated form. */
  patch: Operation[];
  warnings: Finding[];
  dropped: Dropped[];
}

/** The result of migrating a whole document (envelopes, arrays, API responses). */
export interface DocumentResult extends MigrationReport {
  doc: unknown;
  changed: boolean;
}

/**
 * Migrates every config and splitter output in a document: a bare config, a processor
 * (`config`, `draftVersion.config`), a processor version, a processor run (config and outputs),
 * request bodies, evaluation set items, API responses and arrays of these. Throws the first
 * InputError; pass `validate` to add schema findings to `warnings`.
 */
export function migrateDocument(doc: unknown, opts: TreeOptions): DocumentResult {
  checkOptions(opts);
  const r = migrateTree(doc, opts.convertFields && !opts.fieldsRun ? { ...opts, fieldsRun: fieldsRunOf([{ doc }], opts) } : opts);
  if (r.errors.length) throw r.errors[0];
  return {
    doc: structuredClone(r.doc),
    changed: r.changed,
    from: summarizeFrom(r.spots),
    to: opts.to,
    items: r.spots,
    patch: makePatch(doc, r.doc),
    warnings: r.warnings,
    dropped: structuredClone(r.dropped),
  };
}
