/**
 * Processors and their versions through the service client: list, get, create, update the
 * draft, publish, list versions and diff two versions' configs. Configs from files go through
 * readProcessorConfig (either layout in, 2025-04-21 checked, the API's layout out).
 *
 * The service has no get-one-processor endpoint (service-facts.md): a processor is found in the
 * processor list, and its configs are read from its version list (the draft included).
 */
import type { Client, Processor, ProcessorType, ProcessorVersion, ReleaseType } from '../api/index.js';
import { isApiError, lostAnswerError, pauseBeforeReadBack } from '../api/index.js';
import { deepEqual } from '../config/patch.js';
import { normalizeVersionRef, pickVersion } from '../eval/resolve.js';
import { InputError, UsageError } from '../util/errors.js';
import { inApiLayout, inHubLayout, readProcessorConfig, type ProcessorConfigFile } from './config.js';
import { diffConfigs, type ConfigDiff } from './diff.js';

type Json = Record<string, unknown>;

export interface ProcessorDetails {
  processor: Processor;
  /** The draft first, then published versions newest first; configs in the 2025-04-21 layout. */
  versions: ProcessorVersion[];
}

export interface ConfigChange {
  processor: Processor;
  /** Where the config came from and how it was migrated on the way in. */
  source?: Omit<ProcessorConfigFile, 'config'>;
  /** create: a processor of this name and type with this config was there already; nothing was created. */
  existed?: true;
  /** create: the answer to the create was lost; the processor it made was found on the service. */
  answerLost?: true;
}

/** What publishProcessor did: the version, and whether it is new. */
export interface PublishedVersion extends ProcessorVersion {
  /** The latest published version already held the draft's config; nothing was published. */
  alreadyPublished?: true;
  /** The answer to the publish was lost; the version it made was found in the version list. */
  answerLost?: true;
}

export interface VersionDiff extends ConfigDiff {
  processorId: string;
  from: { version: string; id: string };
  to: { version: string; id: string };
}

function notFound(id: string, e?: unknown): InputError {
  return new InputError(`processor "${id}" not found`, {
    hint: 'check the processor id (`evalkit processors list` shows those this token can see at EVALKIT_BASE_URL)',
    cause: e,
  });
}

/** 404 on a processor's own routes: the id is wrong. */
function rethrow404(id: string): (e: unknown) => never {
  return (e) => {
    if (isApiError(e) && e.kind === 'http' && e.status === 404) throw notFound(id, e);
    throw e;
  };
}

function checkId(id: string): void {
  if (typeof id !== 'string' || id.trim() === '') throw new UsageError('the processor id must not be empty', { hint: 'pass an id such as dp_123' });
}

export async function listProcessors(client: Client, opts: { type?: ProcessorType; signal?: AbortSignal } = {}): Promise<Processor[]> {
  const out: Processor[] = [];
  for await (const p of client.processors.listAll({ type: opts.type, sortBy: 'createdAt', sortDir: 'desc' }, { signal: opts.signal })) out.push(p);
  return out;
}

function versionOrder(a: ProcessorVersion, b: ProcessorVersion): number {
  if (a.version === 'draft') return b.version === 'draft' ? 0 : -1;
  if (b.version === 'draft') return 1;
  const [am, an] = a.version.split('.').map(Number);
  const [bm, bn] = b.version.split('.').map(Number);
  return bm - am || bn - an;
}

export async function listVersions(client: Client, id: string, signal?: AbortSignal): Promise<ProcessorVersion[]> {
  checkId(id);
  const out: ProcessorVersion[] = [];
  try {
    for await (const v of client.paginate((t) => client.processors.listVersions(id, { nextPageToken: t }, { signal }), { signal })) {
      out.push({ ...v, config: inHubLayout(v.config, v.processorType) as ProcessorVersion['config'] });
    }
  } catch (e) {
    rethrow404(id)(e);
  }
  return out.sort(versionOrder);
}

export async function getProcessor(client: Client, id: string, signal?: AbortSignal): Promise<ProcessorDetails> {
  checkId(id);
  let processor: Processor | undefined;
  for await (const p of client.processors.listAll({}, { signal })) {
    if (p.id === id) {
      processor = p;
      break;
    }
  }
  if (!processor) throw notFound(id);
  return { processor, versions: await listVersions(client, id, signal) };
}

/** Members the caller supplied are what the service holds (the service fills in the rest with defaults). */
function holdsConfig(draft: ProcessorVersion | undefined, wanted: Json | undefined): boolean {
  if (wanted === undefined) return true;
  if (draft === undefined) return false;
  const held = draft.config as Json;
  return Object.keys(wanted).every((k) => Object.hasOwn(held, k) && deepEqual(wanted[k], held[k]));
}

/**
 * Creates a processor unless one of this name and type holding this config exists (then it is
 * returned with `existed`): a re-run after a kill or a lost answer creates nothing twice. A
 * create whose answer is lost is not sent again blindly: the processor list is read again, and
 * a processor of this name and type that was not there before is the one it made.
 */
export async function createProcessor(client: Client, input: { name: string; type: ProcessorType; configFile?: string }, signal?: AbortSignal): Promise<ConfigChange> {
  if (input.name.trim() === '') throw new UsageError('--name must not be empty');
  const read = input.configFile !== undefined ? await readProcessorConfig(input.configFile, { type: input.type }) : undefined;
  const config = read ? inApiLayout(read.config, read.type, client.options.apiVersion) : undefined;
  const source = read && strip(read);
  const named = async (): Promise<Processor[]> => (await listProcessors(client, { type: input.type, signal })).filter((p) => p.name === input.name);
  const before = await named();
  for (const p of before) {
    const draft = (await listVersions(client, p.id, signal)).find((v) => v.version === 'draft');
    if (holdsConfig(draft, read?.config as Json | undefined)) return { processor: p, source, existed: true };
  }
  if (before.length > 0) {
    throw new InputError(`a ${input.type} processor named "${input.name}" exists already (${before.map((p) => p.id).join(', ')}), with another draft config`, {
      hint: `change its draft with \`evalkit processors update ${before[0].id} --config FILE\`, or create it under another --name`,
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const processor = await client.processors.create({ name: input.name, type: input.type, ...(config ? { config } : {}) }, { signal });
      return { processor, source };
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      await pauseBeforeReadBack(client, attempt, signal);
      const fresh = (await named().catch((r: unknown) => {
        throw lostAnswerError(e, `a ${input.type} processor named "${input.name}" may have been created; reading the processor list back failed too (${(r as Error).message})`, 'run the same command again: it finds a processor of this name, type and config instead of creating another');
      })).filter((p) => !before.some((b) => b.id === p.id));
      if (fresh.length === 1) return { processor: fresh[0], source, answerLost: true };
      if (fresh.length > 1) {
        throw lostAnswerError(e, `the service now holds ${fresh.length} ${input.type} processors named "${input.name}" that were not there before this run (${fresh.map((p) => p.id).join(', ')}): this run's lost answers, or someone else's creates`, 'keep one of them and delete the others (the service has no delete endpoint for processors: use its dashboard)');
      }
      // None: the service did not act on it, so sending it again cannot make a second one.
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no processor named "${input.name}" was created (the processor list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

export async function updateProcessor(client: Client, id: string, input: { configFile?: string; name?: string }, signal?: AbortSignal): Promise<ConfigChange> {
  checkId(id);
  if (input.configFile === undefined && input.name === undefined) throw new UsageError('nothing to update', { hint: 'pass --config FILE (the draft\'s new config) and/or --name NAME' });
  if (input.name !== undefined && input.name.trim() === '') throw new UsageError('--name must not be empty');
  let read: ProcessorConfigFile | undefined;
  let config: Json | undefined;
  if (input.configFile !== undefined) {
    // The config must be of the processor's type (read from its draft) before anything is sent.
    const draft = (await listVersions(client, id, signal)).find((v) => v.version === 'draft');
    read = await readProcessorConfig(input.configFile, { type: draft?.processorType });
    config = inApiLayout(read.config, read.type, client.options.apiVersion);
  }
  const processor = await client.processors.update(id, { ...(input.name !== undefined ? { name: input.name } : {}), ...(config ? { config } : {}) }, { signal }).catch(rethrow404(id));
  return { processor, source: read && strip(read) };
}

/**
 * Publishes the draft as the next major or minor version, unless the latest published version
 * already holds the draft's config (then it is returned with `alreadyPublished`): a re-run after
 * a kill publishes nothing twice. A publish whose answer is lost is not sent again blindly: the
 * version list is read again, and a new version holding the draft's config is the one it made.
 */
export async function publishProcessor(client: Client, id: string, input: { releaseType: ReleaseType; description?: string }, signal?: AbortSignal): Promise<PublishedVersion> {
  checkId(id);
  if (input.releaseType !== 'major' && input.releaseType !== 'minor') throw new UsageError('--release must be major or minor');
  const state = async () => {
    const vs = await listVersions(client, id, signal);
    const draft = vs.find((v) => v.version === 'draft');
    return { draft, published: vs.filter((v) => v.version !== 'draft') };
  };
  const before = await state();
  const latest = before.published[0];
  if (latest && before.draft && deepEqual(latest.config, before.draft.config)) return { ...latest, alreadyPublished: true };
  for (let attempt = 1; ; attempt++) {
    try {
      const v = await client.processors.publish(id, { releaseType: input.releaseType, ...(input.description !== undefined ? { description: input.description } : {}) }, { signal }).catch(rethrow404(id));
      return { ...v, config: inHubLayout(v.config, v.processorType) as ProcessorVersion['config'] };
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      await pauseBeforeReadBack(client, attempt, signal);
      const after = await state().catch((r: unknown) => {
        throw lostAnswerError(e, `a new version of ${id} may have been published; reading the version list back failed too (${(r as Error).message})`, `run the same command again: it publishes nothing when the latest version already holds the draft's config (\`evalkit processors versions ${id}\` shows them)`);
      });
      const fresh = after.published.filter((v) => !before.published.some((b) => b.id === v.id));
      if (fresh.length === 1) return { ...fresh[0], answerLost: true };
      if (fresh.length > 1) {
        throw lostAnswerError(e, `${fresh.length} versions of ${id} were published during this run (${fresh.map((v) => `${v.version} ${v.id}`).join(', ')}): this run's lost answers, or someone else's publishes`, `check them with \`evalkit processors versions ${id}\`; a published version cannot be undone`);
      }
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no version of ${id} was published (the version list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

/** A version by reference: draft, latest, a number (1, 1.0, 1.0.0) or a version id (dpv_...). */
export function findVersion(versions: readonly ProcessorVersion[], ref: string, processorId: string): ProcessorVersion {
  const byId = versions.find((v) => v.id === ref);
  if (byId) return byId;
  if (normalizeVersionRef(ref) === undefined) {
    throw new UsageError(`"${ref}" is not a version`, { hint: 'use draft, latest, a published number such as 1.0, or a version id' });
  }
  const found = pickVersion(versions, ref);
  if (!found) {
    throw new InputError(`processor ${processorId} has no version "${ref}"`, { hint: `available: ${versions.map((v) => v.version).join(', ') || 'none'} (\`evalkit processors versions ${processorId}\`)` });
  }
  return found;
}

export async function diffVersions(client: Client, id: string, fromRef: string, toRef: string, signal?: AbortSignal): Promise<VersionDiff> {
  const versions = await listVersions(client, id, signal);
  const a = findVersion(versions, fromRef, id);
  const b = findVersion(versions, toRef, id);
  return { processorId: id, from: { version: a.version, id: a.id }, to: { version: b.version, id: b.id }, ...diffConfigs(a.config, b.config) };
}

function strip(r: ProcessorConfigFile): Omit<ProcessorConfigFile, 'config'> {
  return { type: r.type, file: r.file, from: r.from, patch: r.patch };
}
