/**
 * Workflow run operations shared by the routes of every API version: the 2025-04-21 routes
 * (routes/workflowRuns.ts, routes/lifecycle.ts) and the 2026-02-09 ones (routes/workflowsCurrent.ts)
 * parse their request into these and render the result in their own shapes.
 */
import pLimit from 'p-limit';
import { assertWorkflowAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { withDownloads } from '../downloads.js';
import { fetchLoopback } from '../files.js';
import { badRequest, checkId, notFound, queryEnum, queryId, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { pageOf, pageParams } from '../paging.js';
import type { RunFile } from '../runs.js';
import type { FileRow, RunRow, WorkflowRunRow, Where } from '../store.js';
import { prepareFile } from '../routes/processorRuns.js';
import { cancelRunRow } from '../runOps.js';
import { loadWorkflow, resolveSteps, resolveWorkflowVersion } from './definitions.js';
import { buildWorkflowRuns, insertWorkflowRuns, WORKFLOW_SOURCE, type RunInput } from './runs.js';

/** Downloads of fileUrl inputs at once. */
const FETCH_CONCURRENCY = 8;
/** Files of one request are held in memory until its transaction: their total is capped at this many request bodies. */
const DOWNLOAD_BUDGET_BODIES = 4;

export type Source = { kind: 'text'; text: string } | { kind: 'url'; fileName: string; fileUrl: string } | { kind: 'id'; fileId: string };

export interface Item {
  source: Source;
  metadata: Json;
  /** Where the input is in the body, for messages: `inputs[3]`, `files[0]`. */
  at: string;
}

/** What a creation names, parsed by the route: the workflow, its version reference, the priority. */
export interface RunTarget {
  workflowId: string;
  /** Where the workflow id was in the body, for messages (`workflowId`, `workflow.id`). */
  workflowAt: string;
  version: unknown;
  priority: number;
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

/**
 * Everything after the body's own checks: access, workflow, version, steps, files; then one
 * transaction. One run per item; with `asPackage` (a 2026-02-09 package of files) one run for all
 * the items, each of its steps run on the whole package (runs.ts).
 */
export async function createWorkflowRuns(req: Req, ctx: Ctx, target: RunTarget, items: Item[], batchId: string | null, asPackage = false): Promise<WorkflowRunRow[]> {
  const workflow = loadWorkflow(ctx, req, target.workflowId, target.workflowAt);
  const version = resolveWorkflowVersion(ctx, workflow, target.version);
  const steps = resolveSteps(ctx, workflow, version);
  if (steps.length === 0) throw badRequest(`workflow ${workflow.id} version ${version.version} has no steps; give it steps with POST /workflows/${workflow.id} {steps}`);
  const { inputs: all, files } = await withDownloads(req, (signal) => materialize(ctx, items, signal));
  const inputs = asPackage ? [{ input: packageOf(all, items), metadata: all[0].metadata }] : all;
  const { runs, steps: first } = buildWorkflowRuns({ ids: ctx.ids, workflow, version, steps, inputs, priority: target.priority, batchId, now: nowIso(), baseUrl: ctx.baseUrl });
  insertWorkflowRuns(ctx, runs, first, files);
  for (const r of first) ctx.scheduler.enqueue(r.id, target.priority);
  return runs;
}

/**
 * The files of a package as one input, in order. The route refuses a repeated id or URL; two URLs
 * that download to the same stored file, or an id naming a file a URL of the package also brought,
 * are one file twice: refused too (the SDK: "each file may appear only once").
 */
function packageOf(all: Array<{ input: RunInput }>, items: Item[]): RunInput {
  const files: RunFile[] = [];
  const at = new Map<string, string>();
  all.forEach(({ input }, i) => {
    if (input.kind !== 'file') throw badRequest(`${items[i].at} must be a file ({url, name?} or {id})`);
    const first = at.get(input.file.id);
    if (first !== undefined) throw badRequest(`${items[i].at} is the same file as ${first} (${input.file.id}); each file of a package may appear only once`);
    at.set(input.file.id, items[i].at);
    files.push(input.file);
  });
  return { kind: 'package', files };
}

export function loadWorkflowRun(req: Req, ctx: Ctx, id = req.params.id): WorkflowRunRow {
  checkId(id, 'workflow run id');
  const row = ctx.store.byId<WorkflowRunRow>('workflow_runs', id);
  if (!row) throw notFound(`workflow run ${id} not found${id.startsWith('workflow_run_') ? '' : ' (workflow run ids start with workflow_run_)'}`);
  assertWorkflowAccess(req.token, row.workflow_id);
  return row;
}

/** `name` and `metadata` (merged: on the same key the new value wins); returns the stored document. */
export function updateWorkflowRun(ctx: Ctx, row: WorkflowRunRow, name: string | undefined, metadata: Json | undefined): string {
  const doc = JSON.parse(row.doc) as Json;
  if (name !== undefined) doc.name = name;
  if (metadata) doc.metadata = { ...(doc.metadata as Json | null), ...metadata };
  const now = nowIso();
  doc.updatedAt = now;
  const text = JSON.stringify(doc);
  ctx.store.st('UPDATE workflow_runs SET doc = ?, updated_at = ? WHERE id = ?').run(text, now, row.id);
  return text;
}

/** The run and its current step become CANCELLED; 400 unless the run is PROCESSING. Returns the stored document. */
export function cancelWorkflowRun(ctx: Ctx, wr: WorkflowRunRow): string {
  if (wr.status !== 'PROCESSING') throw badRequest(`workflow run ${wr.id} is ${wr.status}; only a PROCESSING run can be cancelled`);
  ctx.store.tx(() => {
    const step = ctx.store.st("SELECT * FROM processor_runs WHERE source = ? AND source_id = ? AND status = 'PROCESSING'").get(WORKFLOW_SOURCE, wr.id) as RunRow | undefined;
    if (step && cancelRunRow(ctx, step, nowIso())) return;
    // No step in progress (a step just ended): the run itself ends here.
    const doc = JSON.parse(wr.doc) as Json;
    const now = nowIso();
    Object.assign(doc, { status: 'CANCELLED', endTime: now, updatedAt: now });
    ctx.store.st('UPDATE workflow_runs SET status = ?, doc = ?, updated_at = ? WHERE id = ?').run('CANCELLED', JSON.stringify(doc), now, wr.id);
    ctx.events.emit({ type: 'workflow_run.cancelled', workflowRunId: wr.id });
  });
  return (ctx.store.byId<WorkflowRunRow>('workflow_runs', wr.id) as WorkflowRunRow).doc;
}

/** The run and its steps' processor runs; 400 while it is PROCESSING. */
export function deleteWorkflowRun(ctx: Ctx, wr: WorkflowRunRow): void {
  if (wr.status === 'PROCESSING') throw badRequest(`workflow run ${wr.id} is still PROCESSING; cancel it first (POST /workflow_runs/${wr.id}/cancel)`);
  ctx.store.tx(() => {
    ctx.store.st('DELETE FROM processor_runs WHERE source = ? AND source_id = ?').run(WORKFLOW_SOURCE, wr.id);
    ctx.store.deleteById('workflow_runs', wr.id);
  });
}

/** A page of workflow runs by the list filters every version shares (`statuses`: the values the version's enum allows). */
export function listWorkflowRuns(req: Req, ctx: Ctx, statuses: readonly string[]): { rows: Array<Pick<WorkflowRunRow, 'seq' | 'doc' | 'created_at' | 'updated_at'>>; nextPageToken: string | null } {
  const q = req.query;
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const batchId = queryId(q, 'batchId');
  if (batchId) where.push(['batch_id = ?', batchId]);
  const workflowId = queryId(q, 'workflowId');
  if (workflowId) where.push(['workflow_id = ?', workflowId]);
  const status = queryEnum(q, 'status', statuses);
  if (status) where.push(['status = ?', status]);
  const nameContains = q.get('fileNameContains');
  if (nameContains) where.push(["file_name LIKE ? ESCAPE '\\'", `%${nameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  if (req.token.workflows !== '*') where.push(['workflow_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.workflows])]);
  const rows = ctx.store.list<Pick<WorkflowRunRow, 'seq' | 'doc' | 'created_at' | 'updated_at'>>(
    'workflow_runs',
    { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 },
    'seq, doc, created_at, updated_at',
  );
  return pageOf(rows, page, (r) => (page.sortCol === 'updated_at' ? r.updated_at : r.created_at));
}
