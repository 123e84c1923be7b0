/**
 * `evalkit eval run`: resolve the set, its items and the processor version, make the runs (one
 * batch processor run, or one processor run per item; see Strategy), wait for them, and build
 * the evaluation export. Writing the file is the caller's (writeExport), so a library user can
 * keep the export in memory.
 */
import { randomUUID } from 'node:crypto';
import type { BatchProcessorRun, Client, CreateBatchProcessorRunInput, ProcessorType, ProcessorVersion } from '../api/index.js';
import { isApiError, lostAnswerError, paginate, pauseBeforeReadBack, speaks2026 } from '../api/index.js';
import { configFromEnvelope } from '../expected/index.js';
import { UsageError } from '../util/errors.js';
import { batchProgress, buildExport, countItems, exportFromRuns, exportOptions, listBatchRuns, waitForBatch, whileNotAborted } from './export.js';
import { configHash, forgetInFlight, inFlightPath, readPerItemRecord, recordPerItem, serviceOf, type PerItemRecord } from './inflight.js';
import { READ_BACK_SKEW_MS, runPerItem } from './per-item.js';
import { checkOptions2026, runEvaluation2026, usesSetRun } from './run-2026.js';
import { loadItems, loadSet, prepareOverride, processorName, refuseUnknownKeys, resolveVersion } from './resolve.js';
import { loadItems2026, loadSet2026 } from './set-2026.js';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS, type EvalCallbacks, type EvalProgress, type EvalResult, type RunEvaluationOptions, type Strategy } from './types.js';

function checkOptions(o: RunEvaluationOptions): void {
  if (o.concurrency !== undefined && !(Number.isInteger(o.concurrency) && o.concurrency >= 1 && o.concurrency <= 256)) {
    throw new UsageError(`--concurrency must be an integer from 1 to 256, not ${o.concurrency}`);
  }
  if (o.priority !== undefined && !(Number.isInteger(o.priority) && o.priority >= 1 && o.priority <= 100)) {
    throw new UsageError(`--priority must be an integer from 1 to 100 (lower is served first), not ${o.priority}`);
  }
  if (o.timeoutMs !== undefined && !(Number.isFinite(o.timeoutMs) && o.timeoutMs > 0)) throw new UsageError('--timeout must be a positive duration');
  if (o.strategy !== undefined && !['auto', 'batch', 'per-item'].includes(o.strategy)) {
    throw new UsageError(`--strategy must be auto, batch or per-item, not "${String(o.strategy)}"`);
  }
  for (const [flag, list] of [['--fuzzy-match-fields', o.fuzzyMatchFields], ['--exclude-fields', o.excludeFields]] as const) {
    if (list?.some((f) => f.trim() === '')) throw new UsageError(`${flag}: a field path is empty`, { hint: 'give comma-separated paths such as total,line_items[].amount' });
  }
}

/** 404/405: the service has no POST /batch_processor_runs (only the sandbox has it). */
function noBatchEndpoint(e: unknown): boolean {
  return isApiError(e) && e.kind === 'http' && (e.status === 404 || e.status === 405);
}

/** The set's evaluation runs of this processor; undefined where the service cannot list them (no batch endpoint). */
async function batchRunsOf(client: Client, setId: string, processorId: string, signal?: AbortSignal): Promise<BatchProcessorRun[] | undefined> {
  const out: BatchProcessorRun[] = [];
  try {
    for await (const b of paginate((t) => client.batchProcessorRuns.list({ sourceId: setId, processorId, nextPageToken: t }, { signal }), { signal })) out.push(b);
  } catch (e) {
    if (noBatchEndpoint(e)) return undefined;
    throw e;
  }
  return out;
}

/**
 * POST /batch_processor_runs, never sent twice blindly: after a lost answer the set's evaluation
 * runs are listed again, and one of this version that was not there before is the one it made.
 */
async function startBatch(client: Client, body: CreateBatchProcessorRunInput, version: ProcessorVersion, signal?: AbortSignal): Promise<BatchProcessorRun> {
  const before = await batchRunsOf(client, body.evaluationSetId, version.processorId, signal);
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.batchProcessorRuns.create(body, { signal });
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      const hint = `list the set's evaluation runs (GET /batch_processor_runs?sourceId=${body.evaluationSetId}) before running the evaluation again`;
      if (before === undefined) throw lostAnswerError(e, `an evaluation run of ${body.evaluationSetId} may have been started`, hint);
      await pauseBeforeReadBack(client, attempt, signal);
      const fresh = ((await batchRunsOf(client, body.evaluationSetId, version.processorId, signal)) ?? []).filter((b) => b.processorVersionId === version.id && !before.some((o) => o.id === b.id));
      if (fresh.length === 1) return fresh[0];
      if (fresh.length > 1) throw lostAnswerError(e, `${fresh.length} evaluation runs of ${body.evaluationSetId} on ${version.version} started during this run (${fresh.map((b) => b.id).join(', ')}): this run's lost answers, or someone else's`, hint);
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no evaluation run of ${body.evaluationSetId} was started (the list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

/**
 * The record of per-item runs (2026-02-09) of this set, version, items and config: a stopped
 * `eval run`'s, to go on with (its runs carry its evalkitRunKey), or a new one written before any
 * run is created. A record of another config (a draft edited since, another --config) is replaced.
 */
async function perItemResume(
  client: Client,
  p: { set: string; version: ProcessorVersion; itemIds: string[]; sent: unknown },
  notice: (m: string) => void,
): Promise<{ file: string; rec: PerItemRecord; resumed: boolean }> {
  const hash = configHash(p.sent);
  const file = inFlightPath({ baseUrl: client.options.baseUrl, evaluationSetId: p.set, entityId: p.version.processorId, version: p.version.version, itemIds: p.itemIds, variant: 'per-item' });
  const old = await readPerItemRecord(file);
  if (old && old.configHash === hash) {
    notice(`going on with the per-item runs of an eval run of this set and version started ${old.startedAt} that was stopped: runs it created are not created again`);
    return { file, rec: old, resumed: true };
  }
  if (old) notice(`the per-item runs of a stopped eval run (started ${old.startedAt}) ran another config (the draft or --config changed since); starting a new evaluation`);
  const rec: PerItemRecord = {
    kind: 'per-item', evalkitRunKey: randomUUID(), since: Date.now() - READ_BACK_SKEW_MS, evaluationSetId: p.set, entityId: p.version.processorId,
    version: p.version.version, startedAt: new Date().toISOString(), configHash: hash, service: serviceOf(client.options.baseUrl),
  };
  try {
    await recordPerItem(file, rec);
  } catch (e) {
    notice(`cannot record the per-item runs in ${file} (${e instanceof Error ? e.message : String(e)}): if this command is stopped, running it again creates every run again`);
  }
  return { file, rec, resumed: false };
}

export async function runEvaluation(client: Client, opts: RunEvaluationOptions, cb: EvalCallbacks = {}): Promise<EvalResult> {
  checkOptions(opts);
  // A typo in the override would reach every run, which would not apply it: refused before any request.
  if (opts.config && !opts.allowUnknown) refuseUnknownKeys(opts.config, opts.configFile ?? '--config');
  if (speaks2026(client.options.apiVersion)) {
    checkOptions2026(opts);
    if (usesSetRun(opts)) return runEvaluation2026(client, opts, cb);
  }
  return whileNotAborted(cb.signal, () => evaluate(client, opts, cb));
}

async function evaluate(client: Client, opts: RunEvaluationOptions, cb: EvalCallbacks): Promise<EvalResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = started + timeoutMs;
  const { signal } = cb;
  const notices: string[] = [];
  const notice = (m: string): void => {
    notices.push(m);
    cb.onNotice?.(m);
  };
  const requested = opts.strategy ?? 'auto';
  if (opts.config && requested === 'batch') {
    throw new UsageError('--config cannot be used with --strategy batch: the batch endpoint takes no config override', {
      hint: 'drop --strategy (auto) or use --strategy per-item: the override is then sent with each processor run',
    });
  }
  const report = (p: Omit<EvalProgress, 'elapsedMs'>): void =>
    cb.onProgress?.({ ...p, elapsedMs: performance.now() - started });
  report({ strategy: requested === 'per-item' || opts.config ? 'per-item' : 'batch', phase: 'start', total: 0, created: 0, ended: 0, processed: 0, failed: 0 });

  // On 2026-02-09 the set and its items are read on its routes (expected outputs turned into the
  // 2025-04-21 form, the form /processor_runs answers in), the version on the legacy /processors.
  const on2026 = speaks2026(client.options.apiVersion);
  if (on2026 && opts.evaluationSetId.trim() === '') throw new UsageError('--evaluation-set must not be empty', { hint: 'pass the id of an evaluation set, such as ev_123' });
  const set = on2026 ? await loadSet2026(client, opts.evaluationSetId, '--evaluation-set', signal) : await loadSet(client, opts.evaluationSetId, signal);
  const [items, version] = await Promise.all([
    on2026 ? loadItems2026(client, set.id, (set as { type: ProcessorType }).type, signal, opts.concurrency ?? DEFAULT_CONCURRENCY) : loadItems(client, set.id, signal),
    resolveVersion(client, set.entityId, opts.version ?? 'latest', signal),
  ]);
  if (items.length === 0) {
    throw new UsageError(`evaluation set ${set.id} has no items; nothing to evaluate`, { hint: 'add items first, for example with `evalkit dataset upload data.csv --evaluation-set ' + set.id + '`' });
  }
  const type = version.processorType;
  let override: { send: Record<string, unknown>; hub: Record<string, unknown> } | undefined;
  if (opts.config) {
    const file = opts.configFile ?? '--config';
    const src = configFromEnvelope(opts.config, file, type);
    // Again with the processor's type, for a file that did not settle it (before any run is made).
    if (!opts.allowUnknown) refuseUnknownKeys(opts.config, file, type);
    override = prepareOverride(src.config, type, client.options.apiVersion, file);
  }
  const options = exportOptions(opts.fuzzyMatchFields, opts.excludeFields);

  let batch: BatchProcessorRun | undefined;
  let strategy: Strategy = 'per-item';
  if (override) {
    if (requested === 'auto') notice(`--config: one processor run per item, each with the override (the ${on2026 ? 'evaluation set run' : 'batch endpoint'} takes no config)`);
  } else if (requested !== 'per-item') {
    try {
      batch = await startBatch(
        client,
        { evaluationSetId: set.id, version: version.version, options: { ...options }, ...(opts.priority !== undefined ? { priority: opts.priority } : {}) },
        version,
        signal,
      );
      strategy = 'batch';
    } catch (e) {
      if (!noBatchEndpoint(e)) throw e;
      if (requested === 'batch') {
        throw new UsageError(`the service has no POST /batch_processor_runs (${(e as { status: number }).status}); --strategy batch needs the sandbox`, {
          hint: 'use --strategy per-item (or auto), which makes one processor run per item',
        });
      }
      notice(`the service cannot start evaluation runs (POST /batch_processor_runs: ${(e as { status: number }).status}); making one processor run per item instead`);
    }
  }

  if (batch) {
    const b = batch;
    const ended = await waitForBatch(client, b, { timeoutMs: Math.max(1, deadline - performance.now()), budgetMs: timeoutMs, pollIntervalMs: opts.pollIntervalMs, maxPollIntervalMs: opts.maxPollIntervalMs }, signal, (x) =>
      cb.onProgress?.(batchProgress(x, 'wait', started)),
    );
    cb.onProgress?.(batchProgress(ended, 'collect', started));
    const runs = await listBatchRuns(client, ended, signal);
    const batchVersion: ProcessorVersion = ended.processorVersionId === version.id ? version : await client.processors.getVersion(ended.processorId, ended.processorVersionId, { signal });
    const exp = await exportFromRuns(client, { version: batchVersion, items, runs, options, evaluationSetId: set.id, batch: ended, signal }, notice);
    return settle(finish(exp, 'batch', ended.id));
  }

  // On 2026-02-09 the same command run again after a kill or Ctrl-C goes on with the runs it made (inflight.ts).
  const resume = on2026 ? await perItemResume(client, { set: set.id, version, itemIds: items.map((i) => i.id), sent: override?.send ?? version.config }, notice) : undefined;
  const done = await runPerItem(client, {
    items,
    version,
    evaluationSetId: set.id,
    config: override?.send,
    priority: opts.priority,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    deadline,
    timeoutMs,
    pollIntervalMs: opts.pollIntervalMs,
    maxPollIntervalMs: opts.maxPollIntervalMs,
    signal,
    onProgress: (p) => report({ ...p, strategy: 'per-item' }),
    ...(resume ? { key: resume.rec.evalkitRunKey, since: resume.rec.since, resume: resume.resumed } : {}),
  });
  if (resume?.resumed) notice(`${done.reused} of ${items.length} item run${items.length === 1 ? '' : 's'} taken up from the stopped eval run (not created again)`);
  const name = await processorName(client, version.processorId, type, done.runs.map((r) => r.processorName), signal);
  const exp = buildExport({ version, name, config: override?.hub, options, items: done.items, evaluationSetId: set.id });
  // The export is the caller's first (onResult), the record gone after: a failed write can be run again.
  return settle(finish(exp, strategy, null), resume?.file);

  async function settle(result: EvalResult, record?: string): Promise<EvalResult> {
    await cb.onResult?.(result);
    if (record) await forgetInFlight(record);
    return result;
  }

  function finish(exp: EvalResult['export'], s: Strategy, batchRunId: string | null): EvalResult {
    const counts = countItems(exp.items);
    const elapsedMs = performance.now() - started;
    cb.onProgress?.({ strategy: s, phase: 'done', total: counts.items, created: counts.items, ended: counts.items, processed: counts.processed, failed: counts.failed, elapsedMs, batchRunId: batchRunId ?? undefined });
    if (counts.timedOut > 0) notice(`${counts.timedOut} item${counts.timedOut === 1 ? '' : 's'} had not finished when the timeout passed; exported with failureReason TIMEOUT`);
    return { export: exp, strategy: s, batchRunId, counts, elapsedMs, notices, ...(override ? { configFile: opts.configFile ?? '--config' } : {}) };
  }
}
