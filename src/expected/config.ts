/**
 * Reading a processor config in either layout. The config module owns layouts and migration;
 * this file settles the processor type and asks it for the 2025-04-21 form.
 */
import { InputError } from '../util/errors.js';
import { layoutOfApiVersion, migrateConfig, NEW_LAYOUT, PROCESSOR_TYPES, type Layout, type ProcessorType } from '../config/index.js';
import { isPlainObject } from '../util/json.js';
import { FIELD_TYPES, type ExpectedForm } from './model.js';

export type { ProcessorType };
const TYPES = PROCESSOR_TYPES;

export interface NormalizedConfig {
  type: ProcessorType;
  /** The config in the 2025-04-21 layout. */
  config: Record<string, unknown>;
}

/**
 * The processor type: `config.type`, else the caller's, else inferred from keys that only one
 * type has. A `fields` array alone is EXTRACT when its items carry field types, CLASSIFY (old
 * layout) when none do.
 */
export function processorTypeOf(config: Record<string, unknown>, given?: ProcessorType): ProcessorType {
  const t = guessType(config, given);
  if (t === undefined) throw cannotTell();
  return t;
}

function guessType(config: Record<string, unknown>, given?: ProcessorType): ProcessorType | undefined {
  const t = config.type ?? given;
  if (t !== undefined) {
    if (typeof t === 'string' && (TYPES as readonly string[]).includes(t)) return t as ProcessorType;
    throw new InputError(`config: unknown processor type ${JSON.stringify(t)}`, { location: { pointer: '/type' }, hint: `use one of ${TYPES.join(', ')}` });
  }
  if (config.schema !== undefined) return 'EXTRACT';
  if (config.classifications !== undefined) return 'CLASSIFY';
  if (config.splitClassifications !== undefined || config.subDocumentClassifications !== undefined) return 'SPLITTER';
  if (Array.isArray(config.fields)) {
    const typed = config.fields.filter((f) => isPlainObject(f) && (FIELD_TYPES as readonly unknown[]).includes(f.type)).length;
    if (typed === config.fields.length && typed > 0) return 'EXTRACT';
    if (typed === 0 && config.fields.length > 0) return 'CLASSIFY';
  }
  return undefined;
}

function cannotTell(): InputError {
  return new InputError('config: cannot tell the processor type', { hint: 'add "type": "EXTRACT" | "CLASSIFY" | "SPLITTER" to the config, or pass --type' });
}

/** Any layout -> 2025-04-21 (keys without a counterpart do not affect expected outputs and are dropped). */
export function normalizeConfig(config: unknown, opts: { type?: ProcessorType } = {}): NormalizedConfig {
  if (!isPlainObject(config)) throw new InputError('config: a processor config must be a JSON object', { location: { pointer: '' } });
  const guessed = guessType(config, opts.type);
  const migrated = migrateConfig(config, { to: NEW_LAYOUT, allowLossy: true, allowUnknown: true, type: guessed });
  const type = migrated.type ?? guessed;
  if (type === null || type === undefined) throw cannotTell();
  return { type, config: migrated.doc as Record<string, unknown> };
}

/**
 * The layout a config is in, as migrate detects it from its keys (null when they do not settle
 * it, or the config cannot be read: normalizeConfig then reports the problem).
 */
export function configLayoutOf(config: Record<string, unknown>, type?: ProcessorType): Layout | null {
  try {
    return migrateConfig(config, { to: NEW_LAYOUT, allowLossy: true, allowUnknown: true, type }).from;
  } catch {
    return null;
  }
}

/**
 * The expected-output form checked (docs/validate.md, "Which form is checked"): 2026-02-09 when
 * the config is in the 2026-02-09 layout (its keys or its envelope say so, as in migrate) or the
 * API version in effect is 2026-02-09 or later; else 2025-04-21. A config readable in several
 * layouts is thus settled by the API version in effect, as migrate settles it.
 */
export function expectedFormOf(layout: Layout | null | undefined, apiVersion: string): ExpectedForm {
  return layout === '2026-02-09' || layoutOfApiVersion(apiVersion) === '2026-02-09' ? '2026-02-09' : '2025-04-21';
}
