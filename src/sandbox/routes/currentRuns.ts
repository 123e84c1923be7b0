/**
 * Extract, classify and split runs of API version 2026-02-09 (api-2026-02-09.md 2, 2.1, 7): the
 * edge only. Each handler parses its request into the core run operations of runOps.ts (the ones
 * `/processor_runs` calls) and renders with runAnswers.ts, so a run created here is the same row
 * that `/processor_runs/{id}` shows, and the reverse.
 *
 *   POST   /extract_runs | /classify_runs | /split_runs             create (async) -> ExtractRun...
 *   GET    /extract_runs ...                                        list -> {object: "list", data: summaries}
 *   GET    /extract_runs/{id} ...                                   retrieve
 *   DELETE /extract_runs/{id} ...                                   -> {id}
 *   POST   /extract_runs/{id}/cancel ...                            only PROCESSING runs
 *   POST   /extract_runs/batch ...                                  1 to 1,000 inputs -> BatchRun
 *   POST   /extract | /classify | /split                            sync: the run as it ended (5-minute cap)
 *   GET    /batch_runs/{id}                                         BatchRun, from its runs
 */
import pLimit from 'p-limit';
import { assertProcessorAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json, ProcessorType } from '../core.js';
import { currentFromStored, deletedAnswer, legacyConfig, listAnswer } from '../current.js';
import { withDownloads } from '../downloads.js';
import { badRequest, checkId, forbidden, notFound, objectBody, optObject, optString, queryEnum, queryId, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { pageParams } from '../paging.js';
import { acceptCurrentConfig, loadProcessor, normalizeVersionLabel, resolveVersion, withDefaults } from '../resolve.js';
import type { Route } from '../router.js';
import { evaluationBatchRun } from '../evaluationRuns.js';
import { KINDS, kindOfType, withArticle, type Kind } from '../kinds.js';
import { batchRunAnswer, Lookups, runAnswer } from '../runAnswers.js';
import { buildRun, type NewRun } from '../runs.js';
import { cancelRun, deleteRun, listRuns, loadRun, prepareSource, priorityOf, RUN_STATUSES, startRuns, type FileSource } from '../runOps.js';
import type { BatchRow, FileRow, ProcessorRow, RunRow, VersionRow } from '../store.js';
import { isPlainObject } from '../../util/json.js';

/** The sync routes' documented limit (spec 1.6). */
export const SYNC_LIMIT_MS = 5 * 60 * 1000;
/** Run `metadata` is at most 10 KB (spec 2), measured as its JSON text in UTF-8. */
export const MAX_METADATA_BYTES = 10 * 1024;
export const MAX_BATCH_INPUTS = 1000;
/** Files in one extract run `package` (not stated for runs; workflow run packages take at most 50). */
export const MAX_PACKAGE_FILES = 50;

const RUN_COLUMNS = 'seq, id, processor_id, processor_version_id, processor_type, status, doc, job, created_at, updated_at';

// ---------------------------------------------------------------------------------------------
// Request bodies

type Op = 'create' | 'sync' | 'batch';

function members(kind: Kind, op: Op): string[] {
  if (op === 'batch') return [kind.noun, 'inputs', 'priority'];
  const m = [kind.noun, 'config', 'file'];
  if (kind.type === 'EXTRACT') m.push('package');
  if (op === 'create') m.push('priority');
  m.push('metadata');
  return m;
}

/** What a 2025-04-21 `POST /processor_runs` member is called in 2026-02-09. */
function legacyMemberHint(kind: Kind, key: string): string | undefined {
  switch (key) {
    case 'processorId':
      return `${kind.noun}.id`;
    case 'version':
      return `${kind.noun}.version`;
    case 'rawText':
      return kind.type === 'SPLITTER' ? 'file: {url} or file: {id} (split runs do not accept raw text)' : 'file: {text, name?}';
    case 'sync':
      return `the synchronous route POST /${kind.run.sync}`;
    default:
      return undefined;
  }
}

function checkMembers(body: Json, kind: Kind, op: Op, route: string): void {
  const allowed = members(kind, op);
  for (const key of Object.keys(body)) {
    if (allowed.includes(key)) continue;
    const hint = legacyMemberHint(kind, key);
    if (hint) throw badRequest(`${key} is a member of the API version 2025-04-21 body (POST /processor_runs); with 2026-02-09 use ${hint}`);
    if (op === 'batch' && key === 'config') {
      throw badRequest(`a batch runs a stored ${kind.noun}: config is not accepted; pass ${kind.noun}: {id, version?, overrideConfig?}`);
    }
    throw badRequest(`${key} is not a member of ${route}; accepted: ${allowed.join(', ')}`);
  }
}

interface EntityRef {
  id: string;
  version?: string;
  overrideConfig?: Json;
}

function entityRef(v: unknown, kind: Kind): EntityRef {
  const at = kind.noun;
  if (!isPlainObject(v)) throw badRequest(`${at} must be an object: {id, version?, overrideConfig?}`);
  for (const k of Object.keys(v)) {
    if (k !== 'id' && k !== 'version' && k !== 'overrideConfig') throw badRequest(`${at}.${k} is not a member of ${at}; accepted: id, version, overrideConfig`);
  }
  if (typeof v.id !== 'string' || v.id === '') throw badRequest(`${at}.id is required: the id of the ${at} to run`);
  const id = checkId(v.id, `${at}.id`);
  const version = optString(v, 'version', `${at}.`);
  if (version !== undefined && !normalizeVersionLabel(version)) throw badRequest(`${at}.version must be "latest", "draft" or a published version number such as "1.0"`);
  const overrideConfig = optObject(v, 'overrideConfig', `${at}.`);
  return { id, ...(version !== undefined ? { version } : {}), ...(overrideConfig ? { overrideConfig } : {}) };
}

// fileBase64 first: its message is the one that says what to do instead (upload).
const LEGACY_FILE_KEYS = ['fileBase64', 'fileUrl', 'fileName', 'fileId'];

/** `FileFromUrl` | `FileFromId` | `FileFromText` (spec 7) -> a core file source. */
function fileSource(v: unknown, at: string, allowText: boolean): FileSource {
  const shapes = allowText ? '{url, name?}, {id} or {text, name?}' : '{url, name?} or {id}';
  if (!isPlainObject(v)) throw badRequest(`${at} must be an object: ${shapes}`);
  for (const k of LEGACY_FILE_KEYS) {
    if (Object.hasOwn(v, k)) {
      const instead = k === 'fileBase64' ? 'upload the file with POST /files/upload and pass {id}' : `send ${at}: ${shapes}`;
      throw badRequest(`${at}.${k} is the API version 2025-04-21 form of a file; with 2026-02-09 ${instead}`);
    }
  }
  const given = ['url', 'id', 'text'].filter((k) => v[k] !== undefined && v[k] !== null);
  if (given.length !== 1) throw badRequest(`${at} needs exactly one of url, id${allowText ? ', text' : ''} (got ${given.length ? given.join(' and ') : 'none'})`);
  const source = given[0];
  if (source === 'text' && !allowText) {
    throw badRequest(`${at}.text: split runs do not accept raw text; upload the file (POST /files/upload) and pass ${at}: {id}, or pass {url}`);
  }
  const accepted = source === 'id' ? ['id'] : source === 'url' ? ['url', 'name', 'settings'] : ['text', 'name'];
  for (const k of Object.keys(v)) if (!accepted.includes(k)) throw badRequest(`${at}.${k} is not a member of a file given by ${source}; accepted: ${accepted.join(', ')}`);
  const name = optString(v, 'name', `${at}.`);
  if (name !== undefined && name.trim() === '') throw badRequest(`${at}.name must be a non-empty string`);
  if (source === 'id') {
    if (typeof v.id !== 'string') throw badRequest(`${at}.id must be a string`);
    return { kind: 'id', fileId: checkId(v.id, `${at}.id`), what: `${at}.id` };
  }
  if (source === 'text') {
    if (typeof v.text !== 'string' || v.text.trim() === '') throw badRequest(`${at}.text must be a non-empty string`);
    // A text input is stored as a .txt file (spec 2.1); a name without the extension gets it.
    const base = name ?? 'document.txt';
    return { kind: 'textFile', text: v.text, name: /\.txt$/i.test(base) ? base : `${base}.txt`, what: `${at}.name` };
  }
  if (typeof v.url !== 'string' || v.url.trim() === '') throw badRequest(`${at}.url must be a non-empty string`);
  let url: URL;
  try {
    url = new URL(v.url);
  } catch {
    throw badRequest(`${at}.url is not a valid URL`);
  }
  const settings = optObject(v, 'settings', `${at}.`);
  if (settings) {
    for (const k of Object.keys(settings)) if (k !== 'password') throw badRequest(`${at}.settings.${k} is not a member of settings; accepted: password`);
    // Sandbox files have no passwords: accepted (as the type allows) and not used.
    optString(settings, 'password', `${at}.settings.`);
  }
  const fromUrl = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '');
  return { kind: 'url', url: v.url, name: name ?? (fromUrl || 'document'), what: { url: `${at}.url`, name: `${at}.name` } };
}

function packageSources(v: unknown): FileSource[] {
  if (!isPlainObject(v)) throw badRequest('package must be an object: {files: [{url, name?} or {id}, ...]}');
  for (const k of Object.keys(v)) if (k !== 'files') throw badRequest(`package.${k} is not a member of package; accepted: files`);
  const files = v.files;
  if (!Array.isArray(files) || files.length < 1 || files.length > MAX_PACKAGE_FILES) {
    throw badRequest(`package.files must be an array of 1 to ${MAX_PACKAGE_FILES} files (got ${Array.isArray(files) ? files.length : typeof files})`);
  }
  return files.map((f, i) => fileSource(f, `package.files[${i}]`, false));
}

/** `metadata`: an object of at most 10 KB; `extend:usage_tags` an array of strings, cleaned as the service does. */
function metadataOf(v: unknown, at: string): Json {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) throw badRequest(`${at} must be an object`);
  const bytes = Buffer.byteLength(JSON.stringify(v), 'utf8');
  if (bytes > MAX_METADATA_BYTES) throw badRequest(`${at} is ${bytes} bytes of JSON; at most ${MAX_METADATA_BYTES} (10 KB) are accepted`);
  if (!Object.hasOwn(v, 'extend:usage_tags')) return v;
  const tags = v['extend:usage_tags'];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) throw badRequest(`${at}["extend:usage_tags"] must be an array of strings`);
  // Only letters, digits, "-" and "_" stay in a tag (the SDK's RunMetadata doc).
  return { ...v, 'extend:usage_tags': (tags as string[]).map((t) => t.replace(/[^A-Za-z0-9_-]/g, '')) };
}

// ---------------------------------------------------------------------------------------------
// Configs

/** A run without a stored processor (inline `config`, or an extract run with neither). */
function inlineProcessor(type: ProcessorType, now: string): { processor: ProcessorRow; version: VersionRow } {
  return {
    processor: { seq: 0, id: '', name: '', type, draft_version_id: '', created_at: now, updated_at: now },
    version: { seq: 0, id: '', processor_id: '', version: '', ord: 0, description: null, config: '{}', created_at: now, updated_at: now },
  };
}


/** The processor, version and config in effect of a run request. */
function runConfig(ctx: Ctx, req: Req, kind: Kind, ref: EntityRef | undefined, inline: Json | undefined, now: string): { processor: ProcessorRow; version: VersionRow; config: Json } {
  if (ref) {
    const p = loadProcessor(ctx, req, ref.id, kind.noun);
    if (p.type !== kind.type) {
      const other = kindOfType(p.type);
      throw notFound(`${kind.noun} ${p.id} not found: ${p.id} is ${withArticle(other?.noun ?? p.type)}${other ? `; run it with POST /${other.run.route}` : ''}`);
    }
    const version = resolveVersion(ctx, p, ref.version, `${kind.noun}.version`, kind.noun);
    const stored = JSON.parse(version.config) as Json;
    if (!ref.overrideConfig) return { processor: p, version, config: stored };
    if (Array.isArray(legacyConfig(stored).fields)) {
      throw badRequest(`${kind.noun} ${p.id} version ${version.version} has a fields-form config, which has no 2026-02-09 layout to override; run it without overrideConfig, or send a full config instead of ${kind.noun}`);
    }
    // Member-wise: each top-level member given replaces the stored one; the others are kept.
    const base = currentFromStored(ctx, stored, kind.type);
    return { processor: p, version, config: acceptCurrentConfig(ctx, ref.overrideConfig, kind.type, `/${kind.noun}/overrideConfig`, base) };
  }
  // A token limited to some processors may not run configs of its own.
  if (req.token.processors !== '*') throw forbidden(`this API token may only run its processors; pass ${kind.noun}: {id}`);
  const { processor, version } = inlineProcessor(kind.type, now);
  if (inline) return { processor, version, config: acceptCurrentConfig(ctx, inline, kind.type, '/config') };
  // An extract run with neither: the service infers a schema from the document; the sandbox
  // cannot, and runs an empty schema (the output is {value: {}, metadata: {}}).
  return { processor, version, config: withDefaults({}, kind.type) };
}

// ---------------------------------------------------------------------------------------------
// Handlers

async function create(req: Req, ctx: Ctx, kind: Kind, sync: boolean): Promise<Json> {
  const route = sync ? `POST /${kind.run.sync}` : `POST /${kind.run.route}`;
  const body = objectBody(req.body);
  checkMembers(body, kind, sync ? 'sync' : 'create', route);
  const has = (k: string): boolean => body[k] !== undefined && body[k] !== null;
  if (has(kind.noun) && has('config')) {
    throw badRequest(`give either ${kind.noun} (a stored ${kind.noun}, with overrideConfig for changes) or config (an inline config), not both`);
  }
  const ref = has(kind.noun) ? entityRef(body[kind.noun], kind) : undefined;
  const inline = optObject(body, 'config');
  if (!ref && !inline && kind.type !== 'EXTRACT') throw badRequest(`${kind.noun} or config is required`);
  let sources: FileSource[];
  if (kind.type === 'EXTRACT' && has('file') && has('package')) throw badRequest('give either file or package, not both');
  if (has('package')) sources = packageSources(body.package);
  else if (has('file')) sources = [fileSource(body.file, 'file', kind.type !== 'SPLITTER')];
  else throw badRequest(kind.type === 'EXTRACT' ? 'file or package is required' : 'file is required');
  const priority = sync ? 50 : priorityOf(body);
  const metadata = metadataOf(body.metadata, 'metadata');
  const now = nowIso();
  const { processor, version, config } = runConfig(ctx, req, kind, ref, inline, now);
  const prepared = await withDownloads(req, async (signal) => {
    const out = [];
    for (const s of sources) out.push(await prepareSource(ctx, s, signal));
    return out;
  });
  const input: NewRun['input'] = has('package') ? { kind: 'package', files: prepared.map((p) => p.row) } : { kind: 'file', file: prepared[0].row };
  const row = buildRun({ id: ctx.ids(kind.run.id), processor, version, config, priority, metadata, source: 'API', sourceId: null, batchId: null, itemId: null, now, input });
  const fresh = prepared.filter((p): p is { row: FileRow; bytes: Buffer } => p.bytes !== undefined) as Array<{ row: FileRow; bytes: Buffer }>;
  // A sync request answers the run as it stands after the cap (still PROCESSING): see docs.
  const stored = await startRuns(ctx, [row], fresh, sync ? (ctx.syncTimeoutMs ?? SYNC_LIMIT_MS) : undefined);
  return runAnswer(ctx, stored, true);
}

async function createBatch(req: Req, ctx: Ctx, kind: Kind): Promise<Json> {
  const body = objectBody(req.body);
  checkMembers(body, kind, 'batch', `POST /${kind.run.route}/batch`);
  if (body[kind.noun] === undefined || body[kind.noun] === null) throw badRequest(`${kind.noun} is required: a batch runs a stored ${kind.noun}`);
  const ref = entityRef(body[kind.noun], kind);
  const inputs = body.inputs;
  if (!Array.isArray(inputs) || inputs.length < 1 || inputs.length > MAX_BATCH_INPUTS) {
    throw badRequest(`inputs must be an array of 1 to 1,000 items (got ${Array.isArray(inputs) ? inputs.length : typeof inputs})`);
  }
  const items = inputs.map((item, i) => {
    const at = `inputs[${i}]`;
    if (!isPlainObject(item)) throw badRequest(`${at} must be an object: {file, metadata?}`);
    for (const k of Object.keys(item)) if (k !== 'file' && k !== 'metadata') throw badRequest(`${at}.${k} is not a member of an input; accepted: file, metadata`);
    if (item.file === undefined || item.file === null) throw badRequest(`${at}.file is required`);
    return { source: fileSource(item.file, `${at}.file`, kind.type !== 'SPLITTER'), metadata: metadataOf(item.metadata, `${at}.metadata`) };
  });
  const priority = priorityOf(body);
  const now = nowIso();
  const { processor, version, config } = runConfig(ctx, req, kind, ref, undefined, now);
  const limit = pLimit(8);
  const prepared = await withDownloads(req, (signal) => Promise.all(items.map((it) => limit(() => prepareSource(ctx, it.source, signal)))));
  const batchId = ctx.ids('batchRun');
  const runs = items.map((it, i) =>
    buildRun({
      id: ctx.ids(kind.run.id), processor, version, config, priority, metadata: it.metadata, source: 'API', sourceId: null, batchId, itemId: null, now,
      input: { kind: 'file', file: prepared[i].row },
    }),
  );
  await startRuns(ctx, runs, prepared.filter((p) => p.bytes !== undefined) as Array<{ row: FileRow; bytes: Buffer }>);
  return batchRunAnswer(batchId, [{ status: 'PROCESSING', n: runs.length, created: now }]);
}

/** A run of this route's type; another type's run is a 404 that names its route. */
function loadKindRun(ctx: Ctx, req: Req, kind: Kind): RunRow {
  const row = loadRun(ctx, req, req.params.id, kind.run.noun);
  if (row.processor_type !== kind.type) {
    const other = kindOfType(row.processor_type);
    throw notFound(`${kind.run.noun} ${row.id} not found: it is ${withArticle(other?.run.noun ?? row.processor_type)}${other ? `; use /${other.run.route}/${row.id}` : ''}`);
  }
  return row;
}

const LEGACY_QUERY: Record<string, (k: Kind) => string> = {
  processorId: (k) => k.parentKey,
  processorType: () => 'nothing (the route fixes the type)',
  batchProcessorRunId: () => 'batchId',
};

function list(req: Req, ctx: Ctx, kind: Kind): Json {
  const q = req.query;
  for (const [name, instead] of Object.entries(LEGACY_QUERY)) {
    if (q.has(name)) throw badRequest(`query parameter ${name} is of API version 2025-04-21 (GET /processor_runs); with 2026-02-09 use ${instead(kind)}`);
  }
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const { rows, nextPageToken } = listRuns<RunRow>(ctx, req, {
    status: queryEnum(q, 'status', RUN_STATUSES),
    processorId: queryId(q, kind.parentKey),
    processorType: kind.type,
    source: q.get('source') || undefined,
    sourceId: queryId(q, 'sourceId'),
    batchId: queryId(q, 'batchId'),
    fileNameContains: q.get('fileNameContains') || undefined,
  }, page, RUN_COLUMNS);
  const look = new Lookups(ctx);
  return { ...listAnswer(rows.map((r) => runAnswer(ctx, r, false, look)), nextPageToken) };
}

function retrieve(req: Req, ctx: Ctx, kind: Kind): Json {
  return runAnswer(ctx, loadKindRun(ctx, req, kind), true);
}

function remove(req: Req, ctx: Ctx, kind: Kind): Json {
  const row = loadKindRun(ctx, req, kind);
  deleteRun(ctx, row, kind.run.noun, `/${kind.run.route}/${row.id}/cancel`);
  return { ...deletedAnswer(row.id) };
}

function cancel(req: Req, ctx: Ctx, kind: Kind): Json {
  const row = loadKindRun(ctx, req, kind);
  cancelRun(ctx, row, kind.run.noun);
  return runAnswer(ctx, ctx.store.byId<RunRow>('processor_runs', row.id) as RunRow, true);
}

function getBatchRun(req: Req, ctx: Ctx): Json {
  const id = checkId(req.params.id, 'batch run id');
  // Run batches have no row of their own: their runs carry the batch id (source API; the runs of
  // evaluations carry theirs with source EVAL_SET, and the evaluation has its record).
  const counts = ctx.store
    .st("SELECT processor_id, status, count(*) AS n, min(created_at) AS created FROM processor_runs WHERE batch_id = ? AND source = 'API' GROUP BY processor_id, status")
    .all(id) as Array<{ processor_id: string; status: string; n: number; created: string }>;
  if (!counts.length) {
    // An evaluation (its runs carry source EVAL_SET) is a batch run too: the same bpr_ id, its own record.
    const evaluation = ctx.store.byId<BatchRow>('batch_processor_runs', id);
    if (!evaluation) throw notFound(`batch run ${id} not found`);
    assertProcessorAccess(req.token, evaluation.processor_id);
    return evaluationBatchRun(evaluation);
  }
  for (const c of counts) assertProcessorAccess(req.token, c.processor_id);
  return batchRunAnswer(id, counts);
}

function routesOf(kind: Kind): Route[] {
  const base = `/${kind.run.route}`;
  return [
    { method: 'POST', pattern: base, versions: 'current', body: 'json', handler: (req, ctx) => create(req, ctx, kind, false) },
    { method: 'GET', pattern: base, versions: 'current', handler: (req, ctx) => list(req, ctx, kind) },
    { method: 'POST', pattern: `${base}/batch`, versions: 'current', body: 'json', handler: (req, ctx) => createBatch(req, ctx, kind) },
    { method: 'GET', pattern: `${base}/:id`, versions: 'current', handler: (req, ctx) => retrieve(req, ctx, kind) },
    { method: 'DELETE', pattern: `${base}/:id`, versions: 'current', handler: (req, ctx) => remove(req, ctx, kind) },
    { method: 'POST', pattern: `${base}/:id/cancel`, versions: 'current', body: 'json', handler: (req, ctx) => cancel(req, ctx, kind) },
    { method: 'POST', pattern: `/${kind.run.sync}`, versions: 'current', body: 'json', handler: (req, ctx) => create(req, ctx, kind, true) },
  ];
}

export const currentRunRoutes: Route[] = [
  ...routesOf(KINDS.EXTRACT),
  ...routesOf(KINDS.CLASSIFY),
  ...routesOf(KINDS.SPLITTER),
  { method: 'GET', pattern: '/batch_runs/:id', versions: 'current', handler: getBatchRun },
];
