/**
 * Workflows, workflow versions and workflow runs for API 2026-02-09 (api-2026-02-09.md section 2:
 * `workflows`, `workflowVersions`, `workflowRuns`). Each handler parses the 2026-02-09 request,
 * calls the core operation the 2025-04-21 routes call (workflows/definitions.ts, workflows/ops.ts)
 * and renders with workflows/current.ts.
 *
 *   GET/POST /workflows, GET/POST /workflows/{id}
 *   GET/POST /workflows/{id}/versions, GET /workflows/{id}/versions/{versionId}
 *   GET/POST /workflow_runs, POST /workflow_runs/batch, GET/POST/DELETE /workflow_runs/{id}, POST /workflow_runs/{id}/cancel
 */
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { deletedAnswer, listAnswer } from '../current.js';
import { fileTypeOf } from '../files.js';
import { badRequest, checkId, objectBody, optObject, type Req } from '../http.js';
import { setMeta } from '../meta.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import type { WorkflowStep } from '../settings.js';
import type { WorkflowRow, WorkflowVersionRow } from '../store.js';
import { isPlainObject } from '../../util/json.js';
import { listWorkflows, loadWorkflow, normalizeWorkflowVersion, publishWorkflow, saveWorkflow, updateDraft } from '../workflows/definitions.js';
import {
  RunRenderCache, stepsFromCurrent, versionByRef, versionCurrent, WORKFLOW_RUN_STATUSES_2026, workflowCurrent, workflowRunCurrent, workflowRunSummaryCurrent, workflowSummaryCurrent,
} from '../workflows/current.js';
import { cancelWorkflowRun, createWorkflowRuns, deleteWorkflowRun, listWorkflowRuns, loadWorkflowRun, updateWorkflowRun, type Item, type RunTarget, type Source } from '../workflows/ops.js';
import { workflowVersionId } from '../workflows/runs.js';
import { MAX_BATCH_INPUTS, runUpdateBody } from './workflowRuns.js';
import { priorityOf } from './processorRuns.js';

/** Spec 2: a workflow run takes one `file` or a `package` of 2 to 50 files. */
export const PACKAGE_MIN = 2;
export const PACKAGE_MAX = 50;

function onlyKeys(o: Json, allowed: readonly string[], at: string, shape: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw badRequest(`${at}${at ? '.' : ''}${k} is not accepted: ${shape}`);
}

function nameOf(body: Json, required: boolean): string | undefined {
  const v = body.name;
  if (v === undefined || v === null) {
    if (required) throw badRequest('name is required: a non-empty string of at most 256 characters');
    return undefined;
  }
  if (typeof v !== 'string' || v.trim() === '' || v.length > 256) throw badRequest('name must be a non-empty string of at most 256 characters');
  return v.trim();
}

/** The body of a workflow or a workflow version, `{name?, steps?}`: what each of the three routes takes, parsed one way. */
function definitionOf(ctx: Ctx, raw: unknown, shape: string, nameRequired: boolean): { name?: string; steps?: WorkflowStep[] } {
  const body = objectBody(raw);
  onlyKeys(body, ['name', 'steps'], '', shape);
  const name = nameOf(body, nameRequired);
  const steps = body.steps === undefined || body.steps === null ? undefined : stepsFromCurrent(ctx, body.steps);
  return { name, steps };
}

function reload(ctx: Ctx, id: string): WorkflowRow {
  return ctx.store.byId<WorkflowRow>('workflows', id) as WorkflowRow;
}

// ---------------------------------------------------------------------------------------------
// Workflows

function listWorkflowsRoute(req: Req, ctx: Ctx): Json {
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const { rows, nextPageToken } = listWorkflows(ctx, req, page);
  return { ...listAnswer(rows.map((w) => workflowSummaryCurrent(ctx, w)), nextPageToken) };
}

function createWorkflow(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'creating a workflow');
  const def = definitionOf(ctx, req.body, 'a workflow is {name, steps?}', true);
  const name = def.name as string;
  const steps = def.steps ?? [];
  const id = ctx.ids('workflow');
  ctx.store.tx(() => {
    saveWorkflow(ctx.store, { id, name, versions: [{ version: 'draft', steps }] }, 'api', false);
    setMeta(ctx, id, { createdBy: req.token });
  });
  ctx.events.emit({ type: 'workflow.created', workflowId: id });
  return workflowCurrent(ctx, reload(ctx, id));
}

function getWorkflow(req: Req, ctx: Ctx): Json {
  return workflowCurrent(ctx, loadWorkflow(ctx, req, req.params.id));
}

function updateWorkflow(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'changing a workflow');
  const wf = loadWorkflow(ctx, req, req.params.id);
  const { name, steps } = definitionOf(ctx, req.body, 'a workflow update takes name and steps', false);
  if (name === undefined && steps === undefined) throw badRequest('supply name or steps to update a workflow');
  updateDraft(ctx, wf, name, steps);
  return workflowCurrent(ctx, reload(ctx, wf.id));
}

// ---------------------------------------------------------------------------------------------
// Versions

/** Newest first with the draft first (reference.md), or the reverse with sortDir=asc. */
function listVersions(req: Req, ctx: Ctx): Json {
  const wf = loadWorkflow(ctx, req, req.params.id);
  if (req.query.has('sortBy')) throw badRequest('sortBy is not accepted on version lists: they are ordered by version; use sortDir');
  const page = pageParams(req, ctx.secret, { version: 'ord' }, 'version', 'desc');
  const cmp = page.dir === 'desc' ? '<' : '>';
  const after = page.after ? ` AND (ord ${cmp} ? OR (ord = ? AND seq ${cmp} ?))` : '';
  const values: unknown[] = [wf.id];
  if (page.after) values.push(page.after.value, page.after.value, page.after.seq);
  const rows = ctx.store
    .st(`SELECT * FROM workflow_versions WHERE workflow_id = ?${after} ORDER BY ord ${page.dir}, seq ${page.dir} LIMIT ${page.limit + 1}`)
    .all(...values) as WorkflowVersionRow[];
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r.ord);
  return { ...listAnswer(items.map((v) => versionCurrent(ctx, wf, v)), nextPageToken) };
}

/** Publishes the draft (or `steps`) as the next version, with its `name`. */
function createVersion(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'publishing a workflow');
  const wf = loadWorkflow(ctx, req, req.params.id);
  const { name, steps } = definitionOf(ctx, req.body, 'a workflow version is {name?, steps?} (default: the draft\'s steps)', false);
  const draft = ctx.store.st("SELECT steps FROM workflow_versions WHERE workflow_id = ? AND version = 'draft'").get(wf.id) as { steps: string } | undefined;
  if (!steps?.length && (!draft || (JSON.parse(draft.steps) as unknown[]).length === 0)) {
    throw badRequest(`workflow ${wf.id} has no steps in its draft; create the version with {steps} or give the draft steps first (POST /workflows/${wf.id} {steps})`);
  }
  const v = ctx.store.tx(() => {
    const row = publishWorkflow(ctx, wf, steps?.length ? steps : undefined);
    setMeta(ctx, workflowVersionId(wf.id, row.version), { createdBy: req.token, name: name ?? null });
    return row;
  });
  ctx.events.emit({ type: 'workflow.deployed', workflowId: wf.id });
  return versionCurrent(ctx, reload(ctx, wf.id), v);
}

function getVersion(req: Req, ctx: Ctx): Json {
  const wf = loadWorkflow(ctx, req, req.params.id);
  return versionCurrent(ctx, wf, versionByRef(ctx, wf, checkId(req.params.versionId, 'workflow version id')));
}

// ---------------------------------------------------------------------------------------------
// Runs

/** `WorkflowReference {id, version?}` and the priority. */
function targetOf(body: Json): RunTarget {
  const w = body.workflow;
  if (w === undefined || w === null) throw badRequest('workflow is required: {id, version?}');
  if (!isPlainObject(w)) throw badRequest('workflow must be an object: {id, version?}');
  onlyKeys(w, ['id', 'version'], 'workflow', 'a workflow reference is {id, version?}');
  if (typeof w.id !== 'string' || w.id === '') throw badRequest('workflow.id is required: the workflow to run (workflow_...)');
  const version = w.version ?? undefined;
  if (version !== undefined && !normalizeWorkflowVersion(version)) throw badRequest('workflow.version must be "draft", "latest" or a whole number such as "1"');
  return { workflowId: checkId(w.id, 'workflow.id'), workflowAt: 'workflow.id', version, priority: priorityOf(body) };
}

/** The last path segment of a URL, for a file given by `url` without `name`. */
function nameFromUrl(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : '';
  } catch {
    return '';
  }
}

/** `FileFromUrl {url, name?, settings?}`, `FileFromId {id}` or (when `text` is allowed) `FileFromText {text, name?}`. */
function fileOf(v: unknown, at: string, text: boolean): Source {
  const shapes = text ? '{url, name?}, {id} or {text, name?}' : '{url, name?} or {id}';
  if (!isPlainObject(v)) throw badRequest(`${at} must be an object: ${shapes}`);
  const has = (k: string): boolean => v[k] !== undefined && v[k] !== null;
  const given = ['url', 'id', 'text'].filter(has);
  if (given.length !== 1 || (!text && given[0] === 'text')) throw badRequest(`${at} is ${shapes}: give exactly one of ${text ? 'url, id and text' : 'url and id'}`);
  const kind = given[0];
  if (kind === 'id') {
    onlyKeys(v, ['id'], at, `${at} is {id}`);
    if (typeof v.id !== 'string') throw badRequest(`${at}.id must be a string (file_...)`);
    return { kind: 'id', fileId: checkId(v.id, `${at}.id`) };
  }
  if (kind === 'text') {
    onlyKeys(v, ['text', 'name'], at, `${at} is {text, name?}`);
    if (typeof v.text !== 'string' || v.text.trim() === '') throw badRequest(`${at}.text must be a non-empty string`);
    return { kind: 'text', text: v.text };
  }
  // settings.password opens protected PDFs, which the sandbox does not produce: accepted, unused.
  onlyKeys(v, ['url', 'name', 'settings'], at, `${at} is {url, name?, settings?}`);
  if (typeof v.url !== 'string' || v.url.trim() === '') throw badRequest(`${at}.url must be a non-empty string`);
  if (v.name !== undefined && v.name !== null && (typeof v.name !== 'string' || v.name.trim() === '')) throw badRequest(`${at}.name must be a non-empty string`);
  const name = typeof v.name === 'string' ? v.name : nameFromUrl(v.url);
  if (!name) throw badRequest(`${at}.name is required when the url does not end in a file name`);
  fileTypeOf(name, `${at}.name`);
  return { kind: 'url', fileName: name, fileUrl: v.url };
}

function metadataOf(o: Json, prefix = ''): Json {
  return optObject(o, 'metadata', prefix) ?? {};
}

/** `secrets` feed external data validation steps, which the sandbox does not have: checked, unused, never stored. */
function checkSecrets(o: Json, prefix = ''): void {
  optObject(o, 'secrets', prefix);
}

async function createRun(req: Req, ctx: Ctx): Promise<Json> {
  const body = objectBody(req.body);
  onlyKeys(body, ['workflow', 'file', 'package', 'outputs', 'priority', 'metadata', 'secrets'], '', 'POST /workflow_runs takes workflow, file, package, outputs, priority, metadata and secrets');
  const target = targetOf(body);
  const metadata = metadataOf(body);
  checkSecrets(body);
  if (body.outputs !== undefined && body.outputs !== null) {
    if (!Array.isArray(body.outputs)) throw badRequest('outputs must be an array of {processorId, output}');
    if (body.outputs.length) throw badRequest('outputs (outputs given for steps in advance) are not emulated by the sandbox: every step runs; leave outputs out');
  }
  const hasFile = body.file !== undefined && body.file !== null;
  const hasPackage = body.package !== undefined && body.package !== null;
  if (hasFile === hasPackage) throw badRequest(hasFile ? 'give either file or package, not both' : 'file or package is required: one file ({url, name?}, {id} or {text, name?}) or a package of 2 to 50 files');
  let items: Item[];
  if (hasFile) items = [{ source: fileOf(body.file, 'file', true), metadata, at: 'file' }];
  else {
    const pkg = body.package;
    if (!isPlainObject(pkg)) throw badRequest('package must be an object: {files: [...]}');
    onlyKeys(pkg, ['files'], 'package', 'a package is {files}');
    const files = pkg.files;
    if (!Array.isArray(files)) throw badRequest(`package.files must be an array of ${PACKAGE_MIN} to ${PACKAGE_MAX} files`);
    if (files.length < PACKAGE_MIN || files.length > PACKAGE_MAX) throw badRequest(`package.files must contain ${PACKAGE_MIN} to ${PACKAGE_MAX} files (got ${files.length}); a single file goes in file`);
    items = files.map((f: unknown, i) => ({ source: fileOf(f, `package.files[${i}]`, false), metadata, at: `package.files[${i}]` }));
    // Duplicate ids and duplicate URLs are refused (WorkflowRunPackage.files); an id and a URL never count as duplicates.
    const seen = new Map<string, string>();
    for (const { source, at } of items) {
      const key = source.kind === 'id' ? `id ${source.fileId}` : source.kind === 'url' ? `url ${source.fileUrl}` : undefined;
      if (key === undefined) continue;
      const first = seen.get(key);
      if (first !== undefined) throw badRequest(`${at} repeats ${first} (the same ${key.split(' ')[0]}); each file of a package may appear only once`);
      seen.set(key, at);
    }
  }
  const [run] = await createWorkflowRuns(req, ctx, target, items, null, hasPackage);
  return workflowRunCurrent(ctx, run);
}

async function createBatch(req: Req, ctx: Ctx): Promise<Json> {
  const body = objectBody(req.body);
  onlyKeys(body, ['workflow', 'inputs', 'priority'], '', 'POST /workflow_runs/batch takes workflow, inputs and priority');
  const target = targetOf(body);
  const list = body.inputs;
  if (list === undefined || list === null) throw badRequest(`inputs is required: an array of 1 to ${MAX_BATCH_INPUTS} inputs {file, metadata?, secrets?}`);
  if (!Array.isArray(list)) throw badRequest(`inputs must be an array of 1 to ${MAX_BATCH_INPUTS} inputs`);
  if (list.length < 1) throw badRequest('inputs must contain at least 1 element');
  if (list.length > MAX_BATCH_INPUTS) throw badRequest(`inputs must contain at most ${MAX_BATCH_INPUTS} elements (got ${list.length}); split the work into several batches`);
  const items = list.map((input: unknown, i): Item => {
    const at = `inputs[${i}]`;
    if (!isPlainObject(input)) throw badRequest(`${at} must be an object: {file, metadata?, secrets?}`);
    onlyKeys(input, ['file', 'metadata', 'secrets'], at, 'an input is {file, metadata?, secrets?}');
    if (input.file === undefined || input.file === null) throw badRequest(`${at}.file is required: {url, name?}, {id} or {text, name?}`);
    checkSecrets(input, `${at}.`);
    return { source: fileOf(input.file, `${at}.file`, true), metadata: metadataOf(input, `${at}.`), at: `${at}.file` };
  });
  const batchId = ctx.ids('batch');
  await createWorkflowRuns(req, ctx, target, items, batchId);
  return { batchId };
}

function listRuns(req: Req, ctx: Ctx): Json {
  const { rows, nextPageToken } = listWorkflowRuns(req, ctx, WORKFLOW_RUN_STATUSES_2026);
  const cache = new RunRenderCache(ctx);
  return { ...listAnswer(rows.map((r) => workflowRunSummaryCurrent(ctx, JSON.parse(r.doc) as Json, cache)), nextPageToken) };
}

function getRun(req: Req, ctx: Ctx): Promise<Json> {
  return workflowRunCurrent(ctx, loadWorkflowRun(req, ctx));
}

function updateRun(req: Req, ctx: Ctx): Promise<Json> {
  const row = loadWorkflowRun(req, ctx);
  const { name, metadata } = runUpdateBody(req.body);
  updateWorkflowRun(ctx, row, name, metadata);
  return workflowRunCurrent(ctx, loadWorkflowRun(req, ctx));
}

function deleteRun(req: Req, ctx: Ctx): Json {
  const row = loadWorkflowRun(req, ctx);
  deleteWorkflowRun(ctx, row);
  return deletedAnswer(row.id);
}

function cancelRun(req: Req, ctx: Ctx): Promise<Json> {
  cancelWorkflowRun(ctx, loadWorkflowRun(req, ctx));
  return workflowRunCurrent(ctx, loadWorkflowRun(req, ctx));
}

const current = { versions: 'current' } as const;

export const workflowCurrentRoutes: Route[] = [
  { ...current, method: 'GET', pattern: '/workflows', handler: listWorkflowsRoute },
  { ...current, method: 'POST', pattern: '/workflows', body: 'json', handler: createWorkflow },
  { ...current, method: 'GET', pattern: '/workflows/:id', handler: getWorkflow },
  { ...current, method: 'POST', pattern: '/workflows/:id', body: 'json', handler: updateWorkflow },
  { ...current, method: 'GET', pattern: '/workflows/:id/versions', handler: listVersions },
  { ...current, method: 'POST', pattern: '/workflows/:id/versions', body: 'json', handler: createVersion },
  { ...current, method: 'GET', pattern: '/workflows/:id/versions/:versionId', handler: getVersion },
  { ...current, method: 'GET', pattern: '/workflow_runs', handler: listRuns },
  { ...current, method: 'POST', pattern: '/workflow_runs', body: 'json', handler: createRun },
  { ...current, method: 'POST', pattern: '/workflow_runs/batch', body: 'json', handler: createBatch },
  { ...current, method: 'GET', pattern: '/workflow_runs/:id', handler: getRun },
  { ...current, method: 'POST', pattern: '/workflow_runs/:id', body: 'json', handler: updateRun },
  { ...current, method: 'DELETE', pattern: '/workflow_runs/:id', handler: deleteRun },
  { ...current, method: 'POST', pattern: '/workflow_runs/:id/cancel', body: 'json', handler: cancelRun },
];
