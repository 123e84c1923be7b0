/**
 * One way to reach processors and runs whatever the API version in effect: `client.entities(type)`
 * and `client.runs(type)` map a processor type to the route family of that version (2025-04-21:
 * `/processors` and `/processor_runs`; 2026-02-09: `/extractors`, `/classifiers`, `/splitters`
 * and their runs) and answer in one neutral shape, so callers (processors commands, eval run,
 * datasets) never branch on the version.
 *
 * Configs travel in the layout of the version in effect (2025-04-21 with `type`; 2026-02-09
 * without): src/config translates them, this module does not look inside.
 *
 * An id tells its kind on 2026-02-09 (ex_, cl_/cls_, spl_ and their version and run prefixes).
 * A 2025-04-21 `dp_` id (or any other) names the same object as its extractor, classifier or
 * splitter (spec 1.4, INFERRED): `findEntity` tries it on each of the three routes.
 */
import { UsageError } from '../util/errors.js';
import { ApiError, isApiError } from './errors.js';
import type { Clock, RequestOptions, Transport } from './http.js';
import { aType, typeOfId } from './ids.js';
import {
  envelopes,
  TERMINAL_RUN_STATUSES,
  type Page,
  type Processor,
  type ProcessorRun,
  type ProcessorType,
  type ProcessorVersion,
  type ReleaseType,
} from './model.js';
import { ENTITY_KINDS, KIND_ROUTES, kindOfType, type BatchRun, type EntityKind } from './model-2026-02-09.js';
import type { CreateRunBatch2026Input, EntityRoutes, RunFile2026, RunRoutes } from './client-2026.js';
import { paginate, type PaginateOptions } from './paging.js';
import { pollUntil, type WaitOptions } from './poll.js';
import { page, seg } from './segments.js';
import { speaks2026 } from './version.js';

type Json = Record<string, unknown>;

/** A processor (2025-04-21) or an extractor, classifier or splitter (2026-02-09). */
export interface Entity {
  /** What the version in effect calls it: processor, extractor, classifier or splitter. */
  noun: 'processor' | EntityKind;
  id: string;
  name: string;
  type: ProcessorType;
  createdAt: string;
  updatedAt: string;
  /** The draft version, when the answer holds one (2026-02-09 create/retrieve/update; 2025-04-21 update). */
  draft?: EntityVersion;
  /** The object as the service answered it. */
  raw: Json;
}

export interface EntityVersion {
  id: string;
  /** The processor, extractor, classifier or splitter it belongs to. */
  entityId: string;
  type: ProcessorType;
  /** "draft", "1.0", "1.1"... */
  version: string;
  description: string | null;
  /** In the layout of the version in effect; absent from 2026-02-09 version lists (summaries). */
  config?: Json;
  createdAt?: string;
  updatedAt?: string;
  raw: Json;
}

export interface Run {
  id: string;
  type: ProcessorType;
  /** PENDING, PROCESSING, PROCESSED, FAILED, CANCELLED (open). */
  status: string;
  /** null until PROCESSED; absent from list items (2026-02-09 summaries). */
  output?: Json | null;
  entityId: string | null;
  entityVersionId: string | null;
  failureReason?: string | null;
  failureMessage?: string | null;
  metadata?: Json | null;
  raw: Json;
}

export interface EntityPageParams {
  nextPageToken?: string;
  maxPageSize?: number;
  sortBy?: 'createdAt' | 'updatedAt';
  sortDir?: 'asc' | 'desc';
}

/** A 2025-04-21 run file or its 2026-02-09 form. */
export type AnyRunFile = { fileName: string; fileUrl: string } | { fileName: string; fileBase64: string } | { fileId: string; fileName?: string } | RunFile2026;

export interface CreateRunInput {
  /** The processor, extractor, classifier or splitter. */
  entityId: string;
  /** latest (default), draft, or a published number such as 1.0. */
  version?: string;
  file?: AnyRunFile;
  /** Text instead of a file (not for splitters on 2026-02-09). */
  rawText?: string;
  /** 2025-04-21: the full config the run uses instead; 2026-02-09: `overrideConfig` (the members given replace the stored ones). */
  config?: Json;
  priority?: number;
  metadata?: Json;
  /** Waits for the run's end: 2025-04-21 `sync: true`, 2026-02-09 the sync route (`/extract`...). */
  sync?: boolean;
}

export interface ListRunsParams {
  entityId?: string;
  status?: string;
  /** 2025-04-21: the batch (evaluation) run (`batchProcessorRunId`); 2026-02-09: the run batch (`batchId`). */
  batchId?: string;
  nextPageToken?: string;
  maxPageSize?: number;
  sortBy?: 'createdAt' | 'updatedAt';
  sortDir?: 'asc' | 'desc';
}

/** The 2025-04-21 client groups the facade reaches (structural, to keep the import one way). */
interface Legacy {
  processors: {
    create(input: { name: string; type: ProcessorType; config?: Json; cloneProcessorId?: string }, o?: RequestOptions): Promise<Processor>;
    update(id: string, input: { name?: string; config?: Json }, o?: RequestOptions): Promise<Processor>;
    publish(id: string, input: { releaseType: ReleaseType; description?: string; config?: Json }, o?: RequestOptions): Promise<ProcessorVersion>;
    list(params: { type?: ProcessorType; nextPageToken?: string; maxPageSize?: number; sortBy?: string; sortDir?: 'asc' | 'desc' }, o?: RequestOptions): Promise<Page<Processor>>;
    listVersions(id: string, params: { nextPageToken?: string; maxPageSize?: number }, o?: RequestOptions): Promise<Page<ProcessorVersion>>;
    getVersion(processorId: string, versionId: string, o?: RequestOptions): Promise<ProcessorVersion>;
  };
  processorRuns: {
    create(input: Json & { processorId: string }, o?: RequestOptions): Promise<ProcessorRun>;
    get(id: string, o?: RequestOptions): Promise<ProcessorRun>;
    list(params: Json, o?: RequestOptions): Promise<Page<ProcessorRun>>;
  };
}

interface Deps {
  apiVersion: string;
  request: Transport['request'];
  clock: Clock;
  random: () => number;
  legacy: Legacy;
  entities2026: Readonly<Record<EntityKind, EntityRoutes>>;
  runs2026: Readonly<Record<EntityKind, RunRoutes>>;
}

// ---------------------------------------------------------------------------------------------
// Neutral shapes from each version's objects

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function fromProcessor(p: Processor): Entity {
  const draft = p.draftVersion ? { id: p.draftVersion.id, entityId: p.id, type: p.type, version: p.draftVersion.version, description: null, config: p.draftVersion.config as Json, raw: p.draftVersion as Json } : undefined;
  return { noun: 'processor', id: p.id, name: p.name, type: p.type, createdAt: p.createdAt, updatedAt: p.updatedAt, ...(draft ? { draft } : {}), raw: p as Json };
}

function fromProcessorVersion(v: ProcessorVersion): EntityVersion {
  return { id: v.id, entityId: v.processorId, type: v.processorType, version: v.version, description: v.description ?? null, config: v.config as Json, createdAt: v.createdAt, updatedAt: v.updatedAt, raw: v as Json };
}

function fromVersion2026(kind: EntityKind, v: Json): EntityVersion {
  const r = KIND_ROUTES[kind];
  return {
    id: str(v.id), entityId: str(v[r.idKey]), type: r.type, version: str(v.version), description: typeof v.description === 'string' ? v.description : null,
    ...(v.config !== undefined ? { config: v.config as Json } : {}), createdAt: str(v.createdAt), raw: v,
  };
}

function fromEntity2026(kind: EntityKind, e: Json): Entity {
  const draft = e.draftVersion !== undefined && e.draftVersion !== null ? fromVersion2026(kind, e.draftVersion as Json) : undefined;
  return { noun: kind, id: str(e.id), name: str(e.name), type: KIND_ROUTES[kind].type, createdAt: str(e.createdAt), updatedAt: str(e.updatedAt), ...(draft ? { draft } : {}), raw: e };
}

function fromProcessorRun(run: ProcessorRun, type: ProcessorType): Run {
  return {
    id: run.id, type: run.type ?? type, status: run.status, output: run.output, entityId: run.processorId, entityVersionId: run.processorVersionId ?? null,
    failureReason: run.failureReason, failureMessage: run.failureMessage, metadata: run.metadata, raw: run as Json,
  };
}

function fromRun2026(kind: EntityKind, run: Json): Run {
  const ref = (k: string): string | null => {
    const o = run[k];
    return o !== null && typeof o === 'object' && typeof (o as Json).id === 'string' ? ((o as Json).id as string) : null;
  };
  return {
    id: str(run.id), type: KIND_ROUTES[kind].type, status: str(run.status), ...(Object.hasOwn(run, 'output') ? { output: run.output as Json | null } : {}),
    entityId: ref(kind), entityVersionId: ref(`${kind}Version`),
    failureReason: run.failureReason as string | null | undefined, failureMessage: run.failureMessage as string | null | undefined,
    metadata: run.metadata as Json | null | undefined, raw: run,
  };
}

/** A 404 the facade makes itself (2025-04-21 has no get-one-processor: the list did not hold it). */
function notInList(id: string, path: string): ApiError {
  return new ApiError(`GET ${path}: processor ${id} is not in the processor list`, {
    kind: 'http', method: 'GET', path, status: 404, retryable: false,
    hint: 'check the processor id (`evalkit processors list` shows those this token can see)',
  });
}

/** `type`, checked against what the id's prefix says (an ex_ id is no classifier). */
function checkedType(id: string, type: ProcessorType | undefined): ProcessorType | undefined {
  const fromId = typeOfId(id);
  if (type !== undefined && fromId !== undefined && type !== fromId) {
    throw new UsageError(`${id} is ${aType(fromId)} id (${kindOfType(fromId)}), not ${type}`, { hint: `drop --type, or pass --type ${fromId}` });
  }
  return type ?? fromId;
}

function is404(e: unknown): boolean {
  return isApiError(e) && e.kind === 'http' && e.status === 404;
}

// ---------------------------------------------------------------------------------------------

export function makeFacade(d: Deps) {
  const v2026 = speaks2026(d.apiVersion);

  function entities(type: ProcessorType) {
    const kind = kindOfType(type);
    const e = d.entities2026[kind];
    const { processors } = d.legacy;
    const ops = {
      type,
      /** What the version in effect calls these objects. */
      noun: (v2026 ? kind : 'processor') as Entity['noun'],
      async list(params: EntityPageParams = {}, o?: RequestOptions): Promise<Page<Entity>> {
        if (v2026) {
          const p = await e.list(params, o);
          return page(p.items.map((x) => fromEntity2026(kind, x)), p.nextPageToken);
        }
        const p = await processors.list({ ...params, type }, o);
        return page(p.items.map(fromProcessor), p.nextPageToken);
      },
      listAll(params: Omit<EntityPageParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<Entity, void, undefined> {
        return paginate((nextPageToken) => ops.list({ ...params, nextPageToken }, o), o);
      },
      /** 2026-02-09: GET /extractors/{id}. 2025-04-21 has no such route: the processor list is searched (a 404 ApiError when absent). */
      async retrieve(id: string, o?: RequestOptions & PaginateOptions): Promise<Entity> {
        if (v2026) return fromEntity2026(kind, await e.retrieve(id, o));
        seg(id, 'processor id');
        for await (const p of ops.listAll({}, o)) if (p.id === id) return p;
        throw notInList(id, `/processors?type=${type}`);
      },
      /** The draft version with its config. */
      async draft(id: string, o?: RequestOptions & PaginateOptions): Promise<EntityVersion | undefined> {
        if (v2026) return (await ops.retrieve(id, o)).draft;
        for await (const v of ops.listAllVersions(id, o)) if (v.version === 'draft') return v;
        return undefined;
      },
      async create(input: { name: string; config?: Json; cloneId?: string }, o?: RequestOptions): Promise<Entity> {
        const { cloneId, ...rest } = input;
        if (v2026) return fromEntity2026(kind, await e.create({ ...rest, ...(cloneId !== undefined ? { cloneId } : {}) }, o));
        return fromProcessor(await processors.create({ ...rest, type, ...(cloneId !== undefined ? { cloneProcessorId: cloneId } : {}) }, o));
      },
      async update(id: string, input: { name?: string; config?: Json }, o?: RequestOptions): Promise<Entity> {
        if (v2026) return fromEntity2026(kind, await e.update(id, input, o));
        return fromProcessor(await processors.update(id, input, o));
      },
      /** Publishes the draft (or `config`): 2025-04-21 POST /processors/{id}/publish, 2026-02-09 POST /extractors/{id}/versions. */
      async publish(id: string, input: { releaseType: ReleaseType; description?: string; config?: Json }, o?: RequestOptions): Promise<EntityVersion> {
        if (v2026) return fromVersion2026(kind, await e.createVersion(id, input, o));
        return fromProcessorVersion(await processors.publish(id, input, o));
      },
      /** One page; on 2026-02-09 the versions are summaries (no config: retrieveVersion has it). */
      async listVersions(id: string, params: { nextPageToken?: string; maxPageSize?: number } = {}, o?: RequestOptions): Promise<Page<EntityVersion>> {
        if (v2026) {
          const p = await e.listVersions(id, params, o);
          return page(p.items.map((x) => fromVersion2026(kind, x)), p.nextPageToken);
        }
        const p = await processors.listVersions(id, params, o);
        return page(p.items.map(fromProcessorVersion), p.nextPageToken);
      },
      listAllVersions(id: string, o?: RequestOptions & PaginateOptions): AsyncGenerator<EntityVersion, void, undefined> {
        return paginate((nextPageToken) => ops.listVersions(id, { nextPageToken }, o), o);
      },
      async retrieveVersion(id: string, versionId: string, o?: RequestOptions): Promise<EntityVersion> {
        if (v2026) return fromVersion2026(kind, await e.retrieveVersion(id, versionId, o));
        return fromProcessorVersion(await processors.getVersion(id, versionId, o));
      },
    };
    return ops;
  }

  /** Every processor (2025-04-21: one list) or every extractor, classifier and splitter (2026-02-09: three lists, merged by `sortBy`). */
  async function* listEntities(params: Omit<EntityPageParams, 'nextPageToken'> & { type?: ProcessorType } = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<Entity, void, undefined> {
    const { type, ...rest } = params;
    if (type !== undefined) return yield* entities(type).listAll(rest, o);
    if (!v2026) {
      const { processors } = d.legacy;
      for await (const p of paginate((nextPageToken) => processors.list({ ...rest, nextPageToken }, o), o)) yield fromProcessor(p);
      return;
    }
    const all: Entity[] = [];
    for (const kind of ENTITY_KINDS) for await (const x of entities(KIND_ROUTES[kind].type).listAll(rest, o)) all.push(x);
    const key = rest.sortBy ?? 'createdAt';
    const sign = rest.sortDir === 'asc' ? 1 : -1;
    all.sort((a, b) => sign * (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
    yield* all;
  }

  /**
   * The object an id names, of `type` when given. 2026-02-09: the id's prefix tells the route
   * (ex_, cl_, spl_); any other id (a 2025-04-21 dp_) is tried on /extractors, /classifiers and
   * /splitters in turn (one object under two routes, spec 1.4 INFERRED). 2025-04-21: the
   * processor list is searched. A 404 ApiError when nothing has it.
   */
  async function findEntity(id: string, type?: ProcessorType, o?: RequestOptions & PaginateOptions): Promise<Entity> {
    const told = checkedType(id, type);
    if (told !== undefined) return entities(told).retrieve(id, o);
    if (!v2026) {
      for await (const p of listEntities({}, o)) if (p.id === id) return p;
      throw notInList(id, '/processors');
    }
    let last: unknown;
    for (const kind of ENTITY_KINDS) {
      try {
        return await entities(KIND_ROUTES[kind].type).retrieve(id, o);
      } catch (err) {
        if (!is404(err)) throw err;
        last = err;
      }
    }
    throw last;
  }

  /**
   * The operations on one object by its id, and the object when finding the route took a look
   * at it. 2026-02-09: the route family is the object's kind (findEntity). 2025-04-21: the
   * routes of one processor (/processors/{id}/...) do not depend on its type, so nothing is
   * looked up; `type` (or the id's prefix) only names the type the answers are read as.
   */
  async function entityOps(id: string, type?: ProcessorType, o?: RequestOptions & PaginateOptions): Promise<{ ops: ReturnType<typeof entities>; entity?: Entity }> {
    if (!v2026) return { ops: entities(checkedType(id, type) ?? 'EXTRACT') };
    const entity = await findEntity(id, type, o);
    return { ops: entities(entity.type), entity };
  }

  function runs(type: ProcessorType) {
    const kind = kindOfType(type);
    const r = d.runs2026[kind];
    const { processorRuns } = d.legacy;
    const ops = {
      type,
      async create(input: CreateRunInput, o?: RequestOptions): Promise<Run> {
        if (!v2026) {
          const { entityId, ...rest } = input;
          return fromProcessorRun(await processorRuns.create({ ...rest, processorId: entityId } as Json & { processorId: string }, o), type);
        }
        const body = runBody2026(kind, input);
        return fromRun2026(kind, input.sync ? await r.runSync(body, o) : await r.create(body, o));
      },
      async retrieve(id: string, o?: RequestOptions): Promise<Run> {
        if (v2026) return fromRun2026(kind, await r.retrieve(id, o));
        return fromProcessorRun(await processorRuns.get(id, o), type);
      },
      async list(params: ListRunsParams = {}, o?: RequestOptions): Promise<Page<Run>> {
        if (v2026) {
          const p = await r.list(params, o);
          return page(p.items.map((x) => fromRun2026(kind, x)), p.nextPageToken);
        }
        const { entityId, batchId, ...rest } = params;
        const query: Json = { ...rest, processorType: type, ...(entityId !== undefined ? { processorId: entityId } : {}), ...(batchId !== undefined ? { batchProcessorRunId: batchId } : {}) };
        const p = await processorRuns.list(query, o);
        return page(p.items.map((x) => fromProcessorRun(x, type)), p.nextPageToken);
      },
      listAll(params: Omit<ListRunsParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<Run, void, undefined> {
        return paginate((nextPageToken) => ops.list({ ...params, nextPageToken }, o), o);
      },
      /** Only a PROCESSING run can be cancelled. */
      async cancel(id: string, o?: RequestOptions): Promise<Run> {
        if (v2026) return fromRun2026(kind, await r.cancel(id, o));
        const a = await d.request({ method: 'POST', path: `/processor_runs/${seg(id, 'processor run id')}/cancel`, schema: envelopes.processorRun }, o);
        return fromProcessorRun(a.processorRun, type);
      },
      async delete(id: string, o?: RequestOptions): Promise<void> {
        if (v2026) {
          await r.delete(id, o);
          return;
        }
        await d.request({ method: 'DELETE', path: `/processor_runs/${seg(id, 'processor run id')}`, schema: envelopes.deleted }, o);
      },
      /** 2026-02-09 only: 1 to 1,000 inputs on one stored entity (2025-04-21 has no run batches). */
      async createBatch(input: { entityId: string; version?: string; overrideConfig?: Json; inputs: CreateRunBatch2026Input['inputs']; priority?: number }, o?: RequestOptions): Promise<BatchRun> {
        if (!v2026) throw new UsageError(`run batches need API version 2026-02-09 (in effect: ${d.apiVersion})`, { hint: 'set --api-version 2026-02-09 (or EVALKIT_API_VERSION), or create the runs one by one' });
        const { entityId, version, overrideConfig, inputs, priority } = input;
        const ref = { id: entityId, ...(version !== undefined ? { version } : {}), ...(overrideConfig !== undefined ? { overrideConfig } : {}) };
        return r.createBatch({ [kind]: ref, inputs, ...(priority !== undefined ? { priority } : {}) }, o);
      },
      /** Polls until PROCESSED, FAILED or CANCELLED; a failed run is returned, not thrown. */
      waitFor(id: string, w: WaitOptions<Run> & { requestTimeoutMs?: number } = {}): Promise<Run> {
        return pollUntil(
          {
            get: () => ops.retrieve(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
            done: (run) => TERMINAL_RUN_STATUSES.has(run.status as never),
            describe: (run) => `run ${id} is still ${run.status}`,
            method: 'GET', path: v2026 ? `${KIND_ROUTES[kind].runs}/${id}` : `/processor_runs/${id}`, clock: d.clock, random: d.random,
          },
          w,
        );
      },
    };
    return ops;
  }

  return { entities, listEntities, findEntity, entityOps, runs };
}

/** Spec 2.1: a 2025-04-21 run request in the 2026-02-09 form. */
export function runBody2026(kind: EntityKind, input: CreateRunInput): Json {
  const ref: Json = { id: input.entityId };
  if (input.version !== undefined) ref.version = input.version;
  if (input.config !== undefined) ref.overrideConfig = input.config;
  const body: Json = { [kind]: ref };
  if (input.file !== undefined && input.rawText !== undefined) throw new UsageError('a run takes a file or text, not both');
  if (input.file !== undefined) body.file = runFile2026(input.file);
  if (input.rawText !== undefined) {
    if (kind === 'splitter') throw new UsageError('split runs do not take text on API version 2026-02-09', { hint: 'upload the text as a file and pass its id' });
    body.file = { text: input.rawText };
  }
  if (input.priority !== undefined) body.priority = input.priority;
  if (input.metadata !== undefined) body.metadata = input.metadata;
  return body;
}

function runFile2026(f: AnyRunFile): RunFile2026 {
  const x = f as Json;
  if (typeof x.fileUrl === 'string') return { url: x.fileUrl, ...(typeof x.fileName === 'string' ? { name: x.fileName } : {}) };
  if (typeof x.fileId === 'string') return { id: x.fileId };
  if (typeof x.fileBase64 === 'string') {
    // Spec 2.1: no base64 file in the 1.x types (INFERRED: upload first, then run on its id).
    throw new UsageError('API version 2026-02-09 takes no base64 file in a run', { hint: 'upload the file first (client.files.upload) and pass {fileId}' });
  }
  return f as RunFile2026;
}

export type Facade = ReturnType<typeof makeFacade>;
export type EntityOps = ReturnType<Facade['entities']>;
export type RunOps = ReturnType<Facade['runs']>;
