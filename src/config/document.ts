import type { Operation } from 'fast-json-patch';
import { EvalkitError, InputError } from '../util/errors.js';
import { isPlainObject, toPointer, valueAt } from '../util/json.js';
import { at, detectRange, resolveType, type Segment, type Site } from './detect.js';
import { planConfig, setOwn, type Plan, type PlanOptions } from './plan.js';
import { makePatch } from './patch.js';
import { planOutput, renameKey } from './splitter.js';
import { sameJson, type TextChange } from './text.js';
import { INFERENCES, LAYOUTS, NEW_LAYOUT, PROCESSOR_TYPES, isLayout, isProcessorType } from './types.js';
import type { Dropped, Finding, Layout, MigrateOptions, MigrateResult, ProcessorType } from './types.js';
import { validateConfig } from './validate.js';
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
  if (type === null) return { next: config, plan: null, type, from: null, warnings, dropped: [] };
  const planOpts: PlanOptions = { allowLossy: opts.allowLossy === true, infer: new Set(opts.infer ?? []), partial: envelope?.partial };
  const from = sourceLayout(config, type, envelope, opts, planOpts, site);
  if (from === null) return { next: config, plan: null, type, from, warnings, dropped: [] };
  const r = planConfig(config, type, from, opts.to, planOpts, site);
  warnings.push(...r.warnings);
  return { next: r.next, plan: r.plan, type, from, warnings, dropped: r.dropped };
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
  // Several layouts fit: when they all migrate it alike, which one it is does not matter.
  let first: unknown;
  let alike = true;
  for (let i = lo; i <= hi && alike; i++) {
    let next: unknown;
    try {
      next = planConfig(config, type, LAYOUTS[i], opts.to, planOpts, site).next;
    } catch {
      alike = false;
      break;
    }
    if (i === lo) first = next;
    else alike = sameJson(first, next);
  }
  if (alike) return first === config ? null : LAYOUTS[hi];
  const inEffect = opts.inEffect ?? NEW_LAYOUT;
  if (allowed.includes(inEffect)) return inEffect;
  throw new InputError(`this ${type} config reads as ${allowed.join(' or ')}, which migrate it differently to ${opts.to}`, {
    location: at(site),
    hint: `pass --from ${allowed.join(' or --from ')} to say which it is`,
  });
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
        const r = migrateOneConfig(value, spot.envelope, opts, site);
        warnings.push(...r.warnings.map((w) => withLine(w, where.line)));
        dropped.push(...r.dropped.map((d) => withLine(d, where.line)));
        if (r.plan) {
          reps.push({ path: spot.path, value: r.next });
          textChanges.push({ path: spot.path, members: r.plan.members, renameOnly: r.plan.renameOnly });
        }
        if (opts.validate && r.type) {
          for (const f of validateConfig(r.next, opts.to, r.type)) {
            warnings.push(withLine({ pointer: pointer + f.pointer, message: `${opts.to} schema: ${f.message}` }, where.line));
          }
        }
        spots.push({ pointer, kind: 'config', type: r.type, from: r.from, changed: r.plan !== null });
      } else {
        const type = isProcessorType(spot.envelope?.value) ? spot.envelope.value : (opts.type ?? null);
        if (type !== null && type !== 'SPLITTER') continue;
        const plan = planOutput(value, opts.to, opts.from, site);
        if (plan.rename) {
          reps.push({ path: spot.path, value: renameKey(value, ...plan.rename) });
          textChanges.push({ path: spot.path, rename: plan.rename });
        }
        spots.push({ pointer, kind: 'output', type: 'SPLITTER', from: plan.from, changed: plan.rename !== null });
      }
    } catch (e) {
      if (!(e instanceof EvalkitError)) throw e;
      errors.push(e);
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
  const r = migrateTree(doc, opts);
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
