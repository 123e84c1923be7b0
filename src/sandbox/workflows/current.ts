/**
 * Workflows, their versions and runs as API 2026-02-09 shows them (api-2026-02-09.md section 7,
 * "Workflows"), over the one store the 2025-04-21 routes use.
 *
 * Steps. A sandbox workflow version is an ordered list of processor steps `{processorId, version}`.
 * 2026-02-09 writes a version as typed step definitions (`WorkflowStepDefinition`): the sandbox
 * takes `TRIGGER` (implied), `EXTRACT` `{config: {extractor: {id, version}}}`, `CLASSIFY`
 * `{config: {classifier: ...}}` and `SPLIT` `{config: {splitter: ...}}`, in array order, and
 * shows a version back as a `TRIGGER` followed by its processor steps, each `next` naming the
 * following one. Inline configs (`extractorConfig`...), the other step types and routing by
 * classification are not emulated: a 400 names the step.
 */
import { z } from 'zod';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { fileSummary } from '../current.js';
import { badRequest, notFound } from '../http.js';
import { currentGet } from '../internal.js';
import { KINDS, withArticle } from '../kinds.js';
import { createdByOf, metaOf } from '../meta.js';
import { normalizeVersionLabel } from '../resolve.js';
import { MAX_WORKFLOW_STEPS, type WorkflowStep } from '../settings.js';
import type { FileRow, ProcessorRow, WorkflowRow, WorkflowRunRow, WorkflowVersionRow } from '../store.js';
import { workflowVersionId, type WorkflowJob } from './runs.js';
import { toPointer } from '../../util/json.js';

/**
 * The step types the sandbox runs: the kind of processor each runs (kinds.ts: its reference
 * member `config.extractor` and run route), its inline config member and its `result` member.
 */
const STEPS = {
  EXTRACT: { kind: KINDS.EXTRACT, inline: 'extractorConfig', result: 'extractRun' },
  CLASSIFY: { kind: KINDS.CLASSIFY, inline: 'classifierConfig', result: 'classifyRun' },
  SPLIT: { kind: KINDS.SPLITTER, inline: 'splitterConfig', result: 'splitRun' },
} as const;
type Step = keyof typeof STEPS;

function stepOf(processorType: string): Step {
  return processorType === 'CLASSIFY' ? 'CLASSIFY' : processorType === 'SPLITTER' ? 'SPLIT' : 'EXTRACT';
}

/** Run statuses of 2026-02-09 (spec 1.5); the sandbox produces PROCESSING, PROCESSED, FAILED and CANCELLED. */
export const WORKFLOW_RUN_STATUSES_2026 = ['PENDING', 'PROCESSING', 'NEEDS_REVIEW', 'REJECTED', 'PROCESSED', 'FAILED', 'CANCELLED', 'CANCELLING'] as const;

// ---------------------------------------------------------------------------------------------
// Step definitions in

const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;
const nextSchema = z.array(z.strictObject({ step: z.string().min(1), classificationId: z.string().optional() }));
const nameSchema = z.string().trim().min(1, 'must be a non-empty string').max(256, 'must have at most 256 characters');
const refSchema = z.strictObject({
  id: z.string().regex(ID_RE, 'must be an id (letters, digits, "_" and "-")'),
  version: z.string().refine((v) => normalizeVersionLabel(v) !== undefined, 'must be "latest", "draft" or a published version number such as "1.0"').optional(),
});
const triggerSchema = z.strictObject({ type: z.literal('TRIGGER'), name: nameSchema, next: nextSchema.optional() });
const processorStepSchemas = Object.fromEntries(
  (Object.keys(STEPS) as Step[]).map((k) => [
    k,
    z.strictObject({
      type: z.literal(k),
      name: nameSchema,
      config: z.strictObject({ [STEPS[k].kind.noun]: refSchema.optional(), [STEPS[k].inline]: z.unknown().optional() }),
      next: nextSchema.optional(),
    }),
  ]),
) as unknown as Record<Step, z.ZodType<{ type: Step; name: string; config: Record<string, unknown>; next?: Array<{ step: string }> }>>;

function issue(e: z.ZodError, at: string): never {
  const i = e.issues[0];
  const message = i.code === 'unrecognized_keys' ? `unknown member${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}` : i.message;
  throw badRequest(`invalid step at ${at}${toPointer(i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)))}: ${message}`);
}

/**
 * 2026-02-09 step definitions -> the sandbox's steps (processors checked: 404 for a missing one,
 * 400 for one of another type). `at` is the JSON pointer of the array in the body.
 */
export function stepsFromCurrent(ctx: Ctx, raw: unknown, at = '/steps'): WorkflowStep[] {
  if (!Array.isArray(raw)) throw badRequest(`${at} must be an array of step definitions ({type, name, config?, next?})`);
  const steps: WorkflowStep[] = [];
  const names = new Set<string>();
  const nexts: Array<[string, string]> = [];
  raw.forEach((s: unknown, i) => {
    const here = `${at}/${i}`;
    const type = (s as { type?: unknown } | null)?.type;
    if (type === 'TRIGGER') {
      const r = triggerSchema.safeParse(s);
      if (!r.success) issue(r.error, here);
      if (names.has(r.data.name)) throw badRequest(`${here}/name: step name "${r.data.name}" is used twice; names identify steps in next`);
      names.add(r.data.name);
      for (const [j, n] of (r.data.next ?? []).entries()) nexts.push([`${here}/next/${j}/step`, n.step]);
      return;
    }
    if (typeof type !== 'string' || !Object.hasOwn(STEPS, type)) {
      throw badRequest(
        `${here}/type: ${typeof type === 'string' ? `${type} steps are not emulated by the sandbox` : 'is required'}; it runs EXTRACT, CLASSIFY and SPLIT steps in array order (a TRIGGER step is accepted and implied)`,
      );
    }
    const def = STEPS[type as Step];
    const kind = def.kind;
    const r = processorStepSchemas[type as Step].safeParse(s);
    if (!r.success) issue(r.error, here);
    const step = r.data;
    if (names.has(step.name)) throw badRequest(`${here}/name: step name "${step.name}" is used twice; names identify steps in next`);
    names.add(step.name);
    if (step.config[def.inline] !== undefined) {
      throw badRequest(`${here}/config/${def.inline}: inline configs are not emulated by the sandbox; create the ${kind.noun} first and reference it as config.${kind.noun} {id, version}`);
    }
    const ref = step.config[kind.noun] as { id: string; version?: string } | undefined;
    if (!ref) throw badRequest(`${here}/config/${kind.noun} is required: the ${kind.noun} this step runs, {id, version}`);
    const p = ctx.store.byId<ProcessorRow>('processors', ref.id);
    if (!p) throw notFound(`${here}/config/${kind.noun}/id: ${kind.noun} ${ref.id} not found`);
    if (p.type !== kind.type) throw badRequest(`${here}/config/${kind.noun}/id: ${ref.id} is ${withArticle(`${stepOf(p.type)} ${STEPS[stepOf(p.type)].kind.noun}`)}, not ${withArticle(kind.noun)}; use ${withArticle(stepOf(p.type))} step for it`);
    for (const [j, n] of (step.next ?? []).entries()) nexts.push([`${here}/next/${j}/step`, n.step]);
    steps.push({ processorId: p.id, version: normalizeVersionLabel(ref.version ?? 'latest') as string, name: step.name });
  });
  for (const [where, name] of nexts) if (!names.has(name)) throw badRequest(`${where}: no step is named "${name}"`);
  if (steps.length > MAX_WORKFLOW_STEPS) throw badRequest(`${at}: a workflow has at most ${MAX_WORKFLOW_STEPS} processor steps (got ${steps.length})`);
  return steps;
}

// ---------------------------------------------------------------------------------------------
// Step definitions out

function stepNames(steps: Array<{ name?: string }>): string[] {
  return steps.map((s, i) => s.name ?? `Step ${i + 1}`);
}

/** The sandbox's steps as 2026-02-09 step definitions (see the module comment). */
export function stepsToCurrent(ctx: Ctx, steps: WorkflowStep[]): Json[] {
  if (steps.length === 0) return [];
  const names = stepNames(steps);
  const out: Json[] = [{ type: 'TRIGGER', name: 'Trigger', next: [{ step: names[0] }] }];
  steps.forEach((s, i) => {
    const p = ctx.store.byId<ProcessorRow>('processors', s.processorId);
    const type = stepOf(p?.type ?? 'EXTRACT');
    out.push({ type, name: names[i], config: { [STEPS[type].kind.noun]: { id: s.processorId, version: s.version } }, ...(i + 1 < steps.length ? { next: [{ step: names[i + 1] }] } : {}) });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Workflows and versions

export function workflowSummaryCurrent(ctx: Ctx, wf: WorkflowRow): Json {
  return { object: 'workflow', id: wf.id, name: wf.name, createdAt: wf.created_at, updatedAt: wf.updated_at, createdBy: createdByOf(metaOf(ctx, wf.id)) };
}

export function versionSummaryCurrent(ctx: Ctx, wf: WorkflowRow, v: WorkflowVersionRow): Json {
  const id = workflowVersionId(wf.id, v.version);
  const meta = metaOf(ctx, id);
  return { object: 'workflow_version', id, version: v.version, name: meta?.name ?? null, createdAt: v.created_at, createdBy: createdByOf(meta) ?? createdByOf(metaOf(ctx, wf.id)) };
}

export function versionCurrent(ctx: Ctx, wf: WorkflowRow, v: WorkflowVersionRow): Json {
  const s = versionSummaryCurrent(ctx, wf, v);
  return { object: s.object, id: s.id, version: s.version, name: s.name, steps: stepsToCurrent(ctx, JSON.parse(v.steps) as WorkflowStep[]), createdAt: s.createdAt, createdBy: s.createdBy };
}

export function draftRow(ctx: Ctx, wf: WorkflowRow): WorkflowVersionRow {
  return ctx.store.st("SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = 'draft'").get(wf.id) as WorkflowVersionRow;
}

export function workflowCurrent(ctx: Ctx, wf: WorkflowRow): Json {
  const s = workflowSummaryCurrent(ctx, wf);
  return { object: s.object, id: s.id, name: s.name, createdAt: s.createdAt, updatedAt: s.updatedAt, draftVersion: versionCurrent(ctx, wf, draftRow(ctx, wf)), createdBy: s.createdBy };
}

/**
 * A version by its id (`<workflowId>_v<version>`, as answers show it) or its label (`draft`,
 * `latest`, `1`); 404 naming both forms.
 */
export function versionByRef(ctx: Ctx, wf: WorkflowRow, ref: string): WorkflowVersionRow {
  const prefix = `${wf.id}_v`;
  let label = ref.startsWith(prefix) ? ref.slice(prefix.length) : ref;
  if (/^\d+$/.test(label)) label = String(Number(label));
  const row =
    label === 'latest'
      ? (ctx.store.st("SELECT * FROM workflow_versions WHERE workflow_id = ? AND version <> 'draft' ORDER BY ord DESC LIMIT 1").get(wf.id) as WorkflowVersionRow | undefined)
      : (ctx.store.st('SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?').get(wf.id, label) as WorkflowVersionRow | undefined);
  if (!row) throw notFound(`workflow version ${ref} of workflow ${wf.id} not found (version ids are ${prefix}<version>, such as ${prefix}draft or ${prefix}1)`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Workflow runs

/** Lookups shared by the items of one answer (a list names the same workflow many times). */
export class RunRenderCache {
  private readonly workflows = new Map<string, WorkflowRow | undefined>();
  private readonly versions = new Map<string, WorkflowVersionRow | undefined>();
  private readonly files = new Map<string, Json>();
  constructor(private readonly ctx: Ctx) {}

  workflow(id: string): WorkflowRow | undefined {
    if (!this.workflows.has(id)) this.workflows.set(id, this.ctx.store.byId<WorkflowRow>('workflows', id));
    return this.workflows.get(id);
  }

  version(workflowId: string, version: string): WorkflowVersionRow | undefined {
    const key = `${workflowId}\u0000${version}`;
    if (!this.versions.has(key)) {
      this.versions.set(key, this.ctx.store.st('SELECT * FROM workflow_versions WHERE workflow_id = ? AND version = ?').get(workflowId, version) as WorkflowVersionRow | undefined);
    }
    return this.versions.get(key);
  }

  /** `FileSummary` of a run's file; a deleted file keeps what the run recorded of it. */
  file(ref: Json, fallbackAt: string): Json {
    const id = String(ref.id);
    let f = this.files.get(id);
    if (!f) {
      const row = this.ctx.store.st('SELECT id, name, type, num_pages, parent_file_id, metadata, created_at, updated_at FROM files WHERE id = ?').get(id) as FileRow | undefined;
      f = row
        ? fileSummary(row)
        : { object: 'file', id, name: ref.name ?? id, type: ref.type ?? null, parentFileId: null, metadata: {}, createdAt: ref.createdAt ?? fallbackAt, updatedAt: ref.updatedAt ?? fallbackAt };
      this.files.set(id, f);
    }
    return f;
  }
}

function runHead(ctx: Ctx, d: Json, cache: RunRenderCache): { workflow: Json; workflowVersion: Json; files: Json[] } {
  const ref = d.workflow as { id: string; version: string; name: string };
  const created = String(d.createdAt);
  const wf = cache.workflow(ref.id);
  const v = wf && cache.version(wf.id, ref.version);
  return {
    workflow: wf ? workflowSummaryCurrent(ctx, wf) : { object: 'workflow', id: ref.id, name: ref.name, createdAt: created, updatedAt: created, createdBy: null },
    workflowVersion:
      wf && v
        ? versionSummaryCurrent(ctx, wf, v)
        : { object: 'workflow_version', id: workflowVersionId(ref.id, ref.version), version: ref.version, name: null, createdAt: created, createdBy: null },
    files: ((d.files as Json[] | undefined) ?? []).map((f) => cache.file(f, created)),
  };
}

/** `WorkflowRunSummary` of spec 7 (list items). */
export function workflowRunSummaryCurrent(ctx: Ctx, d: Json, cache: RunRenderCache): Json {
  const h = runHead(ctx, d, cache);
  return {
    object: 'workflow_run', id: d.id, status: d.status, workflow: h.workflow, workflowVersion: h.workflowVersion,
    dashboardUrl: `${ctx.baseUrl}/workflow_runs/${String(d.id)}`, reviewedByUser: d.reviewedBy ?? null, reviewedAt: d.reviewedAt ?? null,
    initialRunAt: d.initialRunAt ?? null, startTime: d.startTime ?? null, endTime: d.endTime ?? null, batchId: d.batchId ?? null,
    rejectionNote: null, files: h.files, createdAt: d.createdAt, updatedAt: d.updatedAt, usage: null,
  };
}

const STEP_STATUSES: ReadonlySet<string> = new Set(['PENDING', 'WAITING', 'PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED']);

/**
 * One `StepRun` per step started (its processor run): id `workflow_step_run_<processor run id>`,
 * `result` the processor run as `GET /extract_runs/{id}` (classify, split) answers it once the
 * step is PROCESSED, else null; null too while no 2026-02-09 route retrieves runs of that type.
 */
async function stepRuns(ctx: Ctx, row: WorkflowRunRow, d: Json, files: Json[]): Promise<Json[]> {
  const job = JSON.parse(row.job) as WorkflowJob;
  const names = stepNames(job.steps);
  const items = (d.outputs as Json[] | undefined) ?? [];
  return Promise.all(
    items.map(async (o, i) => {
      const type = stepOf(String(o.type));
      const status = String(o.status);
      let result: Json | null = null;
      if (status === 'PROCESSED') {
        const r = await currentGet(ctx, `/${STEPS[type].kind.run.route}/${String(o.id)}`);
        if (r.ok) result = { [STEPS[type].result]: JSON.parse(r.text) as Json };
      }
      return {
        object: 'workflow_step_run', id: stepRunId(String(o.id)), workflowRunId: d.id, status: STEP_STATUSES.has(status) ? status : 'PROCESSING', files,
        stepType: type, step: { object: 'workflow_step', id: `step_${i + 1}`, name: names[i] ?? `Step ${i + 1}`, type }, result,
      };
    }),
  );
}

export function stepRunId(processorRunId: string): string {
  return `workflow_step_run_${processorRunId}`;
}

/** `WorkflowRun` of spec 7, from the stored run. */
export async function workflowRunCurrent(ctx: Ctx, row: WorkflowRunRow, cache = new RunRenderCache(ctx)): Promise<Json> {
  const d = JSON.parse(row.doc) as Json;
  const h = runHead(ctx, d, cache);
  return {
    object: 'workflow_run', id: d.id, workflow: h.workflow, workflowVersion: h.workflowVersion, dashboardUrl: `${ctx.baseUrl}/workflow_runs/${String(d.id)}`,
    status: d.status, metadata: d.metadata ?? {}, batchId: d.batchId ?? null, files: h.files, failureReason: d.failureReason ?? null,
    failureMessage: d.failureMessage ?? null, initialRunAt: d.initialRunAt ?? null, reviewedByUser: d.reviewedBy ?? null, reviewed: d.reviewed ?? false,
    rejectionNote: null, reviewedAt: d.reviewedAt ?? null, startTime: d.startTime ?? null, endTime: d.endTime ?? null,
    stepRuns: await stepRuns(ctx, row, d, h.files), usage: null,
  };
}
