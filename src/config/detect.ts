import { InputError } from '../util/errors.js';
import { isPlainObject, toPointer } from '../util/json.js';
import { ADVANCED, BASE_PROCESSOR_PREFIX, OPTION_EVIDENCE, TYPE_EVIDENCE, newOnlyKeys, oldOnlyKeys } from './mapping.js';
import { NEW_LAYOUT, OLD_LAYOUT, PROCESSOR_TYPES, isProcessorType } from './types.js';
import type { Finding, Layout, ProcessorType } from './types.js';

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
  const relevant = candidates.some((t) => [...oldOnlyKeys(t), ...newOnlyKeys(t)].some((k) => config[k] !== undefined));
  if (!relevant) return null;
  throw new InputError(
    `cannot tell the processor type${listed ? `: ${listed} fits ${candidates.join(' and ')}` : ''}`,
    { location: at(site), hint: TYPE_HINT },
  );
}

/**
 * Layout of one config of a known type: old-only keys -> 2024-11-14, new-only keys ->
 * 2025-04-21, neither -> null (the config reads the same in both), both -> InputError.
 */
export function detectLayout(config: Record<string, unknown>, type: ProcessorType, site: Site): Layout | null {
  const olds = present(config, oldOnlyKeys(type));
  const news = present(config, newOnlyKeys(type));
  if (olds.length && news.length) {
    const name = (keys: readonly string[]) => keys.map((k) => at(site, k).pointer).join(', ');
    throw new InputError(`mixed layouts in one ${type} config: ${name(olds)} (${OLD_LAYOUT}) and ${name(news)} (${NEW_LAYOUT})`, {
      location: at(site, olds[0]),
      hint: 'keep one layout per config: rename the old keys as in the mapping table (evalkit migrate --help), or remove the duplicates',
    });
  }
  if (olds.length) return OLD_LAYOUT;
  if (news.length) return NEW_LAYOUT;
  return null;
}

/** The keys of `keys` that `config` has (with a value), without allocating when it has none. */
function present(config: Record<string, unknown>, keys: readonly string[]): readonly string[] {
  let out: string[] | undefined;
  for (const k of keys) if (config[k] !== undefined) (out ??= []).push(k);
  return out ?? NONE;
}
const NONE: readonly string[] = [];

/** inferType without throwing: null when the keys do not settle the type. */
export function inferTypeOrNull(config: Record<string, unknown>): ProcessorType | null {
  try {
    return inferType(config, { path: [] });
  } catch {
    return null;
  }
}
