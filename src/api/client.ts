/**
 * The service client: one typed function per endpoint, grouped by resource.
 *
 *   const client = clientFromEnv();
 *   const run = await client.processorRuns.create({ processorId, rawText: 'Invoice 42 ...' });
 *   const done = await client.processorRuns.waitFor(run.id, { timeoutMs: 120_000 });
 *
 * Every function takes an optional last argument `{signal, timeoutMs, maxRetries}`.
 */
import { randomBytes } from 'node:crypto';
import { UsageError } from '../util/errors.js';
import { createTransport, realClock, type Clock, type FetchLike, type RequestOptions, type RetryInfo, type Transport } from './http.js';
import {
  TERMINAL_RUN_STATUSES,
  envelopes,
  type BatchProcessorRun,
  type BatchProcessorRunStatus,
  type BatchRunOptions,
  type Page,
  type Processor,
  type ProcessorRun,
  type ProcessorRunStatus,
  type ProcessorType,
  type ProcessorVersion,
  type ReleaseType,
  type WorkflowRun,
  type WorkflowRunStatus,
  SETTLED_WORKFLOW_RUN_STATUSES,
} from './model.js';
import { paginate, type PaginateOptions } from './paging.js';
import { page, seg } from './segments.js';
import { pollUntil, type WaitOptions } from './poll.js';

import { DEFAULT_API_VERSION, speaks2026 } from './version.js';
import { batchRunRoutes, entityRoutes, evaluationSetRunRoutes, runRoutes } from './client-2026.js';
import { makeFacade } from './facade.js';
import { makeSetFacade } from './evaluationSets.js';

export { DEFAULT_API_VERSION };
/** The version header for 2025-04-21 and older (service-api.md part 9). */
export const DEFAULT_VERSION_HEADER = 'x-service-api-version';
/** The version header for 2026-02-09 and later (spec 1.1: what the official SDK 1.x sends). */
export const VERSION_HEADER_2026 = 'x-extend-api-version';

export interface ClientOptions {
  /** For example https://api.example.com or http://127.0.0.1:8787 (the sandbox). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never stored on the client object or put in errors. */
  token?: string;
  /** YYYY-MM-DD; default DEFAULT_API_VERSION (2026-02-09). An empty string sends no version header. */
  apiVersion?: string;
  /** Default x-service-api-version, or x-extend-api-version for 2026-02-09 and later; some deployments use another name. */
  versionHeader?: string;
  /** Sent as `x-extend-workspace-id` (organization-scoped API keys need it); default none. */
  workspaceId?: string;
  /** Retries after the first attempt for network errors, timeouts, 408, 429 and 5xx; default 3. */
  maxRetries?: number;
  /** Per attempt; default 120 s. 0 disables. */
  timeoutMs?: number;
  /** First backoff step, default 500 ms; backoff is capped at retryMaxDelayMs (default 30 s). */
  retryBaseMs?: number;
  retryMaxDelayMs?: number;
  /** Longest Retry-After the client waits for; default 120 s. */
  maxRetryAfterMs?: number;
  fetch?: FetchLike;
  userAgent?: string;
  /** Called before each retry (progress display). Carries no headers. */
  onRetry?: (info: RetryInfo) => void;
  /** Test hooks: time source and sleeper, random numbers for the jitter. */
  clock?: Clock;
  random?: () => number;
}

// ---------------------------------------------------------------------------------------------
// Request inputs

type Json = Record<string, unknown>;

export interface PageParams {
  nextPageToken?: string;
  maxPageSize?: number;
}

export interface CreateProcessorInput {
  name: string;
  type: ProcessorType;
  /** Unsupplied members take the service's defaults. */
  config?: Json;
  cloneProcessorId?: string;
  jsonSchemaEnabled?: boolean;
}

export interface UpdateProcessorInput {
  name?: string;
  config?: Json;
}

export interface PublishProcessorInput {
  releaseType: ReleaseType;
  description?: string;
  /** Published instead of the draft's config when given. */
  config?: Json;
}

export interface ListProcessorsParams extends PageParams {
  type?: ProcessorType;
  sortBy?: string;
  sortDir?: 'asc' | 'desc';
}

/** Exactly one source: a URL, base64 content, or an uploaded file's id. */
export type RunFileInput =
  | { fileName: string; fileUrl: string }
  | { fileName: string; fileBase64: string }
  | { fileId: string; fileName?: string };

export interface CreateProcessorRunInput {
  processorId: string;
  file?: RunFileInput;
  rawText?: string;
  /** latest (default), draft, or a published number such as 1.0. */
  version?: string;
  /** 1-100, default 50; lower is served first under rate limiting. */
  priority?: number;
  metadata?: Json;
  /** Overrides the processor config for this run. */
  config?: Json;
  sync?: boolean;
}

export interface ListProcessorRunsParams extends PageParams {
  status?: ProcessorRunStatus;
  processorId?: string;
  processorType?: ProcessorType;
  source?: string;
  sourceId?: string;
  /** Runs of one batch (evaluation) run. */
  batchProcessorRunId?: string;
  fileNameContains?: string;
  sortBy?: string;
  sortDir?: 'asc' | 'desc';
}

export interface UploadFileInput {
  name: string;
  data: Blob | Uint8Array | string;
  /** Guessed from the name's extension when absent. */
  contentType?: string;
}

/** Sandbox extension: the real 2025-04-21 service has no public endpoint that starts an evaluation run. */
export interface CreateBatchProcessorRunInput {
  evaluationSetId: string;
  version?: string;
  options?: BatchRunOptions;
  /** 1-100 for every run of the batch; lower is served first. */
  priority?: number;
}

export interface ListBatchProcessorRunsParams extends PageParams {
  processorId?: string;
  sourceId?: string;
  status?: BatchProcessorRunStatus;
}

/** A workflow input file: a URL the service downloads, or an uploaded file. */
export type WorkflowFileInput = { fileName: string; fileUrl: string } | { fileId: string };

export interface WorkflowInput {
  /** Exactly one of file and rawText. */
  file?: WorkflowFileInput;
  rawText?: string;
  /** Returned on the run and in its webhook events. */
  metadata?: Json;
}

export interface CreateWorkflowRunInput {
  workflowId: string;
  /** One run per file and per text. */
  files?: WorkflowFileInput[];
  rawTexts?: string[];
  /** A whole number such as 1 or 2, draft, or latest (default: the latest published version). */
  version?: string | number;
  /** 1-100, default 50; lower is served first. */
  priority?: number;
  /** Set on every created run. */
  metadata?: Json;
}

export interface RunWorkflowsBatchInput {
  workflowId: string;
  version?: string | number;
  priority?: number;
  /** 1 to 1000 inputs. */
  inputs: WorkflowInput[];
}

export interface ListWorkflowRunsParams extends PageParams {
  /** The runs of one batch. */
  batchId?: string;
  workflowId?: string;
  status?: WorkflowRunStatus;
  fileNameContains?: string;
  sortBy?: 'createdAt' | 'updatedAt';
  sortDir?: 'asc' | 'desc';
}

export interface UpdateWorkflowRunInput {
  name?: string;
  /** Merged into the run's metadata; on the same key the new value wins. */
  metadata?: Json;
}

// ---------------------------------------------------------------------------------------------

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  csv: 'text/csv',
  txt: 'text/plain',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  json: 'application/json',
};

export function guessContentType(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 && CONTENT_TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

/**
 * One file as multipart/form-data (RFC 7578) in a single buffer. FormData's streaming encoder
 * (Blob, web streams) costs more CPU than sending a small file; an upload of thousands of small
 * documents is bound by it. The filename is escaped as FormData does (", CR, LF).
 */
export function multipartFile(field: string, fileName: string, contentType: string, data: Uint8Array): { data: Uint8Array; contentType: string } {
  const boundary = `----evalkit-${randomBytes(16).toString('hex')}`;
  const escape = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${escape(field)}"; filename="${escape(fileName)}"\r\nContent-Type: ${contentType}\r\n\r\n`, 'utf8');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  return { data: Buffer.concat([head, data, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The multipart body of POST /files/upload (field `file`), for either API version. */
function uploadBody(input: UploadFileInput): { encoded: { data: Uint8Array; contentType: string } } | { form: FormData } {
  const type = input.contentType ?? guessContentType(input.name);
  if (!(input.data instanceof Blob)) return { encoded: multipartFile('file', input.name, type, typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : input.data) };
  const form = new FormData();
  form.append('file', input.data, input.name);
  return { form };
}

/** The base URL as the client uses it; UsageError (never quoting it) when it cannot be one. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError('the service base URL is not a valid URL', { hint: 'set EVALKIT_BASE_URL (or --base-url) to an http(s) URL such as http://127.0.0.1:8787' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the service base URL must use http or https, not ${url.protocol}`, { hint: 'set EVALKIT_BASE_URL (or --base-url) to an http(s) URL' });
  }
  // Never quoted back: a password in the URL is a secret. fetch refuses such a URL on every
  // attempt, and a query string would end up in the middle of every request's path.
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('the service base URL holds a user name or password', { hint: 'remove them from the URL: the API token goes in EVALKIT_API_TOKEN' });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError('the service base URL has a query string or fragment', { hint: 'set the base URL alone (scheme, host, port and path prefix), such as https://api.example.com/v1' });
  }
  // Rebuilt from its parts: a bare `?` or `#` (an empty query or fragment) is left out too.
  return (url.origin + url.pathname).replace(/\/+$/, '');
}

/**
 * A token that cannot be an HTTP header value (a line break pasted with it, a control character)
 * is a usage error at once, not a network error retried three times. The token is never quoted.
 */
function checkToken(token: string): void {
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.exec(token);
  if (!bad) return;
  const what = bad[0] === '\r' || bad[0] === '\n' ? 'a line break' : bad[0] < ' ' || bad[0] === '\u007f' ? 'a control character' : 'a character outside Latin-1';
  throw new UsageError(`the API token contains ${what} (at character ${bad.index + 1}), which an HTTP header cannot carry`, {
    hint: 'set EVALKIT_API_TOKEN to the token alone, without line breaks (for example `export EVALKIT_API_TOKEN="$(tr -d \'\\r\\n\' < token.txt)"`)',
  });
}

/**
 * A workspace id goes in a header: printable ASCII without spaces, as the config file's schema
 * and --workspace-id check. Anything else (a line break pasted with it) is a usage error at once.
 */
function checkWorkspaceId(id: string): void {
  if (!/^[\x21-\x7e]+$/.test(id)) {
    throw new UsageError('the workspace id is empty or holds a space, a line break or another character that is not printable ASCII', {
      hint: 'set EVALKIT_WORKSPACE_ID (or --workspace-id, or the config file\'s workspaceId) to the id alone',
    });
  }
}

export function createClient(opts: ClientOptions) {
  const apiVersion = opts.apiVersion ?? DEFAULT_API_VERSION;
  if (apiVersion !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(apiVersion)) {
    throw new UsageError(`API version "${apiVersion}" is not a date (YYYY-MM-DD)`, { hint: `pass apiVersion as a release date such as ${DEFAULT_API_VERSION}` });
  }
  const versionHeader = (opts.versionHeader ?? (speaks2026(apiVersion) ? VERSION_HEADER_2026 : DEFAULT_VERSION_HEADER)).toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(versionHeader)) {
    throw new UsageError(`"${versionHeader}" is not a valid HTTP header name`, { hint: 'set EVALKIT_VERSION_HEADER to a header name such as x-service-api-version' });
  }
  if (opts.token !== undefined) checkToken(opts.token);
  if (opts.workspaceId !== undefined) checkWorkspaceId(opts.workspaceId);
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const t: Transport = createTransport({
    baseUrl: normalizeBaseUrl(opts.baseUrl),
    token: opts.token,
    apiVersion,
    versionHeader,
    workspaceId: opts.workspaceId,
    maxRetries: opts.maxRetries ?? 3,
    timeoutMs: opts.timeoutMs ?? 120_000,
    retryBaseMs: opts.retryBaseMs ?? 500,
    retryMaxDelayMs: opts.retryMaxDelayMs ?? 30_000,
    maxRetryAfterMs: opts.maxRetryAfterMs ?? 120_000,
    userAgent: opts.userAgent ?? `evalkit (node ${process.version})`,
    fetch: opts.fetch ?? ((url, init) => fetch(url, init)),
    clock,
    random,
    onRetry: opts.onRetry,
  });
  const request = t.request;

  const processors = {
    /** POST /processors */
    async create(input: CreateProcessorInput, o?: RequestOptions): Promise<Processor> {
      return (await request({ method: 'POST', path: '/processors', body: input, schema: envelopes.processor }, o)).processor;
    },
    /** POST /processors/:id: changes the draft; the answer includes `draftVersion`. Idempotent: sent twice, the draft is the same. */
    async update(id: string, input: UpdateProcessorInput, o?: RequestOptions): Promise<Processor> {
      return (await request({ method: 'POST', path: `/processors/${seg(id, 'processor id')}`, body: input, idempotent: true, schema: envelopes.processor }, o)).processor;
    },
    /** POST /processors/:id/publish */
    async publish(id: string, input: PublishProcessorInput, o?: RequestOptions): Promise<ProcessorVersion> {
      const path = `/processors/${seg(id, 'processor id')}/publish`;
      return (await request({ method: 'POST', path, body: input, schema: envelopes.processorVersionPublished }, o)).processorVersion;
    },
    /** GET /processors (one page). */
    async list(params: ListProcessorsParams = {}, o?: RequestOptions): Promise<Page<Processor>> {
      const r = await request({ method: 'GET', path: '/processors', query: { ...params }, schema: envelopes.processorList }, o);
      return page(r.processors, r.nextPageToken);
    },
    listAll(params: Omit<ListProcessorsParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<Processor, void, undefined> {
      return paginate((nextPageToken) => processors.list({ ...params, nextPageToken }, o), o);
    },
    /** GET /processors/:id/versions: the draft included. */
    async listVersions(id: string, params: PageParams = {}, o?: RequestOptions): Promise<Page<ProcessorVersion>> {
      const path = `/processors/${seg(id, 'processor id')}/versions`;
      const r = await request({ method: 'GET', path, query: { ...params }, schema: envelopes.processorVersionList }, o);
      return page(r.versions, r.nextPageToken);
    },
    /** GET /processors/:processorId/versions/:versionId */
    async getVersion(processorId: string, versionId: string, o?: RequestOptions): Promise<ProcessorVersion> {
      const path = `/processors/${seg(processorId, 'processor id')}/versions/${seg(versionId, 'processor version id')}`;
      return (await request({ method: 'GET', path, schema: envelopes.processorVersion }, o)).version;
    },
  };

  const processorRuns = {
    /** POST /processor_runs: the run starts PROCESSING with output null. */
    async create(input: CreateProcessorRunInput, o?: RequestOptions): Promise<ProcessorRun> {
      return (await request({ method: 'POST', path: '/processor_runs', body: input, schema: envelopes.processorRun }, o)).processorRun;
    },
    /** GET /processor_runs/:id */
    async get(id: string, o?: RequestOptions): Promise<ProcessorRun> {
      return (await request({ method: 'GET', path: `/processor_runs/${seg(id, 'processor run id')}`, schema: envelopes.processorRun }, o)).processorRun;
    },
    /** GET /processor_runs (one page). */
    async list(params: ListProcessorRunsParams = {}, o?: RequestOptions): Promise<Page<ProcessorRun>> {
      const r = await request({ method: 'GET', path: '/processor_runs', query: { ...params }, schema: envelopes.processorRunList }, o);
      return page(r.processorRuns, r.nextPageToken);
    },
    listAll(params: Omit<ListProcessorRunsParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<ProcessorRun, void, undefined> {
      return paginate((nextPageToken) => processorRuns.list({ ...params, nextPageToken }, o), o);
    },
    /**
     * Polls until the run is PROCESSED, FAILED or CANCELLED and returns it (a failed run is
     * returned, not thrown: read `status` and `failureMessage`). Throws ApiError kind 'timeout'
     * when `timeoutMs` (default 10 min) passes first.
     */
    waitFor(id: string, w: WaitOptions<ProcessorRun> & { requestTimeoutMs?: number } = {}): Promise<ProcessorRun> {
      const path = `/processor_runs/${seg(id, 'processor run id')}`;
      return pollUntil(
        {
          get: () => processorRuns.get(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (r) => TERMINAL_RUN_STATUSES.has(r.status),
          describe: (r) => `processor run ${id} is still ${r.status}`,
          method: 'GET', path, clock, random,
        },
        w,
      );
    },
  };

  const batchProcessorRuns = {
    /** GET /batch_processor_runs/:id (also evaluation runs). */
    async get(id: string, o?: RequestOptions): Promise<BatchProcessorRun> {
      const path = `/batch_processor_runs/${seg(id, 'batch processor run id')}`;
      return (await request({ method: 'GET', path, schema: envelopes.batchProcessorRun }, o)).batchProcessorRun;
    },
    /** GET /batch_processor_runs (one page); the sandbox implements it, the spec does not show it. */
    async list(params: ListBatchProcessorRunsParams = {}, o?: RequestOptions): Promise<Page<BatchProcessorRun>> {
      const r = await request({ method: 'GET', path: '/batch_processor_runs', query: { ...params }, schema: envelopes.batchProcessorRunList }, o);
      return page(r.batchProcessorRuns, r.nextPageToken);
    },
    /** POST /batch_processor_runs: a sandbox extension that starts an evaluation run. */
    async create(input: CreateBatchProcessorRunInput, o?: RequestOptions): Promise<BatchProcessorRun> {
      return (await request({ method: 'POST', path: '/batch_processor_runs', body: input, schema: envelopes.batchProcessorRun }, o)).batchProcessorRun;
    },
    /** Polls until PROCESSED or FAILED; same options and timeout error as processorRuns.waitFor. */
    waitFor(id: string, w: WaitOptions<BatchProcessorRun> & { requestTimeoutMs?: number } = {}): Promise<BatchProcessorRun> {
      const path = `/batch_processor_runs/${seg(id, 'batch processor run id')}`;
      return pollUntil(
        {
          get: () => batchProcessorRuns.get(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (r) => r.status === 'PROCESSED' || r.status === 'FAILED',
          describe: (r) => `batch processor run ${id} is still ${r.status}`,
          method: 'GET', path, clock, random,
        },
        w,
      );
    },
  };

  /** Workflow runs (4.1-4.5). */
  const workflowRuns = {
    /** POST /workflow_runs: one run per file and per text, returned at once (PROCESSING). */
    async create(input: CreateWorkflowRunInput, o?: RequestOptions): Promise<WorkflowRun[]> {
      return (await request({ method: 'POST', path: '/workflow_runs', body: input, schema: envelopes.workflowRunCreate }, o)).workflowRuns;
    },
    /** POST /workflow_runs/batch: 1 to 1000 inputs, queued; returns the batch id (list its runs with `batchId`). */
    async batch(input: RunWorkflowsBatchInput, o?: RequestOptions): Promise<string> {
      return (await request({ method: 'POST', path: '/workflow_runs/batch', body: input, schema: envelopes.workflowBatch }, o)).batchId;
    },
    /** GET /workflow_runs (one page), for example all runs of a batch. */
    async list(params: ListWorkflowRunsParams = {}, o?: RequestOptions): Promise<Page<WorkflowRun>> {
      const r = await request({ method: 'GET', path: '/workflow_runs', query: { ...params }, schema: envelopes.workflowRunList }, o);
      return page(r.workflowRuns, r.nextPageToken);
    },
    listAll(params: Omit<ListWorkflowRunsParams, 'nextPageToken'> = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<WorkflowRun, void, undefined> {
      return paginate((nextPageToken) => workflowRuns.list({ ...params, nextPageToken }, o), o);
    },
    /** GET /workflow_runs/:id */
    async get(id: string, o?: RequestOptions): Promise<WorkflowRun> {
      return (await request({ method: 'GET', path: `/workflow_runs/${seg(id, 'workflow run id')}`, schema: envelopes.workflowRun }, o)).workflowRun;
    },
    /** POST /workflow_runs/:id: metadata is merged into the run's (the new value wins on the same key; idempotent). */
    async update(id: string, input: UpdateWorkflowRunInput, o?: RequestOptions): Promise<WorkflowRun> {
      return (await request({ method: 'POST', path: `/workflow_runs/${seg(id, 'workflow run id')}`, body: input, idempotent: true, schema: envelopes.workflowRun }, o)).workflowRun;
    },
    /**
     * Polls until the run's automated processing ended (PROCESSED, FAILED, NEEDS_REVIEW, REJECTED
     * or CANCELLED) and returns it; same options and timeout error as processorRuns.waitFor.
     * For many runs, prefer webhook events or listing the batch.
     */
    waitFor(id: string, w: WaitOptions<WorkflowRun> & { requestTimeoutMs?: number } = {}): Promise<WorkflowRun> {
      const path = `/workflow_runs/${seg(id, 'workflow run id')}`;
      return pollUntil(
        {
          get: () => workflowRuns.get(id, { signal: w.signal, timeoutMs: w.requestTimeoutMs }),
          done: (r) => SETTLED_WORKFLOW_RUN_STATUSES.has(r.status),
          describe: (r) => `workflow run ${id} is still ${r.status}`,
          method: 'GET', path, clock, random,
        },
        w,
      );
    },
  };

  // 2026-02-09 route families (spec section 2), one builder per family for the three kinds.
  const deps = { request, clock, random };
  const extractors = entityRoutes('extractor', deps);
  const classifiers = entityRoutes('classifier', deps);
  const splitters = entityRoutes('splitter', deps);
  const extractRuns = runRoutes('extractor', deps);
  const classifyRuns = runRoutes('classifier', deps);
  const splitRuns = runRoutes('splitter', deps);
  const facade = makeFacade({
    apiVersion, request, clock, random,
    legacy: { processors, processorRuns },
    entities2026: { extractor: extractors, classifier: classifiers, splitter: splitters },
    runs2026: { extractor: extractRuns, classifier: classifyRuns, splitter: splitRuns },
  });

  const setFacade = makeSetFacade({ apiVersion, request, encodeFile: uploadBody });

  return {
    processors,
    processorRuns,
    /** 2026-02-09: GET/POST /extractors, /extractors/{id}, /extractors/{id}/versions... */
    extractors,
    classifiers,
    splitters,
    /** 2026-02-09: /extract_runs (create, retrieve, list, cancel, delete, createBatch), sync /extract. */
    extractRuns,
    classifyRuns,
    splitRuns,
    /** 2026-02-09: GET /batch_runs/{id} (the run batches). */
    batchRuns: batchRunRoutes(deps),
    /** 2026-02-09: POST /evaluation_set_runs, GET /evaluation_set_runs/{id} (create, retrieve, waitFor). */
    evaluationSetRuns: evaluationSetRunRoutes(deps),
    /** Processors of a type by the version in effect: /processors (2025-04-21) or /extractors, /classifiers, /splitters (2026-02-09). */
    entities: facade.entities,
    /** Every processor, or every extractor, classifier and splitter. */
    listEntities: facade.listEntities,
    /** The processor/extractor/classifier/splitter an id names (its type from the id or `type`, else looked up). */
    findEntity: facade.findEntity,
    /** The operations on the object an id names, on the route family of its kind. */
    entityOps: facade.entityOps,
    /** Runs of a type by the version in effect: /processor_runs (2025-04-21) or /extract_runs... (2026-02-09). */
    runs: facade.runs,
    /** Files by the version in effect, in one shape (evaluationSets.ts). */
    files: setFacade.files,
    /** Evaluation sets on a processor (2025-04-21) or an extractor, classifier or splitter (2026-02-09), in one shape. */
    sets: setFacade.sets,
    /** A set's items: /evaluation_set_items (2025-04-21) or /evaluation_sets/{id}/items (2026-02-09), in one shape. */
    items: setFacade.items,
    batchProcessorRuns,
    workflowRuns,
    /** Any other endpoint: the same auth, retries, gate and response parsing. */
    request,
    paginate,
    /** Resolved options, without the token. */
    options: t.options,
  };
}

export type Client = ReturnType<typeof createClient>;

/**
 * A client configured from the environment: EVALKIT_BASE_URL, EVALKIT_API_TOKEN,
 * EVALKIT_API_VERSION, EVALKIT_VERSION_HEADER, EVALKIT_WORKSPACE_ID. `overrides` win over the
 * environment (flags such as --base-url).
 */
export function clientFromEnv(overrides: Partial<ClientOptions> = {}, env: NodeJS.ProcessEnv = process.env): Client {
  const baseUrl = overrides.baseUrl ?? nonEmpty(env.EVALKIT_BASE_URL);
  if (baseUrl === undefined) {
    throw new UsageError('no service base URL', { hint: 'set EVALKIT_BASE_URL (for example http://127.0.0.1:8787 for `evalkit sandbox`) or pass --base-url' });
  }
  const token = overrides.token ?? nonEmpty(env.EVALKIT_API_TOKEN);
  if (token === undefined) {
    throw new UsageError('no API token', { hint: 'set EVALKIT_API_TOKEN to your API token (`evalkit sandbox` prints a dev token at start)' });
  }
  const apiVersion = overrides.apiVersion ?? nonEmpty(env.EVALKIT_API_VERSION);
  if (apiVersion !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(apiVersion)) {
    // Named where it came from: the caller's option wins over the variable.
    const from = overrides.apiVersion !== undefined ? 'the apiVersion option' : 'EVALKIT_API_VERSION';
    throw new UsageError(`${from} "${apiVersion}" is not a date (YYYY-MM-DD)`, {
      hint: overrides.apiVersion !== undefined ? `pass a release date such as ${DEFAULT_API_VERSION}` : `set EVALKIT_API_VERSION to a release date such as ${DEFAULT_API_VERSION}, or unset it`,
    });
  }
  return createClient({
    ...overrides,
    baseUrl,
    token,
    apiVersion,
    versionHeader: overrides.versionHeader ?? nonEmpty(env.EVALKIT_VERSION_HEADER),
    workspaceId: overrides.workspaceId ?? nonEmpty(env.EVALKIT_WORKSPACE_ID),
  });
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}
