/**
 * Processors and their versions through the service client: list, get, create, update the
 * draft, publish, list versions and diff two versions' configs. Configs from files go through
 * readProcessorConfig (any layout in, checked in the layout of the API version in effect, the
 * API's layout out).
 *
 * The client's facade (`client.entities(type)`, `client.entityOps(id)`) picks the routes by the
 * API version in effect: /processors on 2025-04-21, /extractors, /classifiers, /splitters on
 * 2026-02-09. 2025-04-21 has no get-one-processor endpoint (service-facts.md): a processor is
 * found in the processor list, and its configs are read from its version list (the draft
 * included). 2026-02-09 version lists hold no configs: each config is read from its version.
 *
 * What the functions return is the service's object as it answered (plus `type`, which the
 * 2026-02-09 objects leave to the route), with configs in the layout shownConfig gives.
 */
import pLimit from 'p-limit';
import type { Client, Entity, EntityOps, EntityVersion, ProcessorType, ReleaseType } from '../api/index.js';
import { aType, isApiError, isVersionId, kindOfType, lostAnswerError, pauseBeforeReadBack, typeOfId } from '../api/index.js';
import { speaks2026 } from '../api/version.js';
import { OLD_LAYOUT } from '../config/index.js';
import { deepEqual, makePatch } from '../config/patch.js';
import { normalizeVersionRef, pickVersion } from '../eval/resolve.js';
import { InputError, UsageError } from '../util/errors.js';
import { inApiLayout, readProcessorConfig, shownConfig, type ProcessorConfigFile } from './config.js';
import { diffConfigs, type ConfigDiff } from './diff.js';

type Json = Record<string, unknown>;

/** A processor (2025-04-21) or an extractor, classifier or splitter (2026-02-09), as the service answered, with its type. */
export type ProcessorJson = Json & { id: string; name: string; type: ProcessorType };
/** A version as the service answered, its config (when read) in the shown layout. */
export type VersionJson = Json & { id: string; version: string; description?: string | null; config?: Json };

export interface ProcessorDetails {
  processor: ProcessorJson;
  /** The draft first, then published versions newest first. */
  versions: VersionJson[];
}

export interface ConfigChange {
  processor: ProcessorJson;
  /** Where the config came from and how it was migrated on the way in: `to` is the layout sent. */
  source?: ConfigSource;
  /** create: a processor of this name and type with this config was there already; nothing was created. */
  existed?: true;
  /** create: the answer to the create was lost; the processor it made was found on the service. */
  answerLost?: true;
}

/** What publishProcessor did: the version, and whether it is new. */
export type PublishedVersion = VersionJson & {
  /** The latest published version already held the draft's config; nothing was published. */
  alreadyPublished?: true;
  /** The answer to the publish was lost; the version it made was found in the version list. */
  answerLost?: true;
};

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

/**
 * `allowUnknown` sends keys no config layout has; a 2026-02-09 service refuses members it does
 * not know (a 400), so there it could only fail after the local check: refused before any request.
 */
function checkAllowUnknown(allowUnknown: boolean | undefined, apiVersion: string): void {
  if (allowUnknown === true && speaks2026(apiVersion)) {
    throw new UsageError(`--allow-unknown cannot work on API ${apiVersion}: its service refuses config members it does not know (a 400), so nothing was sent`, {
      hint: 'drop --allow-unknown: the config check then names each unknown key (with the closest known one), to fix or remove',
    });
  }
}

function checkId(id: string): void {
  if (typeof id !== 'string' || id.trim() === '') throw new UsageError('the processor id must not be empty', { hint: 'pass an id such as dp_123 (2026-02-09: ex_..., cl_..., spl_...)' });
}

function entityJson(e: Entity): ProcessorJson {
  return { ...e.raw, type: e.type } as ProcessorJson;
}

function versionJson(client: Client, v: EntityVersion): VersionJson {
  const out = { ...v.raw } as VersionJson;
  if (v.config !== undefined) out.config = shownConfig(v.config, v.type, client.options.apiVersion);
  return out;
}

/** The operations on one processor; a 404 while finding its route is "not found". */
async function opsFor(client: Client, id: string, type: ProcessorType | undefined, signal?: AbortSignal): Promise<{ ops: EntityOps; entity?: Entity }> {
  checkId(id);
  return client.entityOps(id, type, { signal }).catch(rethrow404(id));
}

/** Every processor (of `type`), the last changed first (`sortBy=updatedAt`: the order of the `updated` column `list` shows). */
export async function listProcessors(client: Client, opts: { type?: ProcessorType; signal?: AbortSignal } = {}): Promise<ProcessorJson[]> {
  const out: ProcessorJson[] = [];
  for await (const p of client.listEntities({ type: opts.type, sortBy: 'updatedAt', sortDir: 'desc' }, { signal: opts.signal })) out.push(entityJson(p));
  return out;
}

function versionOrder(a: EntityVersion, b: EntityVersion): number {
  if (a.version === 'draft') return b.version === 'draft' ? 0 : -1;
  if (b.version === 'draft') return 1;
  const [am, an] = a.version.split('.').map(Number);
  const [bm, bn] = b.version.split('.').map(Number);
  return bm - am || bn - an;
}

/** The versions, draft first then newest first; configs only where the list holds them (2025-04-21). */
async function versionsOf(ops: EntityOps, id: string, signal?: AbortSignal): Promise<EntityVersion[]> {
  const out: EntityVersion[] = [];
  try {
    for await (const v of ops.listAllVersions(id, { signal })) out.push(v);
  } catch (e) {
    rethrow404(id)(e);
  }
  return out.sort(versionOrder);
}

/** Version configs read at once by listVersions. */
const CONFIG_READS = 4;

/** The version with its config: read from the version itself when the list left it out (2026-02-09). */
async function withConfig(ops: EntityOps, id: string, v: EntityVersion, signal?: AbortSignal): Promise<EntityVersion> {
  if (v.config !== undefined) return v;
  return ops.retrieveVersion(id, v.id, { signal }).catch(rethrow404(id));
}

/** Every version of a processor with its config. `type` (or the id's prefix) names the kind on 2026-02-09; else it is looked up. */
export async function listVersions(client: Client, id: string, signal?: AbortSignal, type?: ProcessorType): Promise<VersionJson[]> {
  const { ops } = await opsFor(client, id, type, signal);
  const vs = await versionsOf(ops, id, signal);
  // 2026-02-09: one read per version, a few at a time (2025-04-21: none, the list holds the configs).
  const limit = pLimit(CONFIG_READS);
  const full = await Promise.all(vs.map((v) => limit(() => withConfig(ops, id, v, signal))));
  return full.map((v) => versionJson(client, v));
}

export async function getProcessor(client: Client, id: string, signal?: AbortSignal, type?: ProcessorType): Promise<ProcessorDetails> {
  checkId(id);
  const entity = await client.findEntity(id, type, { signal }).catch(rethrow404(id));
  return { processor: entityJson(entity), versions: await listVersions(client, id, signal, entity.type) };
}

/** Members the caller supplied are what the service holds (the service fills in the rest with defaults). */
function holdsConfig(held: Json | undefined, wanted: Json | undefined): boolean {
  if (wanted === undefined) return true;
  if (held === undefined) return false;
  return Object.keys(wanted).every((k) => Object.hasOwn(held, k) && deepEqual(wanted[k], held[k]));
}

/**
 * Creates a processor unless one of this name and type holding this config exists (then it is
 * returned with `existed`): a re-run after a kill or a lost answer creates nothing twice. A
 * create whose answer is lost is not sent again blindly: the processor list is read again, and
 * a processor of this name and type that was not there before is the one it made. The type is
 * `type`, else the config's.
 */
export async function createProcessor(client: Client, input: { name: string; type?: ProcessorType; configFile?: string; allowUnknown?: boolean }, signal?: AbortSignal): Promise<ConfigChange> {
  if (input.name.trim() === '') throw new UsageError('--name must not be empty');
  const apiVersion = client.options.apiVersion;
  checkAllowUnknown(input.allowUnknown, apiVersion);
  const read = input.configFile !== undefined ? await readProcessorConfig(input.configFile, { type: input.type, apiVersion, allowUnknown: input.allowUnknown }) : undefined;
  const type = input.type ?? read?.type;
  if (type === undefined) throw new UsageError('which type of processor? pass --type EXTRACT, CLASSIFY or SPLITTER (or --config FILE, whose config names it)');
  const ops = client.entities(type);
  const config = read ? inApiLayout(read.config, read.type, apiVersion) : undefined;
  const source = read && config && sourceOf(read, config);
  const noun = ops.noun;
  const named = async (): Promise<Entity[]> => {
    const out: Entity[] = [];
    for await (const p of ops.listAll({ sortBy: 'createdAt', sortDir: 'desc' }, { signal })) if (p.name === input.name) out.push(p);
    return out;
  };
  const before = await named();
  for (const p of before) {
    const draft = await ops.draft(p.id, { signal });
    const held = draft?.config !== undefined ? shownConfig(draft.config, type, apiVersion) : undefined;
    if (holdsConfig(held, read?.config)) return { processor: entityJson(p), source, existed: true };
  }
  if (before.length > 0) {
    throw new InputError(`${aType(type)} ${noun} named "${input.name}" exists already (${before.map((p) => p.id).join(', ')}), with another draft config`, {
      hint: `change its draft with \`evalkit processors update ${before[0].id} --config FILE\`, or create it under another --name`,
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const created = await ops.create({ name: input.name, ...(config ? { config } : {}) }, { signal });
      return { processor: entityJson(created), source };
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      await pauseBeforeReadBack(client, attempt, signal);
      const fresh = (await named().catch((r: unknown) => {
        throw lostAnswerError(e, `${aType(type)} ${noun} named "${input.name}" may have been created; reading the ${noun} list back failed too (${(r as Error).message})`, 'run the same command again: it finds a processor of this name, type and config instead of creating another');
      })).filter((p) => !before.some((b) => b.id === p.id));
      if (fresh.length === 1) return { processor: entityJson(fresh[0]), source, answerLost: true };
      if (fresh.length > 1) {
        throw lostAnswerError(e, `the service now holds ${fresh.length} ${type} ${noun}s named "${input.name}" that were not there before this run (${fresh.map((p) => p.id).join(', ')}): this run's lost answers, or someone else's creates`, 'keep one of them and delete the others (the service has no delete endpoint for processors: use its dashboard)');
      }
      // None: the service did not act on it, so sending it again cannot make a second one.
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no ${noun} named "${input.name}" was created (the ${noun} list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

export async function updateProcessor(client: Client, id: string, input: { configFile?: string; name?: string; type?: ProcessorType; allowUnknown?: boolean }, signal?: AbortSignal): Promise<ConfigChange> {
  checkId(id);
  if (input.configFile === undefined && input.name === undefined) throw new UsageError('nothing to update', { hint: 'pass --config FILE (the draft\'s new config) and/or --name NAME' });
  if (input.name !== undefined && input.name.trim() === '') throw new UsageError('--name must not be empty');
  const apiVersion = client.options.apiVersion;
  checkAllowUnknown(input.allowUnknown, apiVersion);
  const { ops, entity } = await opsFor(client, id, input.type, signal);
  let read: ProcessorConfigFile | undefined;
  let config: Json | undefined;
  if (input.configFile !== undefined) {
    // The config must be of the processor's type (its kind, or its draft's) before anything is sent.
    const type = entity?.type ?? (await ops.draft(id, { signal }).catch(rethrow404(id)))?.type;
    read = await readProcessorConfig(input.configFile, { type, apiVersion, allowUnknown: input.allowUnknown, processorId: id });
    config = inApiLayout(read.config, read.type, apiVersion);
  }
  const updated = await ops.update(id, { ...(input.name !== undefined ? { name: input.name } : {}), ...(config ? { config } : {}) }, { signal }).catch(rethrow404(id));
  return { processor: entityJson(updated), source: read && config && sourceOf(read, config) };
}

/**
 * Publishes the draft as the next major or minor version, unless the latest published version
 * already holds the draft's config (then it is returned with `alreadyPublished`): a re-run after
 * a kill publishes nothing twice. A publish whose answer is lost is not sent again blindly: the
 * version list is read again, and a new version holding the draft's config is the one it made.
 */
export async function publishProcessor(client: Client, id: string, input: { releaseType: ReleaseType; description?: string; type?: ProcessorType }, signal?: AbortSignal): Promise<PublishedVersion> {
  checkId(id);
  if (input.releaseType !== 'major' && input.releaseType !== 'minor') throw new UsageError('--release must be major or minor');
  const { ops } = await opsFor(client, id, input.type, signal);
  const state = async () => {
    const vs = await versionsOf(ops, id, signal);
    const draft = vs.find((v) => v.version === 'draft');
    return { draft, published: vs.filter((v) => v.version !== 'draft') };
  };
  const before = await state();
  const latest = before.published[0];
  if (latest && before.draft) {
    const [l, dr] = await Promise.all([withConfig(ops, id, latest, signal), withConfig(ops, id, before.draft, signal)]);
    const lj = versionJson(client, l);
    if (deepEqual(lj.config, versionJson(client, dr).config)) return { ...lj, alreadyPublished: true };
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const v = await ops.publish(id, { releaseType: input.releaseType, ...(input.description !== undefined ? { description: input.description } : {}) }, { signal }).catch(rethrow404(id));
      return versionJson(client, v);
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      await pauseBeforeReadBack(client, attempt, signal);
      const after = await state().catch((r: unknown) => {
        throw lostAnswerError(e, `a new version of ${id} may have been published; reading the version list back failed too (${(r as Error).message})`, `run the same command again: it publishes nothing when the latest version already holds the draft's config (\`evalkit processors versions ${id}\` shows them)`);
      });
      const fresh = after.published.filter((v) => !before.published.some((b) => b.id === v.id));
      if (fresh.length === 1) return { ...versionJson(client, await withConfig(ops, id, fresh[0], signal)), answerLost: true };
      if (fresh.length > 1) {
        throw lostAnswerError(e, `${fresh.length} versions of ${id} were published during this run (${fresh.map((v) => `${v.version} ${v.id}`).join(', ')}): this run's lost answers, or someone else's publishes`, `check them with \`evalkit processors versions ${id}\`; a published version cannot be undone`);
      }
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no version of ${id} was published (the version list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

/**
 * A version by reference: draft, latest, a number (1, 1.0, or 1.0.0: a third part 0 names the
 * same version) or a version id (dpv_..., exv_..., clv_..., splv_...). Every refusal lists the
 * versions there are.
 */
export function findVersion<V extends { id: string; version: string }>(versions: readonly V[], ref: string, processorId: string): V {
  const byId = versions.find((v) => v.id === ref);
  if (byId) return byId;
  const hint = `the versions of ${processorId}: ${versions.map((v) => `${v.version} (${v.id})`).join(', ') || 'none'} (\`evalkit processors versions ${processorId}\`)`;
  if (isVersionId(ref)) {
    // A version id, of another processor (or of none this token can see).
    const kind = typeOfId(ref) ?? typeOfId(processorId);
    throw new InputError(`version ${ref} is not a version of ${processorId}: it belongs to another ${kind ? kindOfType(kind) : 'processor'}, or to none`, { hint });
  }
  const patch = /^v?\d{1,6}\.\d{1,6}\.(\d+)$/i.exec(ref.trim());
  if (patch && Number(patch[1]) !== 0) {
    throw new InputError(`"${ref}" is not a version of ${processorId}: versions are numbered major.minor (${ref.trim().replace(/\.\d+$/, '')} and ${ref.trim().replace(/\.\d+$/, '')}.0 name one version; a third part other than 0 names none)`, { hint });
  }
  if (normalizeVersionRef(ref) === undefined) {
    throw new UsageError(`"${ref}" is not a version`, { hint: `use draft, latest, a published number such as 1.0, or a version id; ${hint}` });
  }
  const found = pickVersion(versions, ref);
  if (!found) throw new InputError(`processor ${processorId} has no version "${ref}"`, { hint });
  return found;
}

export async function diffVersions(client: Client, id: string, fromRef: string, toRef: string, signal?: AbortSignal, type?: ProcessorType): Promise<VersionDiff> {
  const { ops } = await opsFor(client, id, type, signal);
  const versions = await versionsOf(ops, id, signal);
  const [a, b] = await Promise.all([withConfig(ops, id, findVersion(versions, fromRef, id), signal), withConfig(ops, id, findVersion(versions, toRef, id), signal)]);
  return { processorId: id, from: { version: a.version, id: a.id }, to: { version: b.version, id: b.id }, ...diffConfigs(versionJson(client, a).config, versionJson(client, b).config) };
}

/** What a create or update reports of its config: where from, and in what layout it was sent. */
export type ConfigSource = Pick<ProcessorConfigFile, 'type' | 'file' | 'from' | 'to' | 'patch'>;

/**
 * The source as the request carried it: on an API version older than 2025-04-21 the config is
 * checked in the 2025-04-21 layout but sent in the 2024-11-14 one, so `to` is that layout and
 * `patch` goes from the file's config to the config sent.
 */
function sourceOf(r: ProcessorConfigFile, sent: Record<string, unknown>): ConfigSource {
  if (sent === r.config) return { type: r.type, file: r.file, from: r.from, to: r.to, patch: r.patch };
  return { type: r.type, file: r.file, from: r.from, to: OLD_LAYOUT, patch: makePatch(r.fileConfig, sent) };
}
