/**
 * A processor config from a user's file, on its way to the service: read in any layout (bare,
 * or inside a saved processor, version, run or request body), migrated losslessly through the
 * chain of layouts to the one of the API version in effect (2025-04-21, or 2026-02-09 for the
 * extractor/classifier/splitter routes), and checked against that layout's schema before any
 * request is made. What cannot be migrated without loss is refused, never dropped.
 */
import type { Operation } from 'fast-json-patch';
import { aType } from '../api/ids.js';
import { speaks2026 } from '../api/version.js';
import { LATEST_LAYOUT, migrateConfig, NEW_LAYOUT, OLD_LAYOUT, sourcePointer, validateConfig, type Layout, type ProcessorType } from '../config/index.js';
import { readConfigFile } from '../expected/index.js';
import { InputError } from '../util/errors.js';
import { shellWord } from '../util/controls.js';
import { isPlainObject } from '../util/json.js';

type Json = Record<string, unknown>;

export interface ProcessorConfigFile {
  /** The config in the `to` layout: 2025-04-21 with `type`, or 2026-02-09 (no `type`: the route carries it). */
  config: Json;
  type: ProcessorType;
  file: string;
  /** The layout the file was in (null: no key told). */
  from: Layout | null;
  /** The layout `config` is in. */
  to: Layout;
  /** RFC 6902 operations from the file's config to `config` (empty when it was already current). */
  patch: Operation[];
  /** The config as the file holds it (inside its envelope, if any). */
  fileConfig: Json;
}

/**
 * The layout configs are checked in for an API version: 2026-02-09 for 2026-02-09 and later,
 * else 2025-04-21 (older versions get it migrated down once more: inApiLayout).
 */
export function checkedLayout(apiVersion: string | undefined): Layout {
  return apiVersion !== undefined && speaks2026(apiVersion) ? LATEST_LAYOUT : NEW_LAYOUT;
}

/**
 * Reads, migrates and validates; every error names the file and the JSON pointer. `apiVersion`:
 * the version in effect, which decides the layout (default: 2025-04-21's). Unknown keys are
 * refused unless `allowUnknown` (docs/migrate.md, "Unknown keys"). `processorId`: `type` is that
 * existing processor's (update), which no flag changes, so a config of another type is refused
 * without suggesting --type.
 */
export async function readProcessorConfig(file: string, opts: { type?: ProcessorType; apiVersion?: string; allowUnknown?: boolean; processorId?: string } = {}): Promise<ProcessorConfigFile> {
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
    // The `type` that says so: the config's, else its envelope's; a bare config without one was
    // typed by its keys (there is no /type to point at).
    const pointer = source.pointer ?? '';
    const named = isPlainObject(source.config) && source.config.type !== undefined;
    const byKeys = !named && pointer === '';
    throw new InputError(`the config's type is ${source.type}${byKeys ? ' (by its keys)' : ''}, not ${opts.type}`, {
      location: { file, pointer: named ? `${pointer}/type` : byKeys ? '' : '/type' },
      hint:
        opts.processorId !== undefined
          ? `${opts.processorId} is ${aType(opts.type)} processor and its type cannot change: use ${aType(opts.type)} config (\`evalkit processors create --type ${source.type}\` makes a processor for this one)`
          : `use ${aType(opts.type)} config, or pass --type ${source.type}`,
    });
  }
  const type = source.type;
  const to = checkedLayout(opts.apiVersion);
  let migrated: ReturnType<typeof migrateConfig>;
  try {
    // A key no layout has is refused (a typo the service would not apply) unless allowUnknown.
    migrated = migrateConfig(source.config, { to, type, inEffect: to, allowUnknown: opts.allowUnknown === true });
  } catch (e) {
    if (e instanceof InputError) {
      // Pointers of the file (the config may sit inside a processor, a version or a request body).
      throw new InputError(e.message, {
        location: { ...e.location, file, ...(e.location.pointer !== undefined ? { pointer: (source.pointer ?? '') + e.location.pointer } : {}) },
        hint: migrateHint(e.hint, file, to),
        cause: e,
      });
    }
    throw e;
  }
  const config = { ...(migrated.doc as Json) };
  // 2025-04-21 configs carry their type; 2026-02-09 ones do not (the route does).
  if (to === NEW_LAYOUT && config.type === undefined) config.type = type;
  const problems = validateConfig(config, to, type);
  if (problems.length) {
    // Each pointer the file's: a renamed key followed back to its name in the file, under where the
    // config sits in it; a member the migration added keeps its pointer in the migrated config.
    const located = problems.map((p) => {
      const inSource = migrated.changed ? sourcePointer(migrated.patch, p.pointer) : p.pointer;
      if (inSource === null) return { text: `${p.pointer || '/'} (of the config migrated to ${to})`, pointer: undefined, message: p.message };
      const pointer = (source.pointer ?? '') + inSource;
      return { text: pointer || '/', pointer, message: p.message };
    });
    const shown = located.slice(0, 5).map((p) => `${p.text}: ${p.message}`).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    const outside = located.some((p) => p.pointer === undefined);
    throw new InputError(`not a valid ${type} config (${to} layout): ${shown}${more}`, {
      location: { file, pointer: located.find((p) => p.pointer !== undefined)?.pointer ?? source.pointer ?? '' },
      hint: outside
        ? `a member the migration to ${to} added is wrong (\`evalkit migrate ${shellWord(file)} --to ${to}\` shows it); fix the file and retry`
        : migrated.changed
          ? `fix the file and retry (it was migrated from ${migrated.from ?? 'an older layout'} to ${to} first: the messages are of the ${to} layout, \`evalkit migrate ${shellWord(file)} --to ${to}\` shows it)`
          : `fix the config; \`evalkit schema\` and schemas/config-${to}.schema.json show the layout`,
    });
  }
  return { config, type, file, from: migrated.from, to, patch: migrated.patch, fileConfig: source.config as Json };
}

/**
 * A migration refusal's hint, for a command that migrates on the way: the flags it names
 * (`--allow-lossy`, `--infer`, `--convert-fields`, `--from`) are `evalkit migrate`'s, so the way
 * through is migrating the file first.
 */
function migrateHint(hint: string | undefined, file: string, to: string): string {
  const run = `evalkit migrate ${shellWord(file)} --to ${to}`;
  if (hint === undefined) return `\`${run}\` shows what the ${to} layout cannot hold`;
  if (!/--(allow-lossy|infer|convert-fields|from)\b/.test(hint)) return hint;
  return `${hint}. Those are flags of \`evalkit migrate\`: migrate the file first (\`${run} --write\` with the flag you choose), then use it here`;
}

/** The config in the layout the service speaks at `apiVersion` (older versions take the 2024-11-14 keys). */
export function inApiLayout(config: Json, type: ProcessorType, apiVersion: string): Json {
  if (apiVersion === '' || apiVersion >= NEW_LAYOUT) return config;
  return migrateConfig(config, { to: OLD_LAYOUT, type, allowUnknown: true }).doc as Json;
}

/**
 * A config the service returned, for diffs and display: on 2026-02-09 as the service holds it
 * (its own layout), else read in the 2025-04-21 layout.
 */
export function shownConfig(config: unknown, type: ProcessorType, apiVersion: string): Json {
  if (speaks2026(apiVersion)) return isPlainObject(config) ? config : {};
  return inHubLayout(config, type);
}

/** A config the service returned, read in the 2025-04-21 layout (for diffs and display). */
export function inHubLayout(config: unknown, type: ProcessorType): Json {
  if (!isPlainObject(config)) return { type };
  const doc = migrateConfig({ ...config, type: config.type ?? type }, { to: NEW_LAYOUT, type, allowLossy: true, allowUnknown: true }).doc;
  return isPlainObject(doc) ? doc : { type };
}
