/**
 * A processor config from a user's file, on its way to the service: read in either layout
 * (bare, or inside a saved processor, version, run or request body), migrated losslessly to the
 * 2025-04-21 layout by the migrate module, and checked against that layout's schema before any
 * request is made. What cannot be migrated without loss is refused, never dropped.
 */
import type { Operation } from 'fast-json-patch';
import { migrateConfig, NEW_LAYOUT, OLD_LAYOUT, validateConfig, type Layout, type ProcessorType } from '../config/index.js';
import { readConfigFile } from '../expected/index.js';
import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';

type Json = Record<string, unknown>;

export interface ProcessorConfigFile {
  /** The config in the 2025-04-21 layout, `type` included. */
  config: Json;
  type: ProcessorType;
  file: string;
  /** The layout the file was in (null: no key told). */
  from: Layout | null;
  /** RFC 6902 operations from the file's config to `config` (empty when it was already current). */
  patch: Operation[];
}

/** Reads, migrates and validates; every error names the file and the JSON pointer. */
export async function readProcessorConfig(file: string, opts: { type?: ProcessorType } = {}): Promise<ProcessorConfigFile> {
  // The file's own type (the config's, or its envelope's) first, so that a mismatch with the
  // type asked for is caught; the asked-for type only settles a config that names none.
  let source: Awaited<ReturnType<typeof readConfigFile>>;
  try {
    source = await readConfigFile(file);
  } catch (e) {
    if (opts.type === undefined || !(e instanceof InputError)) throw e;
    source = await readConfigFile(file, opts.type);
  }
  if (opts.type !== undefined && source.type !== opts.type) {
    throw new InputError(`the config's type is ${source.type}, not ${opts.type}`, {
      location: { file, pointer: '/type' },
      hint: `use a ${opts.type} config`,
    });
  }
  const type = source.type;
  let migrated: ReturnType<typeof migrateConfig>;
  try {
    migrated = migrateConfig(source.config, { to: NEW_LAYOUT, type });
  } catch (e) {
    if (e instanceof InputError) {
      throw new InputError(e.message, {
        location: { ...e.location, file },
        hint: e.hint ?? 'run `evalkit migrate FILE --allow-lossy --dry-run` to see what the 2025-04-21 layout cannot hold',
        cause: e,
      });
    }
    throw e;
  }
  const config = { ...(migrated.doc as Json) };
  if (config.type === undefined) config.type = type;
  const problems = validateConfig(config, NEW_LAYOUT, type);
  if (problems.length) {
    const shown = problems.slice(0, 5).map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new InputError(`not a valid ${type} config (2025-04-21 layout): ${shown}${more}`, {
      location: { file, pointer: problems[0].pointer },
      hint: migrated.changed
        ? 'the pointers are those of the config migrated to 2025-04-21 (`evalkit migrate FILE --dry-run` shows it); fix the file and retry'
        : 'fix the config; `evalkit schema` and schemas/config-2025-04-21.schema.json show the layout',
    });
  }
  return { config, type, file, from: migrated.from, patch: migrated.patch };
}

/** The config in the layout the service speaks at `apiVersion` (older versions take the 2024-11-14 keys). */
export function inApiLayout(config: Json, type: ProcessorType, apiVersion: string): Json {
  if (apiVersion === '' || apiVersion >= NEW_LAYOUT) return config;
  return migrateConfig(config, { to: OLD_LAYOUT, type }).doc as Json;
}

/** A config the service returned, read in the 2025-04-21 layout (for diffs and display). */
export function inHubLayout(config: unknown, type: ProcessorType): Json {
  if (!isPlainObject(config)) return { type };
  const doc = migrateConfig({ ...config, type: config.type ?? type }, { to: NEW_LAYOUT, type, allowLossy: true }).doc;
  return isPlainObject(doc) ? doc : { type };
}
