/**
 * The 2026-02-09 routes (spec section 2): extractors, classifiers and splitters with their
 * versions, extract/classify/split runs (async, sync, cancel, delete, batch) and batch runs.
 * One builder per route family, used for the three kinds: they differ only in names
 * (KIND_ROUTES). Answers are bare objects, `{object: "list", data, nextPageToken?}` and `{id}`
 * for deletions, parsed with the schemas of model-2026-02-09.ts.
 */
import { TERMINAL_RUN_STATUSES, type Page, type ReleaseType } from './model.js';
import type { Clock, RequestOptions, Transport } from './http.js';
import {
  batchRunSchema,
  deletedSchema,
  ENTITY_SCHEMAS,
  evaluationSetRunSchema,
  KIND_ROUTES,
  LISTS,
  RUN_SCHEMAS,
  type BatchRun,
  type Entity2026,
  type EntityKind,
  type EntitySummary2026,
  type EntityVersion2026,
  type EntityVersionSummary2026,
  type EvaluationSetRun,
  type Run2026,
  type RunSummary2026,
} from './model-2026-02-09.js';
import { paginate, type PaginateOptions } from './paging.js';
import { pollUntil, type WaitOptions } from './poll.js';
import { page, seg } from './segments.js';

type Json = Record<string, unknown>;
type SortDir = 'asc' | 'desc';

export interface CursorParams {
  nextPageToken?: string;
  maxPageSize?: number;
}

export interface ListEntitiesParams extends CursorParams {
  sortBy?: 'createdAt' | 'updatedAt';
  sortDir?: SortDir;
}

export interface ListEntityVersionsParams extends CursorParams {
  sortDir?: SortDir;
}

export interface CreateEntityInput {
  name: string;
  /** In the 2026-02-09 layout (no `type`). */
  config?: Json;
  /** Copies this extractor/classifier/splitter (sent as cloneExtractorId...). */
  cloneId?: string;
  /** Extractors only: generate a config from files (spec `ExtractorsCreateRequestGenerate`). */
  generate?: Json;
}

export interface UpdateEntityInput {
  name?: string;
  config?: Json;
}

export interface CreateEntityVersionInput {
  releaseType: ReleaseType;
  description?: string;
  /** Published instead of the draft's config when given. */
  config?: Json;
}

/** The stored extractor/classifier/splitter a run uses: `{id, version?, overrideConfig?}`. */
export interface RunEntityRef {
  id: string;
  /** latest, draft, or a published number such as 1.0 (absent: newest published, else draft). */
  version?: string;
  /** Partial: only the members given replace the stored ones. */
  overrideConfig?: Json;
}

/** `FileFromUrl`, `FileFromId` or `FileFromText` (not for split runs). */
export type RunFile2026 = { url: string; name?: string; settings?: { password?: string } } | { id: string } | { text: string; name?: string };

/**
 * A run request: the stored entity under the kind's key (`extractor`, `classifier`, `splitter`)
 * or a full inline `config` (mutually exclusive), and a `file` (or, extract runs only, a
 * `package` of files).
 */
export interface CreateRun2026Input {
  extractor?: RunEntityRef;
  classifier?: RunEntityRef;
  splitter?: RunEntityRef;
  config?: Json;
  file?: RunFile2026;
  package?: { files: RunFile2026[] };
  priority?: number;
  metadata?: Json;
}

export interface CreateRunBatch2026Input {
  extractor?: RunEntityRef;
  classifier?: RunEntityRef;
  splitter?: RunEntityRef;
  /** 1 to 1,000 inputs. */
  inputs: Array<{ file: RunFile2026; metadata?: Json }>;
  priority?: number;
}

export interface ListRuns2026Params extends CursorParams {
  status?: string;
  /** The runs of one extractor/classifier/splitter (sent as extractorId...). */
  entityId?: string;
  /** The runs of one run batch. */
  batchId?: string;
  source?: string;
  sourceId?: string;
  fileNameContains?: string;
  sortBy?: 'createdAt' | 'updatedAt';
  sortDir?: SortDir;
}

/** `POST /evaluation_set_runs`: the set's entity at its draft unless `entity` names one (and its version). */
export interface CreateEvaluationSetRunInput {
  evaluationSetId: string;
  /** An extractor, classifier or splitter of the set's kind; `version`: latest, draft or a number such as 1.0. */
  entity?: { id: string; version?: string };
  /** Only these items (default: every item of the set). */
  evaluationSetItemIds?: string[];
}

interface Deps {
  request: Transport['request'];
  clock: Clock;
  random: () => number;
}

/** `/extractors` (or `/classifiers`, `/splitters`) and their `/versions`. */
export function entityRoutes(kind: EntityKind, { request }: Deps) {
  const r = KIND_ROUTES[kind];
  const s = ENTITY_SCHEMAS[kind];
  const lists = LISTS[kind];
  const idPath = (id: string) => `${r.base}/${seg(id, `${kind} id`)}`;
  const group = {
    kind,
    /** GET /extractors (one page of summaries: no config). */
    async list(params: ListEntitiesParams = {}, o?: RequestOptions): Promise<Page<EntitySummary2026>> {
      const a = await request({ method: 'GET', path: r.base, query: { ...params }, schema: lists.entities }, o);
      return page(a.data as EntitySummary2026[], a.nextPageToken);
    },
    listAll(params: Omit<ListEntitiesParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<EntitySummary2026, void, undefined> {
      return paginate((nextPageToken) => group.list({ ...params, nextPageToken }, o), o);
    },
    /** POST /extractors: the answer holds the draft version (`draftVersion`). */
    async create(input: CreateEntityInput, o?: RequestOptions): Promise<Entity2026> {
      const { cloneId, ...rest } = input;
      const body: Json = { ...rest, ...(cloneId !== undefined ? { [r.cloneKey]: cloneId } : {}) };
      return (await request({ method: 'POST', path: r.base, body, schema: s.entity }, o)) as Entity2026;
    },
    /** GET /extractors/{id} */
    async retrieve(id: string, o?: RequestOptions): Promise<Entity2026> {
      return (await request({ method: 'GET', path: idPath(id), schema: s.entity }, o)) as Entity2026;
    },
    /** POST /extractors/{id}: replaces the draft's config and/or the name. Idempotent: sent twice, the draft is the same. */
    async update(id: string, input: UpdateEntityInput, o?: RequestOptions): Promise<Entity2026> {
      return (await request({ method: 'POST', path: idPath(id), body: input, idempotent: true, schema: s.entity }, o)) as Entity2026;
    },
    /** GET /extractors/{id}/versions (one page of summaries: no config; the draft first, then newest first). */
    async listVersions(id: string, params: ListEntityVersionsParams = {}, o?: RequestOptions): Promise<Page<EntityVersionSummary2026>> {
      const a = await request({ method: 'GET', path: `${idPath(id)}/versions`, query: { ...params }, schema: lists.versions }, o);
      return page(a.data as EntityVersionSummary2026[], a.nextPageToken);
    },
    listAllVersions(id: string, params: Omit<ListEntityVersionsParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<EntityVersionSummary2026, void, undefined> {
      return paginate((nextPageToken) => group.listVersions(id, { ...params, nextPageToken }, o), o);
    },
    /** POST /extractors/{id}/versions: publishes the draft (or `config`) as the next major or minor version. */
    async createVersion(id: string, input: CreateEntityVersionInput, o?: RequestOptions): Promise<EntityVersion2026> {
      return (await request({ method: 'POST', path: `${idPath(id)}/versions`, body: input, schema: s.version }, o)) as EntityVersion2026;
    },
    /** GET /extractors/{id}/versions/{versionId} */
    async retrieveVersion(id: string, versionId: string, o?: RequestOptions): Promise<EntityVersion2026> {
      const path = `${idPath(id)}/versions/${seg(versionId, `${kind} version id`)}`;
      return (await request({ method: 'GET', path, schema: s.version }, o)) as EntityVersion2026;
    },
  };
  return group;
}

/** `/extract_runs` (or `/classify_runs`, `/split_runs`), the sync `/extract`... and their batches. */
export function runRoutes(kind: EntityKind, { request, clock, random }: Deps) {
  const r = KIND_ROUTES[kind];
  const s = RUN_SCHEMAS[kind];
  const idPath = (id: string) => `${r.runs}/${seg(id, `${r.runObject} id`)}`;
  const group = {
    kind,
    /** POST /extract_runs: the run starts PENDING or PROCESSING with output null. */
    async create(input: CreateRun2026Input, o?: RequestOptions): Promise<Run2026> {
      return (await request({ method: 'POST', path: r.runs, body: input, schema: s.run }, o)) as Run2026;
    },
    /** POST /extract: waits for the run's end (the service's limit is 5 minutes). */
    async runSync(input: CreateRun2026Input, o?: RequestOptions): Promise<Run2026> {
      return (await request({ method: 'POST', path: r.sync, body: input, schema: s.run }, o)) as Run2026;
    },
    /** GET /extract_runs/{id} */
    async retrieve(id: string, o?: RequestOptions): Promise<Run2026> {
      return (await request({ method: 'GET', path: idPath(id), schema: s.run }, o)) as Run2026;
    },
    /** GET /extract_runs (one page of summaries: no output, no config). */
    async list(params: ListRuns2026Params = {}, o?: RequestOptions): Promise<Page<RunSummary2026>> {
      const { entityId, ...rest } = params;
      const query = { ...rest, ...(entityId !== undefined ? { [r.idKey]: entityId } : {}) };
      const a = await request({ method: 'GET', path: r.runs, query, schema: LISTS[kind].runs }, o);
      return page(a.data as RunSummary2026[], a.nextPageToken);
    },
    listAll(params: Omit<ListRuns2026Params, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<RunSummary2026, void, undefined> {
      return paginate((nextPageToken) => group.list({ ...params, nextPageToken }, o), o);
    },
    /** POST /extract_runs/{id}/cancel: only a PROCESSING run can be cancelled. */
    async cancel(id: string, o?: RequestOptions): Promise<Run2026> {
      return (await request({ method: 'POST', path: `${idPath(id)}/cancel`, schema: s.run }, o)) as Run2026;
    },
    /** DELETE /extract_runs/{id}: answers `{id}`. */
    async delete(id: string, o?: RequestOptions): Promise<{ id: string }> {
      return request({ method: 'DELETE', path: idPath(id), goneBody: { id }, schema: deletedSchema }, o);
    },
    /** POST /extract_runs/batch: 1 to 1,000 inputs on one stored entity; poll `/batch_runs/{id}`. */
    async createBatch(input: CreateRunBatch2026Input, o?: RequestOptions): Promise<BatchRun> {
      return request({ method: 'POST', path: `${r.runs}/batch`, body: input, schema: batchRunSchema }, o);
    },
    /** Polls until PROCESSED, FAILED or CANCELLED (a failed run is returned, not thrown). */
    waitFor(id: string, w: WaitOptions<Run2026> & { requestTimeoutMs?: number } = {}): Promise<Run2026> {
      return pollUntil(
        {
          get: () => group.retrieve(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (run) => TERMINAL_RUN_STATUSES.has(run.status as never),
          describe: (run) => `${r.runObject} ${id} is still ${run.status}`,
          method: 'GET', path: idPath(id), clock, random,
        },
        w,
      );
    },
  };
  return group;
}

/** `/batch_runs/{id}`: the run batches of extract, classify, split (and parse) runs. */
export function batchRunRoutes({ request, clock, random }: Deps) {
  const path = (id: string) => `/batch_runs/${seg(id, 'batch run id')}`;
  const group = {
    async retrieve(id: string, o?: RequestOptions): Promise<BatchRun> {
      return request({ method: 'GET', path: path(id), schema: batchRunSchema }, o);
    },
    waitFor(id: string, w: WaitOptions<BatchRun> & { requestTimeoutMs?: number } = {}): Promise<BatchRun> {
      return pollUntil(
        {
          get: () => group.retrieve(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (b) => TERMINAL_RUN_STATUSES.has(b.status as never),
          describe: (b) => `batch run ${id} is still ${b.status}`,
          method: 'GET', path: path(id), clock, random,
        },
        w,
      );
    },
  };
  return group;
}

/**
 * `/evaluation_set_runs` (spec 4.1): create (answers at once, PENDING), retrieve, and waitFor,
 * which polls until PROCESSED, FAILED or CANCELLED. The service has no list, cancel or delete of
 * evaluation set runs.
 */
export function evaluationSetRunRoutes({ request, clock, random }: Deps) {
  const path = (id: string) => `/evaluation_set_runs/${seg(id, 'evaluation set run id')}`;
  const group = {
    /** POST /evaluation_set_runs. Not idempotent: each call starts a run. */
    async create(input: CreateEvaluationSetRunInput, o?: RequestOptions): Promise<EvaluationSetRun> {
      return request({ method: 'POST', path: '/evaluation_set_runs', body: input, schema: evaluationSetRunSchema }, o);
    },
    /** GET /evaluation_set_runs/{id}: `metrics.numFilesProcessed` / `numFilesTotal` is the progress while it runs. */
    async retrieve(id: string, o?: RequestOptions): Promise<EvaluationSetRun> {
      return request({ method: 'GET', path: path(id), schema: evaluationSetRunSchema }, o);
    },
    /** Polls until PROCESSED, FAILED or CANCELLED (a failed run is returned, not thrown). */
    waitFor(id: string, w: WaitOptions<EvaluationSetRun> & { requestTimeoutMs?: number } = {}): Promise<EvaluationSetRun> {
      return pollUntil(
        {
          get: () => group.retrieve(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (r) => TERMINAL_RUN_STATUSES.has(r.status as never),
          describe: (r) => `evaluation set run ${id} is still ${r.status}`,
          method: 'GET', path: path(id), clock, random,
        },
        w,
      );
    },
  };
  return group;
}

export type EvaluationSetRunRoutes = ReturnType<typeof evaluationSetRunRoutes>;
export type EntityRoutes = ReturnType<typeof entityRoutes>;
export type RunRoutes = ReturnType<typeof runRoutes>;
export type BatchRunRoutes = ReturnType<typeof batchRunRoutes>;
