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
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { fileTypeOf } from '../files.js';
import { badRequest, checkId, objectBody, optObject, RawJson, type Req } from '../http.js';
import type { Route } from '../router.js';
import { isPlainObject } from '../../util/json.js';
import { normalizeWorkflowVersion } from '../workflows/definitions.js';
import { createWorkflowRuns, listWorkflowRuns, loadWorkflowRun, updateWorkflowRun, type Item, type RunTarget, type Source } from '../workflows/ops.js';
import { WORKFLOW_RUN_STATUSES, workflowRunSummary, workflowRunText } from '../workflows/runs.js';
import { priorityOf } from './processorRuns.js';

/** Spec 4.1 and part 8: 1 to 1000 inputs per batch; the sandbox applies the same cap to POST /workflow_runs. */
export const MAX_BATCH_INPUTS = 1000;

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

/** The workflow, version and priority of a 2025-04-21 body (checked before the inputs). */
function targetOf(body: Json): RunTarget {
  return { workflowId: workflowIdOf(body), workflowAt: 'workflowId', version: versionOf(body), priority: priorityOf(body) };
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
  const runs = await createWorkflowRuns(req, ctx, targetOf(body), items, null);
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
  await createWorkflowRuns(req, ctx, targetOf(body), items, batchId);
  return { success: true, batchId };
}

function get(req: Req, ctx: Ctx): RawJson {
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, loadWorkflowRun(req, ctx).doc, req.layout)}}`);
}

/** The body of a workflow run update (both versions): `name` and/or `metadata`, nothing else. */
export function runUpdateBody(raw: unknown): { name: string | undefined; metadata: Json | undefined } {
  const body = objectBody(raw);
  onlyKeys(body, ['name', 'metadata'], '', 'a workflow run update takes name and metadata');
  const name = body.name;
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > 256)) throw badRequest('name must be a string of at most 256 characters');
  const metadata = optObject(body, 'metadata');
  if ((name === undefined || name === null) && metadata === undefined) throw badRequest('supply name or metadata to update a workflow run');
  return { name: typeof name === 'string' ? name : undefined, metadata };
}

function update(req: Req, ctx: Ctx): RawJson {
  const row = loadWorkflowRun(req, ctx);
  const { name, metadata } = runUpdateBody(req.body);
  // 4.5: merged into the existing metadata; on the same key the new value wins.
  const text = updateWorkflowRun(ctx, row, name, metadata);
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, text, req.layout)}}`);
}

function list(req: Req, ctx: Ctx): RawJson {
  const { rows: items, nextPageToken } = listWorkflowRuns(req, ctx, WORKFLOW_RUN_STATUSES);
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
