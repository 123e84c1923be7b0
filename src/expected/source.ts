/**
 * Where the config of `evalkit validate` and `evalkit schema` comes from: a file holding a bare
 * config or an envelope around one, or a processor version fetched through the client.
 */
import { promises as fsp } from 'node:fs';
import type { Client, ProcessorVersion } from '../api/index.js';
import { isVersionId, paginate } from '../api/index.js';
import { InputError } from '../util/errors.js';
import { migrateDocument, NEW_LAYOUT, type Layout } from '../config/index.js';
import { fromPointer, isPlainObject, parseJson } from '../util/json.js';
import { configLayoutOf, processorTypeOf, type ProcessorType } from './config.js';

export interface ConfigSource {
  config: Record<string, unknown>;
  type: ProcessorType;
  /** The config's layout as migrate detects it (keys, envelope); null when the keys fit several. */
  layout?: Layout | null;
  /** Where it came from, for messages: a file, or processor id@version. */
  origin: string;
  /** JSON pointer of the config inside its file ('' for a bare config, `/draftVersion/config` inside a processor, ...). */
  pointer?: string;
}

const TYPES = new Set(['EXTRACT', 'CLASSIFY', 'SPLITTER']);
const typeIn = (v: unknown): ProcessorType | undefined => (typeof v === 'string' && TYPES.has(v) ? (v as ProcessorType) : undefined);

/** Configs that migrate finds in a document (it reads every envelope migrate reads). */
function locateConfigs(value: unknown, given?: ProcessorType): Array<{ pointer: string; type?: ProcessorType; layout: Layout | null }> | undefined {
  try {
    const r = migrateDocument(value, { to: NEW_LAYOUT, allowLossy: true, allowUnknown: true, type: given });
    return r.items.filter((i) => i.kind === 'config').map((i) => ({ pointer: i.pointer, type: i.type ?? undefined, layout: i.from }));
  } catch {
    // Let the simple reading below and normalizeConfig report the problem with its pointer.
    return undefined;
  }
}

/**
 * The config inside what a user saved: a bare config, a processor (`draftVersion.config`), a
 * processor version or run (`config`), a create/update/publish/run request body (`config`),
 * or an API response wrapping one of those (`{success, processor | version | processorVersion | processorRun}`).
 */
export function configFromEnvelope(value: unknown, file: string, given?: ProcessorType): ConfigSource {
  const found = locateConfigs(value, given);
  if (found && found.length > 1) {
    throw new InputError(`expected one processor config, found ${found.length} (at ${found.map((f) => f.pointer || '/').join(', ')})`, {
      location: { file },
      hint: 'give a file holding a single config (or a processor, version or request body)',
    });
  }
  let pointer: string;
  let type: ProcessorType | undefined = given;
  let layout: Layout | null | undefined;
  if (found && found.length === 1) {
    pointer = found[0].pointer;
    type = given ?? found[0].type;
    layout = found[0].layout;
  } else {
    const simple = simpleEnvelope(value, file);
    pointer = simple.pointer;
    type = given ?? simple.type;
  }
  let config: unknown = value;
  for (const t of fromPointer(pointer)) config = (config as Record<string, unknown>)[t];
  if (!isPlainObject(config)) throw new InputError('expected a processor config object', { location: { file, pointer } });
  try {
    const t = processorTypeOf(config, type);
    return { config, type: t, layout: layout ?? configLayoutOf(config, t), origin: file, pointer };
  } catch (e) {
    if (e instanceof InputError) throw new InputError(e.message, { location: { file, pointer: pointer + (e.location.pointer ?? '') }, hint: e.hint });
    throw e;
  }
}

function simpleEnvelope(value: unknown, file: string): { pointer: string; type?: ProcessorType } {
  let v = value;
  if (Array.isArray(v)) {
    throw new InputError(`expected one processor config, got an array of ${v.length}`, { location: { file, pointer: '' }, hint: 'give a file holding a single config (or a processor, version or request body)' });
  }
  if (!isPlainObject(v)) throw new InputError('expected a processor config object', { location: { file, pointer: '' } });
  let pointer = '';
  for (const key of ['processor', 'version', 'processorVersion', 'processorRun']) {
    if (isPlainObject(v[key]) && (v.success !== undefined || Object.keys(v).length === 1)) {
      v = v[key];
      pointer += `/${key}`;
      break;
    }
  }
  const env = v as Record<string, unknown>;
  const type = typeIn(env.type) ?? typeIn(env.processorType);
  // An envelope's config that is not an object is that, not a bare config named "config".
  const inner = env.config !== undefined ? { at: '/config', config: env.config } : isPlainObject(env.draftVersion) && env.draftVersion.config !== undefined ? { at: '/draftVersion/config', config: env.draftVersion.config } : undefined;
  if (inner && !isPlainObject(inner.config)) {
    throw new InputError(`a processor config must be a JSON object, got ${Array.isArray(inner.config) ? 'an array' : inner.config === null ? 'null' : typeof inner.config}`, { location: { file, pointer: pointer + inner.at }, hint: 'fix the config in the file, or give the bare config' });
  }
  return { pointer: inner ? pointer + inner.at : pointer, type };
}

export async function readConfigFile(file: string, type?: ProcessorType): Promise<ConfigSource> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the config: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file }, hint: 'check the --config path' });
  }
  return configFromEnvelope(parseJson(text, file), file, type);
}

function versionKey(v: string): number[] {
  return v.split('.').map((p) => Number.parseInt(p, 10) || 0);
}

function newer(a: ProcessorVersion, b: ProcessorVersion): boolean {
  const x = versionKey(a.version);
  const y = versionKey(b.version);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/**
 * A processor's config from the service. `version`: a version id (`dpv_...`; `exv_`, `clv_`, `splv_`), a published
 * number (`1.0`, `2`), `draft`, or `latest` (default: the newest published version, or the
 * draft when none is published).
 */
export async function fetchProcessorConfig(client: Client, processorId: string, version = 'latest'): Promise<ConfigSource> {
  let found: ProcessorVersion | undefined;
  if (isVersionId(version)) found = await client.processors.getVersion(processorId, version);
  else {
    let draft: ProcessorVersion | undefined;
    let latest: ProcessorVersion | undefined;
    for await (const v of paginate((t) => client.processors.listVersions(processorId, { nextPageToken: t }))) {
      if (v.version === 'draft') draft = v;
      else if (!latest || newer(v, latest)) latest = v;
      if (version !== 'latest' && version !== 'draft' && (v.version === version || v.version === `${version}.0`)) found = v;
    }
    if (version === 'draft') found = draft;
    else if (version === 'latest') found = latest ?? draft;
    if (!found) {
      throw new InputError(`processor ${processorId} has no version "${version}"`, { hint: 'pass --version draft, latest, a published number such as 1.0, or a version id' });
    }
  }
  const config = found.config as Record<string, unknown>;
  const type = processorTypeOf(config, typeIn(found.processorType));
  return { config, type, layout: configLayoutOf(config, type), origin: `${processorId}@${found.version}` };
}
