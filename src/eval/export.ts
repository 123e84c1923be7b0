/**
 * The export of a batch processor run: its runs, paired with the evaluation set's items.
 * `exportBatchRun(client, id)` is `evalkit eval export --batch-run ID`; `runEvaluation` uses
 * the same pieces once its batch has ended.
 */
import type { BatchProcessorRun, Client, EvaluationSetItem, ProcessorRun, ProcessorVersion } from '../api/index.js';
import { collect, isApiError } from '../api/index.js';
import type { EvaluationExport, ExportItem, ExportOptions } from '../metrics/generated/export.js';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import { pairRuns } from './pair.js';
import { loadItems, notFoundAs, processorName, toHubConfig } from './resolve.js';
import { DEFAULT_TIMEOUT_MS, type EvalCallbacks, type EvalCounts, type EvalResult, type ExportBatchRunOptions } from './types.js';

export function countItems(items: readonly ExportItem[]): EvalCounts {
  let processed = 0;
  for (const i of items) if (i.status === 'PROCESSED') processed++;
  return { items: items.length, processed, failed: items.length - processed };
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
    items: p.items,
  };
}

/**
 * The runs of a batch processor run. `batchProcessorRunId` is a filter of the sandbox; a service
 * that ignores it answers with other runs too, so then the set's runs (`sourceId`) are read and
 * narrowed to this batch: by `batchProcessorRunId` when runs carry it, else by version and
 * creation time.
 */
export async function listBatchRuns(client: Client, b: BatchProcessorRun, signal?: AbortSignal): Promise<ProcessorRun[]> {
  try {
    const runs = await collect(client.processorRuns.listAll({ batchProcessorRunId: b.id }, { signal }));
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
    items: EvaluationSetItem[];
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

/** `evalkit eval export --batch-run ID`. */
export async function exportBatchRun(client: Client, id: string, opts: ExportBatchRunOptions = {}, cb: EvalCallbacks = {}): Promise<EvalResult> {
  const started = performance.now();
  const { signal } = cb;
  const notices: string[] = [];
  const notice = (m: string): void => {
    notices.push(m);
    cb.onNotice?.(m);
  };
  if (id.trim() === '') throw new UsageError('--batch-run must not be empty', { hint: 'pass the id of a batch processor run, such as batch_123' });
  let b = await client.batchProcessorRuns.get(id, { signal }).catch(notFoundAs<BatchProcessorRun>('batch processor run', id, '--batch-run'));
  if (b.source !== 'EVAL_SET') {
    throw new InputError(`batch processor run ${id} has source ${b.source}, not EVAL_SET: it did not run an evaluation set`, { hint: 'pass the id of an evaluation run' });
  }
  const progress = (status: string, ended: number): void =>
    cb.onProgress?.({ strategy: 'batch', phase: 'wait', total: b.runCount, created: b.runCount, ended, processed: 0, failed: 0, elapsedMs: performance.now() - started, batchRunId: id, status });
  if (b.status === 'PENDING' || b.status === 'PROCESSING') {
    if (!opts.wait) {
      throw new EvalkitError(`batch processor run ${id} is still ${b.status}`, { exitCode: 2, hint: `wait until it is PROCESSED, or add --wait to wait for it` });
    }
    b = await waitForBatch(client, b, opts, signal, (x) => progress(x.status, 0));
  }
  const evaluationSetId = b.sourceId;
  cb.onProgress?.({ strategy: 'batch', phase: 'collect', total: b.runCount, created: b.runCount, ended: b.runCount, processed: 0, failed: 0, elapsedMs: performance.now() - started, batchRunId: id, status: b.status });
  const [version, items, runs] = await Promise.all([
    client.processors.getVersion(b.processorId, b.processorVersionId, { signal }).catch(notFoundAs<ProcessorVersion>('processor version', b.processorVersionId, 'the batch run (its processor version)')),
    loadItems(client, evaluationSetId, signal).catch(notFoundAs<EvaluationSetItem[]>('evaluation set', evaluationSetId, 'the batch run (its evaluation set)')),
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
  return { export: exp, strategy: 'batch', batchRunId: id, counts, elapsedMs, notices };
}

/** Waits for a batch to end; a timeout becomes an error that says how to get the export later. */
export async function waitForBatch(
  client: Client,
  b: BatchProcessorRun,
  opts: { timeoutMs?: number; pollIntervalMs?: number; maxPollIntervalMs?: number },
  signal: AbortSignal | undefined,
  onPoll: (b: BatchProcessorRun) => void,
): Promise<BatchProcessorRun> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    return await client.batchProcessorRuns.waitFor(b.id, { timeoutMs, signal, onPoll, intervalMs: opts.pollIntervalMs, maxIntervalMs: opts.maxPollIntervalMs });
  } catch (e) {
    if (isApiError(e) && e.kind === 'timeout') {
      throw new EvalkitError(`batch processor run ${b.id} did not finish within ${Math.round(timeoutMs / 1000)} s; nothing was written`, {
        exitCode: 2,
        hint: `it keeps running on the service: write its export later with \`evalkit eval export --batch-run ${b.id} --wait\`, or raise --timeout`,
        cause: e,
      });
    }
    throw e;
  }
}
