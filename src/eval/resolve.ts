/**
 * What an evaluation needs before any run: the evaluation set, its items, the processor
 * version (resolved to a number or "draft" so every run uses the same one), the processor's
 * name, and the config in the 2025-04-21 layout.
 */
import type { Client, EvalSet, Output, ProcessorType, ProcessorVersion } from '../api/index.js';
import { isApiError } from '../api/index.js';
import { migrateConfig, migrateDocument, validateConfig } from '../config/index.js';
import { UnknownKeysError, unknownKeyError, unknownKeys } from '../config/known-keys.js';
import { InputError, UsageError } from '../util/errors.js';
import { fromPointer, isPlainObject } from '../util/json.js';
import type { EvalItem } from './types.js';

type Json = Record<string, unknown>;

/** 404 from a GET by id: the id is wrong, which is the user's input, so exit 2 with a plain message. */
export function notFoundAs<T>(what: string, id: string, flag: string): (e: unknown) => T {
  return (e: unknown) => {
    if (isApiError(e) && e.kind === 'http' && e.status === 404) {
      throw new InputError(`${what} "${id}" not found${e.serviceError ? ` (the service says: ${e.serviceError})` : ''}`, {
        hint: `check ${flag}: the id must exist and be visible to this token at EVALKIT_BASE_URL`,
        cause: e,
      });
    }
    throw e;
  };
}

export async function loadSet(client: Client, id: string, signal?: AbortSignal): Promise<EvalSet> {
  if (id.trim() === '') throw new UsageError('--evaluation-set must not be empty', { hint: 'pass the id of an evaluation set, such as ev_123' });
  return client.sets.retrieve(id, { signal }).catch(notFoundAs<EvalSet>('evaluation set', id, '--evaluation-set'));
}

/** The set's items with their expected outputs, from its list (2025-04-21: list rows carry them). */
export async function loadItems(client: Client, setId: string, signal?: AbortSignal): Promise<EvalItem[]> {
  const items: EvalItem[] = [];
  for await (const item of client.items(setId).listAll({}, { signal })) items.push({ id: item.id, fileId: item.fileId, expectedOutput: (item.expectedOutput ?? {}) as Output });
  return items;
}

/**
 * "1", "1.0" and "1.0.0" name the same published version (the service shows two parts, the
 * spec speaks of three). Returns undefined for anything that is not a version reference.
 */
export function normalizeVersionRef(ref: string): string | undefined {
  const v = ref.trim().toLowerCase();
  if (v === 'latest' || v === 'draft') return v;
  const m = /^v?(\d{1,6})(?:\.(\d{1,6}))?(?:\.0+)?$/.exec(v);
  return m ? `${Number(m[1])}.${Number(m[2] ?? 0)}` : undefined;
}

function versionKey(label: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(label);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Picks the version a reference means: latest = newest published, or the draft when none is. */
export function pickVersion<V extends Pick<ProcessorVersion, 'version'>>(versions: readonly V[], ref: string): V | undefined {
  const want = normalizeVersionRef(ref);
  if (want === undefined) return undefined;
  if (want === 'draft') return versions.find((v) => v.version === 'draft');
  if (want === 'latest') {
    let best: { v: V; key: [number, number] } | undefined;
    for (const v of versions) {
      const key = versionKey(v.version);
      if (key && (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1]))) best = { v, key };
    }
    return best?.v ?? versions.find((v) => v.version === 'draft');
  }
  return versions.find((v) => v.version !== 'draft' && normalizeVersionRef(v.version) === want);
}

export async function resolveVersion(client: Client, processorId: string, ref: string, signal?: AbortSignal): Promise<ProcessorVersion> {
  if (normalizeVersionRef(ref) === undefined) {
    throw new UsageError(`--version "${ref}" is not a version`, { hint: 'use draft, latest, or a published version number such as 1.0' });
  }
  const versions: ProcessorVersion[] = [];
  const pages = client.paginate((t) => client.processors.listVersions(processorId, { nextPageToken: t }, { signal }), { signal });
  try {
    for await (const v of pages) versions.push(v);
  } catch (e) {
    return notFoundAs<never>('processor', processorId, 'the evaluation set (its processor)')(e);
  }
  const found = pickVersion(versions, ref);
  if (!found) {
    const have = versions.map((v) => v.version).sort();
    throw new InputError(`processor ${processorId} has no version "${ref}"`, {
      hint: `available: ${have.length ? have.join(', ') : 'none'}; pass one of them with --version`,
    });
  }
  return found;
}

/**
 * The processor's name. Runs and batch runs carry it; when none does, the processor list is
 * searched (there is no get-one-processor endpoint). Empty when the processor cannot be seen.
 */
export async function processorName(client: Client, processorId: string, type: ProcessorType, known: ReadonlyArray<string | undefined | null>, signal?: AbortSignal): Promise<string> {
  for (const n of known) if (typeof n === 'string' && n !== '') return n;
  try {
    for await (const p of client.processors.listAll({ type }, { signal })) if (p.id === processorId) return p.name;
  } catch (e) {
    if (signal?.aborted) throw e;
  }
  return '';
}

/** The 2025-04-21 layout (the export's), from either layout; `type` is always present. */
export function toHubConfig(config: Json, type: ProcessorType): Json {
  const doc = migrateConfig({ ...config, type: config.type ?? type }, { to: '2025-04-21', type, allowLossy: true, allowUnknown: true }).doc;
  return isPlainObject(doc) ? doc : { type };
}

/**
 * Keys no config layout has in a --config override (`doc`: the file as read, a config or an
 * envelope holding one), refused as migrate and processors create refuse them (docs/migrate.md,
 * "Unknown keys"): exit 2 naming the file, the pointer in it and the closest known key. `type`:
 * the processor's, once it is known; without it, the type the file settles (its `type`, its
 * envelope's, its keys), else what no type has. What keeps the file from being read at all is
 * left to prepareOverride, which reports it with the processor's type.
 */
export function refuseUnknownKeys(doc: unknown, file: string, type?: ProcessorType): void {
  let spots: ReturnType<typeof migrateDocument>['items'];
  try {
    spots = migrateDocument(doc, { to: '2025-04-21', type, allowLossy: true, allowUnknown: true }).items;
  } catch {
    return;
  }
  for (const spot of spots) {
    if (spot.kind !== 'config') continue;
    const path = fromPointer(spot.pointer);
    let config: unknown = doc;
    for (const t of path) config = isPlainObject(config) && Object.hasOwn(config, t) ? config[t] : Array.isArray(config) ? config[Number(t)] : undefined;
    if (!isPlainObject(config)) continue;
    const unknown = unknownKeys(config, spot.type);
    if (unknown.length) throw new UnknownKeysError(unknown.map((u) => unknownKeyError(u, spot.type, { file, path })), unknown);
  }
}

/**
 * A --config override: same type as the processor, valid in its layout. Checked before any
 * run is created, so a bad file costs no runs. Returns the config in the layout the service
 * is spoken to in (`apiLayout`) and in the export's layout.
 */
export function prepareOverride(config: Json, type: ProcessorType, apiVersion: string, file = '--config'): { send: Json; hub: Json } {
  if (config.type !== undefined && config.type !== type) {
    throw new InputError(`the config is for a ${String(config.type)} processor, but the evaluation set's processor is ${type}`, {
      location: { file, pointer: '/type' },
      hint: `use a ${type} config, or evaluate a set of a ${String(config.type)} processor`,
    });
  }
  let migrated: ReturnType<typeof migrateConfig>;
  try {
    migrated = migrateConfig({ ...config, type }, { to: '2025-04-21', type, allowLossy: true, allowUnknown: true });
  } catch (e) {
    if (e instanceof InputError) throw new InputError(e.message, { location: { ...e.location, file }, hint: e.hint, cause: e });
    throw e;
  }
  const hub = migrated.doc as Json;
  const problems = validateConfig(hub, '2025-04-21', type);
  if (problems.length) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new InputError(`the config is not a valid ${type} config: ${first.message}${more}`, {
      location: { file, pointer: migrated.changed ? undefined : first.pointer },
      hint: `fix the config${migrated.changed ? ` (pointer ${first.pointer || '/'} in its 2025-04-21 form)` : ''}; \`evalkit migrate\` and \`evalkit schema\` show the expected layout`,
    });
  }
  const oldApi = apiVersion !== '' && apiVersion < '2025-04-21';
  const send = oldApi ? (migrateConfig(hub, { to: '2024-11-14', type, allowLossy: true, allowUnknown: true }).doc as Json) : hub;
  return { send, hub };
}
