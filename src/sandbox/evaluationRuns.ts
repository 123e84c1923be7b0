/**
 * Evaluation runs as core operations: one evaluation of a set's items is one batch processor run
 * row (`bpr_`) and one processor run per item, whichever route started it (the sandbox extension
 * `POST /batch_processor_runs` of 2025-04-21, or `POST /evaluation_set_runs` of 2026-02-09), and
 * every route shows it: `GET /batch_processor_runs/{id}` in the legacy shape with the legacy
 * metrics (metrics.ts), `GET /evaluation_set_runs/{id}` as `EvaluationSetRun` with the metrics of
 * spec 4.2 (src/metrics/service.ts).
 *
 * Each item run keeps a copy of its item's expected output taken at the start (in its job): an
 * item edited or deleted while the run is in flight changes neither what the engine is told nor
 * what is scored.
 */
import type { Ctx } from './context.js';
import type { Json, ProcessorType } from './core.js';
import { legacyConfig } from './current.js';
import { nowIso, type IdKind } from './ids.js';
import { KINDS } from './kinds.js';
import { extraOf, metaOf, setMeta } from './meta.js';
import { entitySummary, versionSummary } from './runAnswers.js';
import { buildRun, type Job, type RunFile } from './runs.js';
import type { BatchRow, ItemRow, ProcessorRow, RunRow, SetRow, VersionRow } from './store.js';
import { serviceMetrics, type ServiceItem, type ServiceMetrics } from '../metrics/service.js';

export interface NewEvaluation {
  set: SetRow;
  processor: ProcessorRow;
  version: VersionRow;
  /** The items to run, in order; at least one. */
  items: ItemRow[];
  options: Json;
  priority: number;
  /** `PROCESSING` (the legacy extension's documented start) or `PENDING` (2026-02-09: until the engine takes up the first item). */
  status: 'PENDING' | 'PROCESSING';
  /** Ids of the item runs: `run` (`dpr_`) or the 2026-02-09 run kinds (`exr_`...). */
  runIdKind: IdKind;
}

/** Stores the batch and its item runs in one transaction and queues the runs. */
export function startEvaluation(ctx: Ctx, n: NewEvaluation): BatchRow {
  const { set, processor, version, items } = n;
  const now = nowIso();
  const batch: BatchRow = {
    seq: 0, id: ctx.ids('batchProcessorRun'), processor_id: processor.id, processor_version_id: version.id, processor_name: processor.name,
    status: n.status, source: 'EVAL_SET', source_id: set.id, run_count: items.length, done_count: 0, options: JSON.stringify(n.options),
    metrics: '{}', created_at: now, updated_at: now,
  };
  const config = JSON.parse(version.config) as Json;
  const fileStmt = ctx.store.st('SELECT id, name, type, num_pages, created_at, updated_at FROM files WHERE id = ?');
  const runs = items.map((item) => {
    const file = (fileStmt.get(item.file_id) as RunFile | undefined) ?? { id: item.file_id, name: '(deleted file)', type: 'UNKNOWN', num_pages: 1, created_at: now, updated_at: now };
    return buildRun({
      id: ctx.ids(n.runIdKind),
      processor, version, config, priority: n.priority, now, source: 'EVAL_SET', sourceId: set.id, batchId: batch.id, itemId: item.id,
      expected: JSON.parse(item.expected) as Json,
      metadata: { evaluationSetId: set.id, evaluationSetItemId: item.id },
      input: { kind: 'file', file },
    });
  });
  ctx.store.insertRuns(runs, batch);
  for (const r of runs) ctx.scheduler.enqueue(r.id, n.priority);
  return batch;
}

/**
 * The expected output an item run is scored against (stored 2025-04-21 layout): the copy the run
 * took at its start; for runs stored before copies were taken, the item as it is now.
 */
export function expectedOf(ctx: Ctx, run: Pick<RunRow, 'job' | 'item_id'>): Json | undefined {
  const job = JSON.parse(run.job) as Job;
  if (job.expected !== undefined) return job.expected;
  if (!run.item_id) return undefined;
  const item = ctx.store.st('SELECT expected FROM evaluation_set_items WHERE id = ?').get(run.item_id) as { expected: string } | undefined;
  return item ? (JSON.parse(item.expected) as Json) : undefined;
}

/**
 * An evaluation ends FAILED when none of its item runs ended PROCESSED (every one FAILED or
 * CANCELLED: nothing to score), PROCESSED otherwise.
 */
export function endStatus(runs: ReadonlyArray<Pick<RunRow, 'status'>>): 'PROCESSED' | 'FAILED' {
  return runs.some((r) => r.status === 'PROCESSED') ? 'PROCESSED' : 'FAILED';
}

/**
 * An evaluation as `BatchRun` (spec 7; `GET /batch_runs/{id}`, and the payload spec 6 gives the
 * `batch_processor_run.*` events): its status and its number of item runs.
 */
export function evaluationBatchRun(b: BatchRow): Json {
  return { object: 'batch_run', id: b.id, status: b.status, runCount: b.run_count, createdAt: b.created_at };
}

/** Members of `EvaluationSetRunOptions` (spec 7); the legacy extension's other options are not shown. */
const RUN_OPTION_KEYS = ['fuzzyMatchFields', 'excludeFields'];

/**
 * The metrics of spec 4.2 (src/metrics/service.ts) of an evaluation from its item runs: the copies
 * of the expected outputs in the 2026-02-09 form against the runs' outputs; latency is each run's
 * processing time, pages its file's pages. Computed once, when the evaluation ends (finishBatch),
 * and stored with it.
 */
export function scoreEvaluation(ctx: Ctx, b: BatchRow, runs: RunRow[] = ctx.store.runsOfBatch(b.id)): ServiceMetrics {
  const v = ctx.store.byId<VersionRow>('processor_versions', b.processor_version_id);
  const type = typeOfBatch(ctx, b);
  const items: ServiceItem[] = runs.map((r) => {
    const expected = expectedOf(ctx, r);
    const doc = JSON.parse(r.doc) as Json;
    return {
      expected: expected === undefined ? undefined : ctx.core.expectedToCurrent(expected, type),
      status: r.status,
      output: (doc.output as unknown) ?? null,
      ...(typeof r.run_time_ms === 'number' && { latencyMs: r.run_time_ms }),
      pages: r.num_pages,
    };
  });
  return serviceMetrics(type, configOf(v), items);
}

function typeOfBatch(ctx: Ctx, b: BatchRow): ProcessorType {
  const p = ctx.store.st('SELECT type FROM processors WHERE id = ?').get(b.processor_id) as { type: string } | undefined;
  return (p?.type ?? 'EXTRACT') as ProcessorType;
}

function configOf(v: VersionRow | undefined): Json {
  return v ? legacyConfig(JSON.parse(v.config) as Json) : {};
}

/** Stores the figures of an ended evaluation beside its row (meta.ts), in the transaction that ends it. */
export function storeEvaluationMetrics(ctx: Ctx, b: BatchRow, metrics: ServiceMetrics): void {
  setMeta(ctx, b.id, { extra: { metrics } });
}

/**
 * While an evaluation runs, progress only: which item runs have ended, and the pages and latencies
 * of those processed; nothing is scored (the quality counts are zero) until it ends. Read from the
 * runs' status columns, not their documents.
 */
function progressMetrics(ctx: Ctx, b: BatchRow): ServiceMetrics {
  const rows = ctx.store.st('SELECT status, run_time_ms, num_pages FROM processor_runs WHERE batch_id = ? ORDER BY seq').all(b.id) as Array<Pick<RunRow, 'status' | 'run_time_ms' | 'num_pages'>>;
  const items: ServiceItem[] = rows.map((r) => ({
    expected: undefined, status: r.status, output: null, pages: r.num_pages, ...(typeof r.run_time_ms === 'number' && { latencyMs: r.run_time_ms }),
  }));
  return serviceMetrics(typeOfBatch(ctx, b), configOf(ctx.store.byId<VersionRow>('processor_versions', b.processor_version_id)), items);
}

/**
 * The figures `GET /evaluation_set_runs/{id}` shows: the stored ones once the evaluation has
 * ended (an evaluation that ended before they were stored, in an older sandbox's data dir, is
 * scored from its runs), progress while it runs.
 */
export function evaluationMetrics(ctx: Ctx, b: BatchRow): ServiceMetrics {
  if (b.status !== 'PROCESSED' && b.status !== 'FAILED') return progressMetrics(ctx, b);
  const stored = extraOf(metaOf(ctx, b.id)).metrics;
  return stored !== undefined ? (stored as ServiceMetrics) : scoreEvaluation(ctx, b);
}

/** `EvaluationSetRun` (spec 7); `metrics`: evaluationMetrics. */
export function evaluationSetRunJson(ctx: Ctx, b: BatchRow): Json {
  const p = ctx.store.byId<ProcessorRow>('processors', b.processor_id);
  const v = ctx.store.byId<VersionRow>('processor_versions', b.processor_version_id);
  const type = (p?.type ?? 'EXTRACT') as ProcessorType;
  const stored = JSON.parse(b.options) as Json;
  const options: Json = {};
  for (const k of RUN_OPTION_KEYS) if (Object.hasOwn(stored, k)) options[k] = stored[k];
  return {
    object: 'evaluation_set_run',
    id: b.id,
    evaluationSetId: b.source_id,
    entity: p ? entitySummary(KINDS[type], p) : null,
    entityVersion: v ? versionSummary(ctx, KINDS[type], v) : null,
    metrics: evaluationMetrics(ctx, b),
    status: b.status,
    options,
    createdAt: b.created_at,
    updatedAt: b.updated_at,
  };
}
