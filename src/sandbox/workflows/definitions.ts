/**
 * Workflow definitions: a name, a draft and published versions ("1", "2"...), each an ordered
 * list of steps `{processorId, version}`. The service shows no endpoint that defines workflows
 * (they are built in its dashboard); the sandbox takes them from `--workflows FILE` and from
 * its extension endpoints (routes/workflows.ts).
 */
import { assertWorkflowAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { badRequest, checkId, clip, notFound, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { normalizeVersionLabel } from '../resolve.js';
import type { WorkflowDefinition, WorkflowStep } from '../settings.js';
import { pageOf, type PageParams } from '../paging.js';
import type { ProcessorRow, Store, VersionRow, WorkflowRow, WorkflowVersionRow, Where } from '../store.js';

/** The draft sorts before every published version. */
const DRAFT_ORD = 1e15;

function ordOf(version: string): number {
  return version === 'draft' ? DRAFT_ORD : Number(version);
}

function insertVersion(store: Store, workflowId: string, version: string, steps: WorkflowStep[], now: string): void {
  store
    .st('INSERT INTO workflow_versions (workflow_id, version, ord, steps, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(workflowId, version, ordOf(version), JSON.stringify(steps), now, now);
}

/** Creates the workflow, or (replace) overwrites its name and versions: a seed file is the truth for its workflows. */
export function saveWorkflow(store: Store, def: WorkflowDefinition & { id: string }, source: 'file' | 'api', replace: boolean): void {
  const now = nowIso();
  store.tx(() => {
    const existing = store.byId<WorkflowRow>('workflows', def.id);
    if (existing && !replace) throw badRequest(`workflow ${def.id} already exists; change its draft with POST /workflows/${def.id} and publish with POST /workflows/${def.id}/publish`);
    if (existing) {
      store.st('UPDATE workflows SET name = ?, source = ?, updated_at = ? WHERE id = ?').run(def.name, source, now, def.id);
      store.st('DELETE FROM workflow_versions WHERE workflow_id = ?').run(def.id);
    } else {
      store.st('INSERT INTO workflows (id, name, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(def.id, def.name, source, now, now);
    }
    for (const v of def.versions) insertVersion(store, def.id, v.version, v.steps, now);
  });
}

export function updateDraft(ctx: Ctx, wf: WorkflowRow, name: string | undefined, steps: WorkflowStep[] | undefined): void {
  const now = nowIso();
  ctx.store.tx(() => {
    ctx.store.st('UPDATE workflows SET name = coalesce(?, name), updated_at = ? WHERE id = ?').run(name ?? null, now, wf.id);
    if (steps) ctx.store.st("UPDATE workflow_versions SET steps = ?, updated_at = ? WHERE workflow_id = ? AND version = 'draft'").run(JSON.stringify(steps), now, wf.id);
  });
}

/** Publishes the draft's steps (or the given ones) as the next whole number. */
export function publishWorkflow(ctx: Ctx, wf: WorkflowRow, steps: WorkflowStep[] | undefined): WorkflowVersionRow {
  const now = nowIso();
  return ctx.store.tx(() => {
    const draft = versionRow(ctx, wf.id, 'draft');
    const newest = ctx.store.st('SELECT max(ord) AS n FROM workflow_versions WHERE workflow_id = ? AND version <> ?').get(wf.id, 'draft') as { n: number | null };
    const version = String((newest.n ?? 0) + 1);
    insertVersion(ctx.store, wf.id, version, steps ?? (draft ? (JSON.parse(draft.steps) as WorkflowStep[]) : []), now);
    ctx.store.st('UPDATE workflows SET updated_at = ? WHERE id = ?').run(now, wf.id);
    return versionRow(ctx, wf.id, version) as WorkflowVersionRow;
  });
}

function versionRow(ctx: Ctx, workflowId: string, version: string): WorkflowVersionRow | undefined {
  return ctx.store.st('SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?').get(workflowId, version) as WorkflowVersionRow | undefined;
}

/** Steps must name processors that exist (the workspace token may use them all). */
export function checkSteps(ctx: Ctx, steps: WorkflowStep[], at: string): void {
  steps.forEach((s, i) => {
    if (!ctx.store.byId<ProcessorRow>('processors', s.processorId)) throw notFound(`${at}/${i}/processorId: processor ${s.processorId} not found`);
  });
}

/** A page of the workflows the token may see. */
export function listWorkflows(ctx: Ctx, req: Req, page: PageParams): { rows: WorkflowRow[]; nextPageToken: string | null } {
  const where: Where[] = [];
  if (req.token.workflows !== '*') where.push(['id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.workflows])]);
  const rows = ctx.store.list<WorkflowRow>('workflows', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  return pageOf(rows, page, (r) => r[page.sortCol as 'created_at' | 'updated_at' | 'name']);
}

/** 400 for a malformed id, 403 before 404: a scoped token learns nothing about other workflows. */
export function loadWorkflow(ctx: Ctx, req: Req, id: string, what = 'workflow'): WorkflowRow {
  checkId(id, what === 'workflow' ? 'workflow id' : what);
  assertWorkflowAccess(req.token, id);
  const wf = ctx.store.byId<WorkflowRow>('workflows', id);
  if (!wf) throw notFound(`workflow ${id} not found`);
  return wf;
}

/** A workflow version reference: "draft", "latest" or a whole number; undefined when malformed. */
export function normalizeWorkflowVersion(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return String(v);
  if (typeof v !== 'string') return undefined;
  if (v === 'draft' || v === 'latest') return v;
  const m = /^(\d{1,6})(?:\.0)?$/.exec(v);
  return m && Number(m[1]) >= 1 ? String(Number(m[1])) : undefined;
}

/** Absent or latest: the newest published version, else the draft (4.1 "the latest deployed version"). */
export function resolveWorkflowVersion(ctx: Ctx, wf: WorkflowRow, ref: unknown): WorkflowVersionRow {
  const label = ref === undefined || ref === null ? 'latest' : normalizeWorkflowVersion(ref);
  if (!label) throw badRequest(`version must be "draft", "latest" or a whole number such as 1 (got ${clip(JSON.stringify(ref))})`);
  const v =
    label === 'latest'
      ? ((ctx.store.st("SELECT * FROM workflow_versions WHERE workflow_id = ? AND version <> 'draft' ORDER BY ord DESC LIMIT 1").get(wf.id) as WorkflowVersionRow | undefined) ??
        versionRow(ctx, wf.id, 'draft'))
      : versionRow(ctx, wf.id, label);
  if (!v) throw notFound(`version ${label} of workflow ${wf.id} not found`);
  return v;
}

export interface ResolvedStep {
  processor: ProcessorRow;
  version: VersionRow;
  /** The step's name when it has one (defined through API 2026-02-09). */
  name?: string;
}

/**
 * The processor version of each step, pinned when a run is created. A step naming a processor
 * or version that does not exist is a 404 naming the step (the workflow cannot run).
 */
export function resolveSteps(ctx: Ctx, wf: WorkflowRow, v: WorkflowVersionRow): ResolvedStep[] {
  const steps = JSON.parse(v.steps) as WorkflowStep[];
  return steps.map((s, i) => {
    const where = `step ${i + 1} of workflow ${wf.id} version ${v.version}`;
    const processor = ctx.store.byId<ProcessorRow>('processors', s.processorId);
    if (!processor) throw notFound(`${where}: processor ${s.processorId} not found`);
    const label = normalizeVersionLabel(s.version) ?? 'latest';
    const version =
      label === 'latest'
        ? (ctx.store.latestPublished(processor.id) ?? ctx.store.byId<VersionRow>('processor_versions', processor.draft_version_id))
        : ctx.store.versionByLabel(processor.id, label);
    if (!version) throw notFound(`${where}: version ${label} of processor ${processor.id} not found`);
    return s.name === undefined ? { processor, version } : { processor, version, name: s.name };
  });
}

/** The workflow as the extension endpoints serve it: versions newest first, the draft on top. */
export function workflowJson(ctx: Ctx, wf: WorkflowRow): Json {
  const versions = ctx.store.st('SELECT * FROM workflow_versions WHERE workflow_id = ? ORDER BY ord DESC').all(wf.id) as WorkflowVersionRow[];
  return {
    object: 'workflow',
    id: wf.id,
    name: wf.name,
    // The official SDK's Workflow: `version`, the newest published version (else the draft).
    version: versions.find((v) => v.version !== 'draft')?.version ?? 'draft',
    versions: versions.map((v) => ({ version: v.version, steps: JSON.parse(v.steps) as unknown, createdAt: v.created_at, updatedAt: v.updated_at })),
    createdAt: wf.created_at,
    updatedAt: wf.updated_at,
  };
}
