/**
 * Workflow runs (spec 4.1-4.5).
 *
 *   POST /workflow_runs        {workflowId, files?: [{fileName, fileUrl} | {fileId}], rawTexts?, version?, priority?, metadata?}
 *                              -> {success, workflowRuns}: one run per file and per text, created at once
 *   POST /workflow_runs/batch  {workflowId, version?, priority?, inputs: [{file | rawText, metadata?}]} (1 to 1000)
 *                              -> {success, batchId}; the runs are queued
 *   GET  /workflow_runs        batchId, workflowId, status, fileNameContains, sortBy, sortDir, paging
 *   GET  /workflow_runs/:id, POST /workflow_runs/:id {name?, metadata?} (metadata merged, new value wins)
 *
 * Order of checks: the body (400), the token's access to the workflow (403), the workflow, its
 * version and the processors of its steps (404), then the files (400 for a bad fileId or a
 * fileUrl that cannot be downloaded). Nothing is stored unless everything passes.
 */
import pLimit from 'p-limit';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { fetchLoopback, fileTypeOf } from '../files.js';
import { withDownloads } from '../downloads.js';
import { badRequest, checkId, notFound, objectBody, optObject, queryEnum, queryId, RawJson, type Req } from '../http.js';
import { assertWorkflowAccess } from '../auth.js';
import { nowIso } from '../ids.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import type { FileRow, WorkflowRunRow, Where } from '../store.js';
import type { RunFile } from '../runs.js';
import { isPlainObject } from '../../util/json.js';
import { loadWorkflow, normalizeWorkflowVersion, resolveSteps, resolveWorkflowVersion } from '../workflows/definitions.js';
import { buildWorkflowRuns, insertWorkflowRuns, WORKFLOW_RUN_STATUSES, workflowRunSummary, workflowRunText, type RunInput } from '../workflows/runs.js';
import { prepareFile, priorityOf } from './processorRuns.js';

/** Spec 4.1 and part 8: 1 to 1000 inputs per batch; the sandbox applies the same cap to POST /workflow_runs. */
export const MAX_BATCH_INPUTS = 1000;
/** Downloads of fileUrl inputs at once. */
const FETCH_CONCURRENCY = 8;
/** Files of one request are held in memory until its transaction: their total is capped at this many request bodies. */
const DOWNLOAD_BUDGET_BODIES = 4;

type Source = { kind: 'text'; text: string } | { kind: 'url'; fileName: string; fileUrl: string } | { kind: 'id'; fileId: string };

interface Item {
  source: Source;
  metadata: Json;
  /** Where the input is in the body, for messages: `inputs[3]`, `files[0]`. */
  at: string;
}

function onlyKeys(o: Json, allowed: readonly string[], at: string, shape: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw badRequest(`${at}${at ? '.' : ''}${k} is not accepted: ${shape}`);
}

function fileSource(v: unknown, at: string): Source {
  const shape = `${at} is {fileName, fileUrl} or {fileId} (upload other files with POST /files/upload and pass fileId)`;
  if (!isPlainObject(v)) throw badRequest(`${at} must be an object: {fileName, fileUrl} or {fileId}`);
  onlyKeys(v, ['fileName', 'fileUrl', 'fileId'], at, shape);
  const has = (k: string): boolean => v[k] !== undefined && v[k] !== null;
  if (has('fileId')) {
    if (has('fileUrl') || has('fileName')) throw badRequest(`${at}: give fileId alone, or fileName with fileUrl`);
    if (typeof v.fileId !== 'string') throw badRequest(`${at}.fileId must be a string`);
    return { kind: 'id', fileId: checkId(v.fileId, `${at}.fileId`) };
  }
  if (!has('fileUrl')) throw badRequest(`${at} needs fileUrl (with fileName) or fileId`);
  if (typeof v.fileUrl !== 'string' || v.fileUrl.trim() === '') throw badRequest(`${at}.fileUrl must be a non-empty string`);
  if (typeof v.fileName !== 'string' || v.fileName.trim() === '') throw badRequest(`${at}.fileName is required with fileUrl`);
  fileTypeOf(v.fileName, `${at}.fileName`);
  return { kind: 'url', fileName: v.fileName, fileUrl: v.fileUrl };
}

function textSource(v: unknown, at: string): Source {
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${at} must be a non-empty string`);
  return { kind: 'text', text: v };
}

function workflowIdOf(body: Json): string {
  const v = body.workflowId;
  if (v === undefined || v === null || v === '') throw badRequest('workflowId is required');
  if (typeof v !== 'string') throw badRequest('workflowId must be a string');
  return checkId(v, 'workflowId');
}

function versionOf(body: Json): unknown {
  const v = body.version;
  if (v !== undefined && v !== null && !normalizeWorkflowVersion(v)) throw badRequest('version must be "draft", "latest" or a whole number such as 1');
  return v ?? undefined;
}

function countRule(n: number, what: string): void {
  if (n < 1) throw badRequest(`${what} must contain at least 1 element`);
  if (n > MAX_BATCH_INPUTS) throw badRequest(`${what} must contain at most ${MAX_BATCH_INPUTS} elements (got ${n}); split the work into several batches`);
}

/** Downloads and parses each distinct fileUrl once; checks fileIds. */
async function materialize(ctx: Ctx, items: Item[], signal: AbortSignal): Promise<{ inputs: Array<{ input: RunInput; metadata: Json }>; files: Array<{ row: FileRow; bytes: Buffer }> }> {
  const limit = pLimit(FETCH_CONCURRENCY);
  const downloads = new Map<string, Promise<{ row: FileRow; bytes: Buffer }>>();
  const budget = DOWNLOAD_BUDGET_BODIES * ctx.maxBodyBytes;
  let downloaded = 0;
  const fileStmt = ctx.store.st('SELECT id, name, type, num_pages, created_at, updated_at FROM files WHERE id = ?');
  const inputs = await Promise.all(
    items.map(async ({ source, metadata, at }): Promise<{ input: RunInput; metadata: Json }> => {
      if (source.kind === 'text') return { input: source, metadata };
      if (source.kind === 'id') {
        const file = fileStmt.get(source.fileId) as RunFile | undefined;
        if (!file) throw badRequest(`${at}.fileId ${source.fileId} does not exist (upload it with POST /files/upload first)`);
        return { input: { kind: 'file', file }, metadata };
      }
      const key = `${source.fileName}\u0000${source.fileUrl}`;
      let p = downloads.get(key);
      if (!p) {
        p = limit(async () => {
          const bytes = await fetchLoopback(source.fileUrl, `${at}.fileUrl`, ctx.maxBodyBytes, undefined, signal);
          downloaded += bytes.length;
          if (downloaded > budget) throw badRequest(`${at}.fileUrl: the files of one request exceed ${budget} bytes together; upload large files with POST /files/upload and pass {fileId}`);
          return { row: await prepareFile(ctx, source.fileName, bytes, `${at}.fileName`), bytes };
        });
        downloads.set(key, p);
      }
      return { input: { kind: 'file', file: (await p).row }, metadata };
    }),
  );
  return { inputs, files: await Promise.all(downloads.values()) };
}

/** Everything after the body's own checks: access, workflow, version, steps, files; then one transaction. */
async function createRuns(req: Req, ctx: Ctx, body: Json, items: Item[], batchId: string | null): Promise<WorkflowRunRow[]> {
  const priority = priorityOf(body);
  const workflow = loadWorkflow(ctx, req, workflowIdOf(body), 'workflowId');
  const version = resolveWorkflowVersion(ctx, workflow, versionOf(body));
  const steps = resolveSteps(ctx, workflow, version);
  if (steps.length === 0) throw badRequest(`workflow ${workflow.id} version ${version.version} has no steps; give it steps with POST /workflows/${workflow.id} {steps}`);
  const { inputs, files } = await withDownloads(req, (signal) => materialize(ctx, items, signal));
  const { runs, steps: first } = buildWorkflowRuns({ ids: ctx.ids, workflow, version, steps, inputs, priority, batchId, now: nowIso(), baseUrl: ctx.baseUrl });
  insertWorkflowRuns(ctx, runs, first, files);
  for (const r of first) ctx.scheduler.enqueue(r.id, priority);
  return runs;
}

async function create(req: Req, ctx: Ctx): Promise<RawJson> {
  const body = objectBody(req.body);
  onlyKeys(body, ['workflowId', 'files', 'rawTexts', 'version', 'priority', 'metadata'], '', 'POST /workflow_runs takes workflowId, files, rawTexts, version, priority and metadata');
  workflowIdOf(body);
  versionOf(body);
  priorityOf(body);
  const metadata = optObject(body, 'metadata') ?? {};
  for (const k of ['files', 'rawTexts']) if (body[k] !== undefined && body[k] !== null && !Array.isArray(body[k])) throw badRequest(`${k} must be an array`);
  const files = (body.files ?? []) as unknown[];
  const texts = (body.rawTexts ?? []) as unknown[];
  if (files.length + texts.length === 0) throw badRequest('files or rawTexts must contain at least 1 element: one workflow run is created per file and per text');
  countRule(files.length + texts.length, 'files and rawTexts together');
  const items: Item[] = [
    ...files.map((f, i) => ({ source: fileSource(f, `files[${i}]`), metadata, at: `files[${i}]` })),
    ...texts.map((t, i) => ({ source: textSource(t, `rawTexts[${i}]`), metadata, at: `rawTexts[${i}]` })),
  ];
  const runs = await createRuns(req, ctx, body, items, null);
  return new RawJson(`{"success":true,"workflowRuns":[${runs.map((r) => workflowRunText(ctx, r.doc, req.layout)).join(',')}]}`);
}

async function batch(req: Req, ctx: Ctx): Promise<Json> {
  const body = objectBody(req.body);
  onlyKeys(body, ['workflowId', 'version', 'priority', 'inputs'], '', 'POST /workflow_runs/batch takes workflowId, version, priority and inputs');
  workflowIdOf(body);
  versionOf(body);
  priorityOf(body);
  const list = body.inputs;
  if (list === undefined || list === null) throw badRequest('inputs is required: an array of 1 to 1000 inputs, each {file} or {rawText} with optional metadata');
  if (!Array.isArray(list)) throw badRequest('inputs must be an array of 1 to 1000 inputs');
  countRule(list.length, 'inputs');
  const items = list.map((input: unknown, i): Item => {
    const at = `inputs[${i}]`;
    if (!isPlainObject(input)) throw badRequest(`${at} must be an object: {file, metadata?} or {rawText, metadata?}`);
    // secrets feed external data validation steps, which the sandbox does not have: accepted, unused.
    onlyKeys(input, ['file', 'rawText', 'metadata', 'secrets'], at, 'an input is {file, metadata?, secrets?} or {rawText, metadata?, secrets?}');
    const hasFile = input.file !== undefined && input.file !== null;
    const hasText = input.rawText !== undefined && input.rawText !== null;
    if (hasFile === hasText) throw badRequest(hasFile ? `${at}: give either file or rawText, not both` : `${at} needs either file or rawText`);
    const metadata = optObject(input, 'metadata', `${at}.`) ?? {};
    return { source: hasFile ? fileSource(input.file, `${at}.file`) : textSource(input.rawText, `${at}.rawText`), metadata, at: hasFile ? `${at}.file` : at };
  });
  const batchId = ctx.ids('batch');
  await createRuns(req, ctx, body, items, batchId);
  return { success: true, batchId };
}

function loadRun(req: Req, ctx: Ctx): WorkflowRunRow {
  const id = checkId(req.params.id, 'workflow run id');
  const row = ctx.store.byId<WorkflowRunRow>('workflow_runs', id);
  if (!row) throw notFound(`workflow run ${id} not found`);
  assertWorkflowAccess(req.token, row.workflow_id);
  return row;
}

function get(req: Req, ctx: Ctx): RawJson {
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, loadRun(req, ctx).doc, req.layout)}}`);
}

function update(req: Req, ctx: Ctx): RawJson {
  const row = loadRun(req, ctx);
  const body = objectBody(req.body);
  onlyKeys(body, ['name', 'metadata'], '', 'a workflow run update takes name and metadata');
  const name = body.name;
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 256)) throw badRequest('name must be a string of at most 256 characters');
  const metadata = optObject(body, 'metadata');
  if ((name === undefined || name === null) && metadata === undefined) throw badRequest('supply name or metadata to update a workflow run');
  const doc = JSON.parse(row.doc) as Json;
  if (typeof name === 'string') doc.name = name;
  // 4.5: merged into the existing metadata; on the same key the new value wins.
  if (metadata) doc.metadata = { ...(doc.metadata as Json | null), ...metadata };
  const now = nowIso();
  doc.updatedAt = now;
  const text = JSON.stringify(doc);
  ctx.store.st('UPDATE workflow_runs SET doc = ?, updated_at = ? WHERE id = ?').run(text, now, row.id);
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, text, req.layout)}}`);
}

function list(req: Req, ctx: Ctx): RawJson {
  const q = req.query;
  const page = pageParams(q, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const batchId = queryId(q, 'batchId');
  if (batchId) where.push(['batch_id = ?', batchId]);
  const workflowId = queryId(q, 'workflowId');
  if (workflowId) where.push(['workflow_id = ?', workflowId]);
  const status = queryEnum(q, 'status', WORKFLOW_RUN_STATUSES);
  if (status) where.push(['status = ?', status]);
  const nameContains = q.get('fileNameContains');
  if (nameContains) where.push(["file_name LIKE ? ESCAPE '\\'", `%${nameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  if (req.token.workflows !== '*') where.push(['workflow_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.workflows])]);
  const rows = ctx.store.list<Pick<WorkflowRunRow, 'seq' | 'doc' | 'created_at' | 'updated_at'>>(
    'workflow_runs',
    { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 },
    'seq, doc, created_at, updated_at',
  );
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => (page.sortCol === 'updated_at' ? r.updated_at : r.created_at));
  const parts = items.map((r) => JSON.stringify(workflowRunSummary(JSON.parse(r.doc) as Json)));
  return new RawJson(`{"success":true,"workflowRuns":[${parts.join(',')}],"nextPageToken":${JSON.stringify(nextPageToken)}}`);
}

export const workflowRunRoutes: Route[] = [
  { method: 'POST', pattern: '/workflow_runs', body: 'json', handler: create },
  { method: 'POST', pattern: '/workflow_runs/batch', body: 'json', handler: batch },
  { method: 'GET', pattern: '/workflow_runs', handler: list },
  { method: 'GET', pattern: '/workflow_runs/:id', handler: get },
  { method: 'POST', pattern: '/workflow_runs/:id', body: 'json', handler: update },
];
