/**
 * The per-item strategy: one processor run per evaluation set item, created and polled with
 * p-limit concurrency (`concurrency` runs in flight at once), each polled with growing pauses
 * by `processorRuns.waitFor`, under one overall deadline. Used where the service cannot start
 * an evaluation run itself (the real 2025-04-21 service has no public endpoint for it) and for
 * config overrides, which only a processor run accepts.
 *
 * Every item ends up in the result: PROCESSED with its output, or with output null and a
 * failureReason (the service's, RUN_NOT_CREATED, POLL_FAILED or TIMEOUT). Errors that are not
 * about one item (the token, the processor, the network) stop the evaluation instead.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { Client, ProcessorRun, ProcessorVersion } from '../api/index.js';
import { isApiError, pauseBeforeReadBack } from '../api/index.js';
import type { ExportItem } from '../metrics/generated/export.js';
import { EvalkitError } from '../util/errors.js';
import { seconds as secs, withDeadline } from './export.js';
import { exportItem, TIMEOUT_REASON } from './pair.js';
import { InterruptedError, type EvalItem, type EvalProgress } from './types.js';

export interface PerItemInput {
  items: readonly EvalItem[];
  version: ProcessorVersion;
  evaluationSetId: string;
  /** The override in the layout the service is spoken to in. */
  config?: Record<string, unknown>;
  priority?: number;
  concurrency: number;
  /** performance.now() value after which no run is created and waiting stops. */
  deadline: number;
  timeoutMs: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  signal?: AbortSignal;
  onProgress: (p: Omit<EvalProgress, 'strategy' | 'elapsedMs'>) => void;
  /**
   * The key and start (epoch ms, with the clock skew taken off) of these runs; default a new
   * random key, now. `resume`: a stopped evaluation's key: its runs are looked for first and
   * the items that have one are not created again.
   */
  key?: string;
  since?: number;
  resume?: boolean;
}

export interface PerItemResult {
  items: ExportItem[];
  /** The runs as created (they carry the processor's name). */
  runs: ProcessorRun[];
  /** Runs of a stopped evaluation that were taken up (resume) instead of created. */
  reused: number;
}

/** Failures of one create call that say nothing about the other items. */
function itemLevel(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.kind === 'timeout') return true;
  return e.kind === 'http' && e.status !== null && (e.status === 400 || e.status === 422 || e.status === 408 || e.status === 429 || e.status >= 500);
}

/** Only the token or access can stop polling for everyone; anything else concerns one run. */
function fatalWhilePolling(e: unknown): boolean {
  return !isApiError(e) || (e.kind === 'http' && (e.status === 401 || e.status === 403)) || e.kind === 'invalid-response';
}

/** How far back (by the service's createdAt) a lost create's run is looked for: clocks may disagree by this much. */
export const READ_BACK_SKEW_MS = 15 * 60_000;

export async function runPerItem(client: Client, input: PerItemInput): Promise<PerItemResult> {
  const { items, version, signal } = input;
  // Names this evaluation's runs in their metadata, so a run whose create answer was lost is found again.
  const key = input.key ?? randomUUID();
  const since = input.since ?? Date.now() - READ_BACK_SKEW_MS;
  const stop = new AbortController();
  // Every run in flight listens on stop.signal (its request, its poll's sleep) and removes its
  // listeners when done: at --concurrency 11 or more that is not a leak, but Node warns of one.
  setMaxListeners(0, stop.signal);
  const onAbort = (): void => stop.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });

  const results: Array<ExportItem | undefined> = new Array<ExportItem | undefined>(items.length).fill(undefined);
  const runs: ProcessorRun[] = [];
  let fatal: unknown;
  let created = 0;
  let processed = 0;
  let failed = 0;
  let notCreated = 0;
  let firstCreateError: unknown;
  const emit = (): void => input.onProgress({ phase: 'wait', total: items.length, created, ended: processed + failed, processed, failed });
  const settle = (i: number, item: ExportItem): void => {
    results[i] = item;
    if (item.status === 'PROCESSED') processed++;
    else failed++;
    emit();
  };

  /** This evaluation's run of the item, if the service holds one (newest first, back to `since`). */
  const findRun = async (item: EvalItem): Promise<ProcessorRun | undefined> => {
    const runs = client.processorRuns.listAll({ processorId: version.processorId, sortBy: 'createdAt', sortDir: 'desc', maxPageSize: 100 }, { signal: stop.signal });
    for await (const r of runs) {
      if (r.metadata?.evalkitRunKey === key && r.metadata.evaluationSetItemId === item.id) return r;
      const at = Date.parse(String(r.createdAt ?? ''));
      if (!Number.isNaN(at) && at < since) return undefined;
    }
    return undefined;
  };

  /** A stopped evaluation's runs (resume): one list of the processor's runs, newest first, back to `since`. */
  const earlier = new Map<string, ProcessorRun>();
  if (input.resume) {
    for await (const r of client.processorRuns.listAll({ processorId: version.processorId, sortBy: 'createdAt', sortDir: 'desc', maxPageSize: 100 }, { signal: stop.signal })) {
      const at = Date.parse(String(r.createdAt ?? ''));
      if (!Number.isNaN(at) && at < since) break;
      const itemId = r.metadata?.evaluationSetItemId;
      if (r.metadata?.evalkitRunKey === key && typeof itemId === 'string' && !earlier.has(itemId)) earlier.set(itemId, r);
    }
  }

  /** POST /processor_runs, never sent twice blindly: after a lost answer the run is looked for first. */
  const createRun = async (item: EvalItem): Promise<ProcessorRun> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.processorRuns.create(
          {
            processorId: version.processorId,
            file: { fileId: item.fileId },
            // The resolved label, so a version published meanwhile does not mix into this evaluation.
            version: version.version,
            ...(input.priority !== undefined ? { priority: input.priority } : {}),
            ...(input.config ? { config: input.config } : {}),
            metadata: { evaluationSetId: input.evaluationSetId, evaluationSetItemId: item.id, evalkitRunKey: key },
          },
          { signal: stop.signal },
        );
      } catch (e) {
        if (!(isApiError(e) && e.outcomeUnknown) || attempt > client.options.maxRetries) throw e;
        await pauseBeforeReadBack(client, attempt, stop.signal);
        const found = await findRun(item);
        if (found) return found;
      }
    }
  };

  const one = async (item: EvalItem, i: number): Promise<void> => {
    if (stop.signal.aborted) return;
    if (performance.now() >= input.deadline) {
      settle(i, exportItem(item, undefined, { reason: TIMEOUT_REASON, message: `not started: the timeout (${secs(input.timeoutMs)}) passed before its run was created` }));
      return;
    }
    let run: ProcessorRun;
    try {
      run = earlier.get(item.id) ?? (await createRun(item));
    } catch (e) {
      if (stop.signal.aborted) return;
      if (!itemLevel(e)) {
        fatal ??= e;
        stop.abort(e);
        return;
      }
      notCreated++;
      firstCreateError ??= e;
      settle(i, exportItem(item, undefined, { reason: 'RUN_NOT_CREATED', message: (e as Error).message }));
      return;
    }
    created++;
    runs.push(run);
    emit();
    let last = run;
    const left = Math.max(0, input.deadline - performance.now());
    // A poll that hangs ends at the deadline too, not at the client's own request timeout.
    const deadline = withDeadline(stop.signal, left);
    try {
      last = await client.processorRuns.waitFor(run.id, {
        timeoutMs: left,
        signal: deadline.signal,
        intervalMs: input.pollIntervalMs,
        maxIntervalMs: input.maxPollIntervalMs,
        onPoll: (r) => (last = r),
      });
      settle(i, exportItem(item, last));
    } catch (e) {
      if (stop.signal.aborted) return;
      if ((isApiError(e) && e.kind === 'timeout') || deadline.expired()) {
        settle(i, exportItem(item, last, { reason: TIMEOUT_REASON, message: `still ${last.status} when the timeout (${secs(input.timeoutMs)}) passed; the run goes on on the service` }));
      } else if (fatalWhilePolling(e)) {
        fatal ??= e;
        stop.abort(e);
      } else settle(i, exportItem(item, last, { reason: 'POLL_FAILED', message: (e as Error).message }));
    }
  };

  const limit = pLimit(input.concurrency);
  emit();
  try {
    await Promise.all(items.map((item, i) => limit(one, item, i)));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }

  const left = created > 0 ? `; ${created} run${created === 1 ? '' : 's'} already created keep going on the service` : '';
  const complete = results.every((r) => r !== undefined);
  if (signal?.aborted && !complete) throw new InterruptedError(`interrupted${left}; nothing was written`, 'run the evaluation again when you are ready');
  if (fatal !== undefined) {
    if (fatal instanceof EvalkitError && created > 0) {
      throw new EvalkitError(`${fatal.message}${left}; nothing was written`, { exitCode: fatal.exitCode, hint: fatal.hint, cause: fatal });
    }
    throw fatal;
  }
  if (notCreated === items.length) {
    const e = firstCreateError as EvalkitError;
    throw new EvalkitError(`no run could be created (${items.length} tried); nothing was written: ${e.message}`, {
      exitCode: 2,
      hint: e.hint ?? 'check the processor, its version and the --config override against the service',
      cause: e,
    });
  }
  return { items: results as ExportItem[], runs, reused: earlier.size };
}
