/**
 * Workflow runs (2.1): one document goes through the workflow's processors in order, each step
 * a processor run (source WORKFLOW_RUN, sourceId the workflow run) on the same input: a file is
 * stored and parsed once and every step reads that file resource. A 2026-02-09 `package` of files
 * is one input too: every step reads all its files as one document, their pages in order (as an
 * extract run's package), and each step's run lists them all.
 *
 * Status (the spec shows only PROCESSED; part 3 says a created run is "processing"):
 * PROCESSING from creation (single and batch runs alike; queued counts as processing) until the
 * last step is PROCESSED (run PROCESSED) or a step FAILED (run FAILED, later steps not run).
 *
 * The workflow run document is stored as served (2025-04-21 layout); `outputs` holds one item per
 * step started so far and is rewritten in the same transaction as the step's processor run, so
 * a killed sandbox never shows a finished step the workflow run does not know about.
 */
import type { Ctx } from '../context.js';
import { HUB, type Json, type Layout, type ProcessorType } from '../core.js';
import type { SandboxEvent } from '../events.js';
import type { IdSource } from '../ids.js';
import { buildRun, type NewRun, type RunFile } from '../runs.js';
import { configFor, fileRef, outputFor, sdkRunMembers } from '../serialize.js';
import type { FileRow, ProcessorRow, RunRow, VersionRow, WorkflowRow, WorkflowRunRow, WorkflowVersionRow } from '../store.js';
import type { ResolvedStep } from './definitions.js';

export const WORKFLOW_SOURCE = 'WORKFLOW_RUN';
export const WORKFLOW_RUN_STATUSES = ['PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED'] as const;

type FileInput = RunFile;
export type RunInput = { kind: 'text'; text: string } | { kind: 'file'; file: FileInput } | { kind: 'package'; files: FileInput[] };

/** What the next steps need; stored beside the run, never served. */
export interface WorkflowJob {
  input: { kind: 'text'; text: string } | { kind: 'file'; fileId: string } | { kind: 'package'; fileIds: string[] };
  /** Processor versions pinned at creation (and the step's name, when it has one). */
  steps: Array<{ processorId: string; versionId: string; name?: string }>;
  priority: number;
}

export interface NewWorkflowRuns {
  ids: IdSource;
  workflow: WorkflowRow;
  version: WorkflowVersionRow;
  steps: ResolvedStep[];
  inputs: Array<{ input: RunInput; metadata: Json }>;
  priority: number;
  batchId: string | null;
  now: string;
  baseUrl: string;
}

/**
 * The item of `outputs` for one step (2.1), from its processor run document: the spec's members,
 * and the rest of the processor run as the official SDK types it (ProcessorRun). `url` is stored
 * with the address the sandbox listened on; a restarted sandbox on another one rewrites it when
 * serving (workflowRunText).
 */
function outputItem(run: Json, baseUrl: string): Json {
  return {
    object: 'document_processor_run',
    id: run.id,
    processorId: run.processorId,
    processorVersionId: run.processorVersionId,
    processorVersion: run.processorVersion,
    processorName: run.processorName,
    type: run.type,
    status: run.status,
    edited: run.edited,
    reviewed: run.reviewed ?? false,
    edits: run.edits ?? {},
    initialOutput: run.initialOutput,
    reviewedOutput: run.reviewedOutput,
    output: run.output,
    failureReason: run.failureReason,
    failureMessage: run.failureMessage,
    metadata: run.metadata,
    config: run.config,
    files: run.files,
    mergedProcessors: [],
    url: `${baseUrl}/processor_runs/${String(run.id)}`,
  };
}

function stepRun(ids: IdSource, step: { processor: ProcessorRow; version: VersionRow }, input: RunInput, workflowRunId: string, metadata: Json, priority: number, now: string): RunRow {
  const n: NewRun = {
    id: ids('run'),
    processor: step.processor, version: step.version, config: JSON.parse(step.version.config) as Json, input, priority, metadata,
    source: WORKFLOW_SOURCE, sourceId: workflowRunId, batchId: null, itemId: null, now,
  };
  return buildRun(n);
}

/** Builds the runs and their first steps' processor runs (not stored yet). */
export function buildWorkflowRuns(n: NewWorkflowRuns): { runs: WorkflowRunRow[]; steps: RunRow[] } {
  const runs: WorkflowRunRow[] = [];
  const steps: RunRow[] = [];
  const pinned = n.steps.map((s) => ({ processorId: s.processor.id, versionId: s.version.id, ...(s.name === undefined ? {} : { name: s.name }) }));
  for (const { input, metadata } of n.inputs) {
    const id = n.ids('workflowRun');
    const first = stepRun(n.ids, n.steps[0], input, id, metadata, n.priority, n.now);
    const files = input.kind === 'file' ? [input.file] : input.kind === 'package' ? input.files : [];
    const file = files[0] as FileInput | undefined;
    const doc: Json = {
      object: 'workflow_run',
      id,
      url: `${n.baseUrl}/workflow_runs/${id}`,
      // The official SDK types name as a string: the input's file name until it is set.
      name: file ? file.name : 'rawText',
      status: 'PROCESSING',
      metadata,
      files: files.map(fileRef),
      initialRunAt: n.now,
      reviewed: false,
      reviewedBy: null,
      reviewedAt: null,
      startTime: n.now,
      endTime: null,
      outputs: [outputItem(JSON.parse(first.doc) as Json, n.baseUrl)],
      // Rule and external-data validation steps (the SDK's StepRun) do not exist offline.
      stepRuns: [],
      workflow: { object: 'workflow', id: n.workflow.id, version: n.version.version, name: n.workflow.name },
      ...(n.batchId ? { batchId: n.batchId } : {}),
      priority: n.priority,
      failureReason: null,
      failureMessage: null,
      createdAt: n.now,
      updatedAt: n.now,
    };
    const job: WorkflowJob = { input: jobInput(input), steps: pinned, priority: n.priority };
    runs.push({
      seq: 0, id, workflow_id: n.workflow.id, batch_id: n.batchId, status: 'PROCESSING', file_name: file?.name ?? null,
      created_at: n.now, updated_at: n.now, doc: JSON.stringify(doc), job: JSON.stringify(job),
    });
    steps.push(first);
  }
  return { runs, steps };
}

function jobInput(input: RunInput): WorkflowJob['input'] {
  if (input.kind === 'text') return input;
  if (input.kind === 'package') return { kind: 'package', fileIds: input.files.map((f) => f.id) };
  return { kind: 'file', fileId: input.file.id };
}

/** Stores new workflow runs, their first steps and the files they read, in one transaction. */
export function insertWorkflowRuns(ctx: Ctx, runs: WorkflowRunRow[], steps: RunRow[], files: Array<{ row: FileRow; bytes: Buffer }>): void {
  ctx.store.tx(() => {
    for (const f of files) ctx.store.insertFile(f.row, f.bytes);
    const ins = ctx.store.st('INSERT INTO workflow_runs (id, workflow_id, batch_id, status, file_name, created_at, updated_at, doc, job) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const r of runs) ins.run(r.id, r.workflow_id, r.batch_id, r.status, r.file_name, r.created_at, r.updated_at, r.doc, r.job);
    ctx.store.insertRuns(steps);
  });
}

export interface Advanced {
  /** The next step's processor run, to enqueue once the transaction committed. */
  next?: RunRow;
  event?: SandboxEvent;
  /** `workflow_run.step_run.processed` when the step ended PROCESSED. */
  stepEvent?: SandboxEvent;
}

/**
 * Called by the engine inside the transaction that ends a step's processor run: records the
 * step's outcome on the workflow run and starts the next step, or ends the workflow run.
 * Does nothing when this step was already recorded (a resumed or repeated run).
 */
export function advanceWorkflowRun(ctx: Ctx, run: RunRow, runDoc: Json, now: string): Advanced | undefined {
  if (!run.source_id) return undefined;
  const wr = ctx.store.byId<WorkflowRunRow>('workflow_runs', run.source_id);
  if (!wr || wr.status !== 'PROCESSING') return undefined;
  const doc = JSON.parse(wr.doc) as Json;
  const outputs = doc.outputs as Json[];
  const i = outputs.length - 1;
  if (outputs[i]?.id !== run.id || outputs[i].status !== 'PROCESSING') return undefined;
  outputs[i] = outputItem(runDoc, ctx.baseUrl);
  const job = JSON.parse(wr.job) as WorkflowJob;
  const out: Advanced = {};
  const fail = (reason: string, message: string): void => {
    doc.status = 'FAILED';
    doc.failureReason = reason;
    doc.failureMessage = message;
    doc.endTime = now;
    out.event = { type: 'workflow_run.failed', workflowRunId: wr.id };
  };
  if (runDoc.status === 'PROCESSED') out.stepEvent = { type: 'workflow_run.step_run.processed', workflowRunId: wr.id, runId: run.id };
  if (runDoc.status === 'CANCELLED') {
    doc.status = 'CANCELLED';
    doc.endTime = now;
    out.event = { type: 'workflow_run.cancelled', workflowRunId: wr.id };
  } else if (runDoc.status === 'FAILED') {
    fail(String(runDoc.failureReason ?? 'PROCESSOR_RUN_FAILED'), `step ${i + 1} (processor ${run.processor_id}) failed: ${String(runDoc.failureMessage ?? 'no reason given')}`);
  } else if (i + 1 < job.steps.length) {
    const pin = job.steps[i + 1];
    const processor = ctx.store.byId<ProcessorRow>('processors', pin.processorId);
    const version = ctx.store.byId<VersionRow>('processor_versions', pin.versionId);
    if (!processor || !version) fail('PROCESSOR_NOT_FOUND', `step ${i + 2}: processor ${pin.processorId} version ${pin.versionId} no longer exists`);
    else {
      const next = stepRun(ctx.ids, { processor, version }, inputOf(ctx, job), wr.id, doc.metadata as Json, job.priority, now);
      outputs.push(outputItem(JSON.parse(next.doc) as Json, ctx.baseUrl));
      ctx.store.insertRuns([next]);
      out.next = next;
    }
  } else {
    doc.status = 'PROCESSED';
    doc.endTime = now;
    out.event = { type: 'workflow_run.completed', workflowRunId: wr.id };
  }
  doc.updatedAt = now;
  ctx.store.st('UPDATE workflow_runs SET status = ?, doc = ?, updated_at = ? WHERE id = ?').run(doc.status, JSON.stringify(doc), now, wr.id);
  return out;
}

function inputOf(ctx: Ctx, job: WorkflowJob): RunInput {
  if (job.input.kind === 'text') return job.input;
  // A file deleted since is left to the engine, which fails the step with FILE_NOT_FOUND.
  const stmt = ctx.store.st('SELECT id, name, type, num_pages, created_at, updated_at FROM files WHERE id = ?');
  const now = new Date().toISOString();
  const load = (id: string): FileInput => (stmt.get(id) as FileInput | undefined) ?? { id, name: '(deleted file)', type: 'UNKNOWN', num_pages: 1, created_at: now, updated_at: now };
  if (job.input.kind === 'package') return { kind: 'package', files: job.input.fileIds.map(load) };
  return { kind: 'file', file: load(job.input.fileId) };
}

/** Refreshes the step's item after a review changed its processor run. */
export function updateWorkflowOutput(ctx: Ctx, workflowRunId: string, runDoc: Json, reviewedBy: string, now: string): void {
  const wr = ctx.store.byId<WorkflowRunRow>('workflow_runs', workflowRunId);
  if (!wr) return;
  const doc = JSON.parse(wr.doc) as Json;
  const outputs = doc.outputs as Json[];
  const i = outputs.findIndex((o) => o.id === runDoc.id);
  if (i < 0) return;
  outputs[i] = outputItem(runDoc, ctx.baseUrl);
  doc.reviewed = true;
  doc.reviewedBy = reviewedBy;
  doc.reviewedAt = now;
  doc.updatedAt = now;
  ctx.store.st('UPDATE workflow_runs SET doc = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(doc), now, wr.id);
}

/**
 * The stored document as served: `url` on the run and its outputs, the official SDK's members
 * filled in for documents stored before the sandbox wrote them, and for callers before
 * 2025-04-21 splitter outputs as subDocumentClassifications and configs in their layout.
 */
export function workflowRunText(ctx: Ctx, doc: string, layout: Layout): string {
  // Fast path (events and GETs of batches): a document written by this sandbox at this address,
  // every step of which has its output (else the unfinished steps are left out: producedOutputs).
  if (layout === HUB && !doc.includes('"output":null') && doc.includes(`"url":${JSON.stringify(`${ctx.baseUrl}/workflow_runs/`)}`)) return doc;
  return JSON.stringify(workflowRunJson(ctx, JSON.parse(doc) as Json, layout));
}

export function workflowRunJson(ctx: Ctx, d: Json, layout: Layout): Json {
  const created = d.createdAt as string;
  const out: Json = {
    ...d,
    name: d.name ?? ((d.files as Json[] | undefined)?.[0]?.name as string | undefined) ?? 'rawText',
    url: `${ctx.baseUrl}/workflow_runs/${String(d.id)}`,
    reviewed: d.reviewed ?? d.reviewedBy != null,
    stepRuns: d.stepRuns ?? [],
    files: ((d.files as Json[] | undefined) ?? []).map((f) => ({ metadata: {}, createdAt: created, updatedAt: created, ...f })),
  };
  out.outputs = producedOutputs(ctx, d.outputs as Json[]).map((o) => {
    const item: Json = { ...o, url: `${ctx.baseUrl}/processor_runs/${String(o.id)}` };
    const type = String(o.type);
    if (item.config) item.config = configFor(ctx, item.config as Json, layout, type as ProcessorType);
    if (layout === HUB) return item;
    for (const k of ['initialOutput', 'reviewedOutput', 'output']) item[k] = outputFor(ctx, item[k], layout, type);
    return item;
  });
  return out;
}

/**
 * The items of `outputs` whose step has produced its output: a step still running, cancelled or
 * failed has `output: null`, which the SDK types (ProcessorRun.output is an object) do not allow;
 * such a step is in `stepRuns` (2026-02-09) and in its processor run (`GET /processor_runs/{id}`).
 * The stored document keeps every started step: advanceWorkflowRun reads the last one.
 */
export function producedOutputs(ctx: Ctx, outputs: Json[]): Json[] {
  return outputs.map((o) => (o.config === undefined ? storedOutput(ctx, o) : o)).filter((o) => o.output !== null && o.output !== undefined);
}

/** An output item stored before items carried the whole run: rebuilt from its processor run. */
function storedOutput(ctx: Ctx, o: Json): Json {
  const row = ctx.store.st('SELECT doc FROM processor_runs WHERE id = ?').get(o.id) as { doc: string } | undefined;
  return row ? outputItem(sdkRunMembers(JSON.parse(row.doc) as Json), ctx.baseUrl) : { ...o, reviewed: false, edits: {}, files: [], mergedProcessors: [], config: {} };
}

/**
 * A list item: the official SDK's WorkflowRunSummary (the spec does not show the list's shape),
 * plus `object`, `metadata` and `files`, so that a batch's inputs are matched to its runs
 * without fetching each run.
 */
export function workflowRunSummary(d: Json): Json {
  const wf = d.workflow as Json;
  return {
    object: 'workflow_run',
    id: d.id,
    status: d.status,
    initialRunAt: d.initialRunAt,
    reviewedByUser: d.reviewedBy ?? null,
    reviewedAt: d.reviewedAt ?? null,
    startTime: d.startTime,
    endTime: d.endTime ?? null,
    workflowId: wf.id,
    workflowName: wf.name,
    workflowVersionId: workflowVersionId(String(wf.id), String(wf.version)),
    ...(d.batchId ? { batchId: d.batchId } : {}),
    metadata: d.metadata,
    files: d.files,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** Workflow versions have no ids of their own in the sandbox: one derived from the workflow and the version. */
export function workflowVersionId(workflowId: string, version: string): string {
  return `${workflowId}_v${version}`;
}
