/**
 * The export of a batch processor run: its runs, paired with the evaluation set's items.
 * `exportBatchRun(client, id)` is `evalkit eval export --batch-run ID`; `runEvaluation` uses
 * the same pieces once its batch has ended.
 */
import type { BatchProcessorRun, Client, ProcessorRun, ProcessorVersion } from '../api/index.js';
import { collect, isApiError } from '../api/index.js';
import type { EvaluationExport, ExportItem, ExportOptions, ExportServiceRun } from '../metrics/generated/export.js';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import { speaks2026 } from '../api/version.js';
import { pairRuns, TIMEOUT_REASON } from './pair.js';
import { loadItems, notFoundAs, processorName, toHubConfig } from './resolve.js';
import { DEFAULT_TIMEOUT_MS, type EvalCallbacks, type EvalCounts, type EvalItem, type EvalProgress, type EvalResult, type ExportBatchRunOptions, InterruptedError } from './types.js';

export function countItems(items: readonly ExportItem[]): EvalCounts {
  let processed = 0;
  let timedOut = 0;
  for (const i of items) {
    if (i.status === 'PROCESSED') processed++;
    else if (i.failureReason === TIMEOUT_REASON) timedOut++;
  }
  return { items: items.length, processed, failed: items.length - processed, timedOut };
}

export function exportOptions(fuzzy: readonly string[] | undefined, exclude: readonly string[] | undefined): ExportOptions {
  return { fuzzyMatchFields: [...(fuzzy ?? [])], excludeFields: [...(exclude ?? [])] };
}

export function buildExport(p: {
  version: ProcessorVersion;
  name: string;
  config?: Record<string, unknown>;
  options: ExportOptions;
  items: ExportItem[];
  evaluationSetId: string;
  batchProcessorRunId?: string;
  /** The service's evaluation set run (API 2026-02-09), recorded as answered: `report` reconciles its metrics. */
  service?: ExportServiceRun;
  now?: Date;
}): EvaluationExport {
  const type = p.version.processorType;
  return {
    format: 'evalkit-export/1',
    processor: {
      id: p.version.processorId,
      name: p.name,
      type,
      version: p.version.version,
      versionId: p.version.id,
      config: toHubConfig(p.config ?? p.version.config, type),
    },
    options: p.options,
    source: {
      evaluationSetId: p.evaluationSetId,
      ...(p.batchProcessorRunId ? { batchProcessorRunId: p.batchProcessorRunId } : {}),
      exportedAt: (p.now ?? new Date()).toISOString(),
    },
    ...(p.service ? { service: p.service } : {}),
    items: p.items,
  };
}

/**
 * The runs of a batch processor run. `batchProcessorRunId` is a filter of the sandbox; a service
 * that ignores it answers with other runs too, so then the set's runs (`sourceId`) are read and
 * narrowed to this batch: by `batchProcessorRunId` when runs carry it, else by version and
 * creation time. Pages of 1000 (the sandbox's largest); a 400 for either takes the second path.
 */
export async function listBatchRuns(client: Client, b: BatchProcessorRun, signal?: AbortSignal): Promise<ProcessorRun[]> {
  try {
    const runs = await collect(client.processorRuns.listAll({ batchProcessorRunId: b.id, maxPageSize: 1000 }, { signal }));
    if (runs.every((r) => r.batchProcessorRunId === b.id)) return runs;
  } catch (e) {
    if (!(isApiError(e) && e.kind === 'http' && e.status === 400)) throw e;
  }
  const runs = await collect(client.processorRuns.listAll({ sourceId: b.sourceId, processorId: b.processorId }, { signal }));
  return runs.filter((r) =>
    r.batchProcessorRunId ? r.batchProcessorRunId === b.id : r.processorVersionId === b.processorVersionId && String(r.createdAt ?? '') >= b.createdAt,
  );
}

/** Pairs, builds the export and reports what did not pair. */
export async function exportFromRuns(
  client: Client,
  p: {
    version: ProcessorVersion;
    items: EvalItem[];
    runs: ProcessorRun[];
    options: ExportOptions;
    evaluationSetId: string;
    batch?: BatchProcessorRun;
    config?: Record<string, unknown>;
    signal?: AbortSignal;
  },
  notice: (m: string) => void,
): Promise<EvaluationExport> {
  const paired = pairRuns(p.items, p.runs);
  if (paired.missing.length) {
    const shown = paired.missing.slice(0, 5).map((i) => i.id).join(', ');
    notice(`${paired.missing.length} item${paired.missing.length === 1 ? ' has' : 's have'} no run (${shown}${paired.missing.length > 5 ? ', ...' : ''}); exported as FAILED with failureReason NO_RUN (items added after the run?)`);
  }
  if (paired.orphanRuns.length) {
    notice(`${paired.orphanRuns.length} run${paired.orphanRuns.length === 1 ? '' : 's'} match no item of the set (items deleted since?); left out of the export`);
  }
  const name = await processorName(client, p.version.processorId, p.version.processorType, [p.batch?.processorName, ...p.runs.map((r) => r.processorName)], p.signal);
  return buildExport({
    version: p.version,
    name,
    config: p.config,
    options: p.options,
    items: paired.items,
    evaluationSetId: p.evaluationSetId,
    batchProcessorRunId: p.batch?.id,
  });
}

/**
 * `evalkit eval export --batch-run ID`. On a 2026-02-09 client (the default) the evaluation run is
 * an evaluation set run: exportEvaluationSetRun, as runEvaluation takes the evaluation set run.
 */
export async function exportBatchRun(client: Client, id: string, opts: ExportBatchRunOptions = {}, cb: EvalCallbacks = {}): Promise<EvalResult> {
  // Loaded when used: run-2026.ts builds on this module.
  if (speaks2026(client.options.apiVersion)) return (await import('./run-2026.js')).exportEvaluationSetRun(client, id, opts, cb);
  return whileNotAborted(cb.signal, () => exportBatch(client, id, opts, cb));
}

/** An abort surfaces from whichever request was in flight; say plainly that the user stopped it. */
export async function whileNotAborted<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (signal?.aborted && !(e instanceof InterruptedError)) throw new InterruptedError('interrupted; nothing was written');
    throw e;
  }
}

/**
 * The prologue both exports of a run by id share (a 2025-04-21 batch processor run, a 2026-02-09
 * evaluation set run): the notices, the run read (a 404 is the user's id: exit 2), checked, and,
 * while it has not ended, waited for with --wait or refused (exit 2) without.
 */
export async function endedRunById<R extends { status: string }>(
  cb: EvalCallbacks,
  wait: boolean | undefined,
  run: { what: string; id: string; flag: string; get: () => Promise<R>; check?: (r: R) => void; waitFor: (r: R, started: number) => Promise<R> },
): Promise<{ run: R; started: number; notices: string[]; notice: (m: string) => void }> {
  const started = performance.now();
  const notices: string[] = [];
  const notice = (m: string): void => {
    notices.push(m);
    cb.onNotice?.(m);
  };
  let r = await run.get().catch(notFoundAs<R>(run.what, run.id, run.flag));
  run.check?.(r);
  if (r.status === 'PENDING' || r.status === 'PROCESSING') {
    if (!wait) throw new EvalkitError(`${run.what} ${run.id} is still ${r.status}`, { exitCode: 2, hint: 'wait until it ends, or add --wait to wait for it' });
    r = await run.waitFor(r, started);
  }
  return { run: r, started, notices, notice };
}

async function exportBatch(client: Client, id: string, opts: ExportBatchRunOptions, cb: EvalCallbacks): Promise<EvalResult> {
  const { signal } = cb;
  if (id.trim() === '') throw new UsageError('--batch-run must not be empty', { hint: 'pass the id of a batch processor run, such as bpr_123' });
  const { run: b, started, notices, notice } = await endedRunById(cb, opts.wait, {
    what: 'batch processor run', id, flag: '--batch-run',
    get: () => client.batchProcessorRuns.get(id, { signal }),
    check: (x) => {
      if (x.source !== 'EVAL_SET') throw new InputError(`batch processor run ${id} has source ${x.source}, not EVAL_SET: it did not run an evaluation set`, { hint: 'pass the id of an evaluation run' });
    },
    waitFor: (x, t0) => waitForBatch(client, x, opts, signal, (y) => cb.onProgress?.(batchProgress(y, 'wait', t0))),
  });
  const evaluationSetId = b.sourceId;
  cb.onProgress?.(batchProgress(b, 'collect', started));
  const [version, items, runs] = await Promise.all([
    client.processors.getVersion(b.processorId, b.processorVersionId, { signal }).catch(notFoundAs<ProcessorVersion>('processor version', b.processorVersionId, 'the batch run (its processor version)')),
    loadItems(client, evaluationSetId, signal).catch(notFoundAs<EvalItem[]>('evaluation set', evaluationSetId, 'the batch run (its evaluation set)')),
    listBatchRuns(client, b, signal),
  ]);
  const exp = await exportFromRuns(
    client,
    { version, items, runs, options: exportOptions(b.options?.fuzzyMatchFields, b.options?.excludeFields), evaluationSetId, batch: b, signal },
    notice,
  );
  const counts = countItems(exp.items);
  const elapsedMs = performance.now() - started;
  cb.onProgress?.({ strategy: 'batch', phase: 'done', total: counts.items, created: b.runCount, ended: counts.items, processed: counts.processed, failed: counts.failed, elapsedMs, batchRunId: id, status: b.status });
  const result: EvalResult = { export: exp, strategy: 'batch', batchRunId: id, counts, elapsedMs, notices };
  await cb.onResult?.(result);
  return result;
}

export function batchProgress(b: BatchProcessorRun, phase: 'wait' | 'collect', started: number): EvalProgress {
  const ended = phase === 'collect' ? b.runCount : (b.endedRunCount ?? null);
  return { strategy: 'batch', phase, total: b.runCount, created: b.runCount, ended, processed: null, failed: null, elapsedMs: performance.now() - started, batchRunId: b.id, status: b.status };
}

/** Waits for a batch to end; a timeout becomes an error that says how to get the export later. */
export async function waitForBatch(
  client: Client,
  b: BatchProcessorRun,
  /** `budgetMs`: the whole evaluation's timeout, named in the error (timeoutMs may be what is left of it). */
  opts: { timeoutMs?: number; budgetMs?: number; pollIntervalMs?: number; maxPollIntervalMs?: number },
  signal: AbortSignal | undefined,
  onPoll: (b: BatchProcessorRun) => void,
): Promise<BatchProcessorRun> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = withDeadline(signal, timeoutMs);
  try {
    return await client.batchProcessorRuns.waitFor(b.id, { timeoutMs, signal: deadline.signal, onPoll, intervalMs: opts.pollIntervalMs, maxIntervalMs: opts.maxPollIntervalMs });
  } catch (e) {
    if (signal?.aborted) throw interruptedWaiting(b.id);
    if ((isApiError(e) && e.kind === 'timeout') || deadline.expired()) {
      throw new EvalkitError(`batch processor run ${b.id} did not finish within ${seconds(opts.budgetMs ?? timeoutMs)}; nothing was written`, {
        exitCode: 2,
        hint: `it keeps running on the service: write its export later with \`evalkit eval export --batch-run ${b.id} --wait\`, or raise --timeout`,
        cause: e,
      });
    }
    throw e;
  }
}

/** Stopped while a batch runs: it goes on on the service and can be exported later. */
export function interruptedWaiting(batchId: string): InterruptedError {
  return new InterruptedError(`interrupted; batch processor run ${batchId} keeps running on the service; nothing was written`, `write its export later with \`evalkit eval export --batch-run ${batchId} --wait\``);
}

/** How long past the deadline the last poll (made at the deadline itself) may take to answer. */
const DEADLINE_GRACE_MS = 1000;

/**
 * The caller's signal, also aborted when `ms` (and a second's grace) have passed: handed to the
 * polls, so that a request that hangs ends at --timeout instead of at the client's own timeout.
 * `expired()` tells a deadline from the caller's abort.
 */
export function withDeadline(signal: AbortSignal | undefined, ms: number): { signal: AbortSignal; expired: () => boolean } {
  const deadline = AbortSignal.timeout(Math.ceil(Math.max(1, ms) + DEADLINE_GRACE_MS));
  return { signal: signal ? AbortSignal.any([signal, deadline]) : deadline, expired: () => deadline.aborted && !signal?.aborted };
}

export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
