import { InputError } from '../util/errors.js';
import { isPlainObject, toPointer } from '../util/json.js';
import { ADVANCED, BASE_PROCESSOR_PREFIX, OPTION_EVIDENCE, TYPE_EVIDENCE, newOnlyKeys, oldOnlyKeys } from './mapping.js';
import { STEPS } from './steps.js';
import { LAYOUTS, PROCESSOR_TYPES, isProcessorType } from './types.js';
import type { Finding, ProcessorType } from './types.js';

export type Segment = string | number;

/** Where a config sits, for error locations: the file, the JSONL line, the path inside. */
export interface Site {
  file?: string;
  line?: number;
  path: readonly Segment[];
}

export function at(site: Site, ...more: Segment[]): { file?: string; line?: number; pointer: string } {
  return { file: site.file, line: site.line, pointer: toPointer([...site.path, ...more]) };
}

const TYPE_HINT = 'add "type": "EXTRACT" | "CLASSIFY" | "SPLITTER" to the config, or pass --type';

/**
 * The processor type of a config: the config's own `type`, else the envelope's `type` or
 * `processorType`, else the caller's fallback, else inferred from the keys when they settle it.
 * Returns null only when the config has no key whose meaning depends on the type.
 */
export function resolveType(
  config: Record<string, unknown>,
  site: Site,
  envelope: { value: unknown; path: readonly Segment[] } | undefined,
  fallback: ProcessorType | undefined,
  warnings: Finding[],
): ProcessorType | null {
  if (config.type !== undefined) {
    if (!isProcessorType(config.type)) throw unknownType(config.type, at(site, 'type'));
    if (envelope && isProcessorType(envelope.value) && envelope.value !== config.type) {
      warnings.push({
        pointer: at(site, 'type').pointer,
        message: `config type ${config.type} differs from ${envelope.value} at ${toPointer(envelope.path)}; using ${config.type}`,
      });
    }
    return config.type;
  }
  if (envelope && envelope.value !== undefined) {
    if (!isProcessorType(envelope.value)) throw unknownType(envelope.value, { ...at(site), pointer: toPointer(envelope.path) });
    return envelope.value;
  }
  if (fallback) return fallback;
  return inferType(config, site);
}

function unknownType(value: unknown, location: { file?: string; line?: number; pointer: string }): InputError {
  return new InputError(`unknown processor type ${JSON.stringify(value)}`, {
    location,
    hint: 'the type must be EXTRACT, CLASSIFY or SPLITTER',
  });
}

function inferType(config: Record<string, unknown>, site: Site): ProcessorType | null {
  const evidence: Array<{ pointer: string; types: readonly ProcessorType[] }> = [];
  for (const key of Object.keys(config)) {
    const types = TYPE_EVIDENCE.get(key);
    if (types) evidence.push({ pointer: at(site, key).pointer, types });
  }
  const options = config[ADVANCED];
  if (isPlainObject(options)) {
    for (const key of Object.keys(options)) {
      const t = OPTION_EVIDENCE.get(key);
      if (t) evidence.push({ pointer: at(site, ADVANCED, key).pointer, types: [t] });
    }
  }
  if (typeof config.baseProcessor === 'string') {
    const base = config.baseProcessor;
    const t = PROCESSOR_TYPES.find((p) => base.startsWith(BASE_PROCESSOR_PREFIX[p]));
    if (t) evidence.push({ pointer: at(site, 'baseProcessor').pointer, types: [t] });
  }
  const candidates = PROCESSOR_TYPES.filter((t) => evidence.every((e) => e.types.includes(t)));
  if (candidates.length === 1) return candidates[0];
  const listed = evidence.map((e) => `${e.pointer} (${e.types.join(' or ')})`).join(', ');
  if (candidates.length === 0) {
    throw new InputError(`cannot tell the processor type: keys of different types: ${listed}`, { location: at(site), hint: TYPE_HINT });
  }
  // No type is needed when no key the type would decide about is there: none of the candidates'
  // keys that one layout has and another not (a `parser` is EXTRACT's in 2025-04-21 and every
  // type's in 2026-02-09: its migration needs the type).
  const relevant = candidates.some((t) => [...oldOnlyKeys(t), ...newOnlyKeys(t)].some((k) => config[k] !== undefined)) ? [] : layoutKeys(config, candidates);
  if (relevant === null) return null;
  const changing = relevant.length ? `, and migrating ${relevant.map((p) => at(site, ...p).pointer).join(', ')} depends on it` : '';
  throw new InputError(
    `cannot tell the processor type${listed ? `: ${listed} fits ${candidates.join(' and ')}` : ''}${changing}`,
    { location: at(site), hint: TYPE_HINT },
  );
}

/** Paths of keys that some step changes for one of the types (null when none: the type decides nothing). */
function layoutKeys(config: Record<string, unknown>, types: readonly ProcessorType[]): ReadonlyArray<readonly string[]> | null {
  for (const t of types) {
    for (const step of STEPS) {
      const paths = [...step.lowerEvidence(config, t), ...step.upperEvidence(config, t)];
      if (paths.length) return paths;
    }
  }
  return null;
}

/** The layouts a config of a known type can be in: LAYOUTS[lo..hi], from the keys only one side of a step has. */
export interface LayoutRange {
  lo: number;
  hi: number;
}

/**
 * The layouts one config of a known type reads as: each step's lower-only keys cap the range,
 * its upper-only keys raise it. An empty range (keys of layouts no config has together) is an
 * InputError naming the keys on both sides.
 */
export function detectRange(config: Record<string, unknown>, type: ProcessorType, site: Site): LayoutRange {
  let lo = 0;
  let hi = LAYOUTS.length - 1;
  let loWhy: ReadonlyArray<readonly string[]> = NONE;
  let hiWhy: ReadonlyArray<readonly string[]> = NONE;
  for (let i = 0; i < STEPS.length; i++) {
    const step = STEPS[i];
    if (i < hi) {
      const lower = step.lowerEvidence(config, type);
      if (lower.length) {
        hi = i;
        hiWhy = lower;
      }
    }
    const upper = step.upperEvidence(config, type);
    if (upper.length && i + 1 > lo) {
      lo = i + 1;
      loWhy = upper;
    }
  }
  if (lo > hi) {
    const name = (paths: ReadonlyArray<readonly string[]>) => paths.map((p) => at(site, ...p).pointer).join(', ');
    const older = `${LAYOUTS[hi]}${hi > 0 ? ' or older' : ''}`;
    const newer = `${LAYOUTS[lo]}${lo < LAYOUTS.length - 1 ? ' or newer' : ''}`;
    throw new InputError(`mixed layouts in one ${type} config: ${name(hiWhy)} (${older}) and ${name(loWhy)} (${newer})`, {
      location: at(site, ...hiWhy[0]),
      hint: 'keep one layout per config: rename the keys of the other as in the mapping table (evalkit migrate --help, docs/migrate.md), or remove the duplicates; --from LAYOUT says which keys count',
    });
  }
  return { lo, hi };
}

const NONE: ReadonlyArray<readonly string[]> = [];

/** inferType without throwing: null when the keys do not settle the type. */
export function inferTypeOrNull(config: Record<string, unknown>): ProcessorType | null {
  try {
    return inferType(config, { path: [] });
  } catch {
    return null;
  }
}
