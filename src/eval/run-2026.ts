/**
 * `eval run` and `eval export` on API version 2026-02-09: the service's evaluation set run
 * (`POST /evaluation_set_runs`, spec 4.1) does the runs and computes its metrics (4.2). evalkit
 * starts it for the set's entity at the version asked, polls it (progress from
 * `metrics.numFilesProcessed / numFilesTotal`), then reads every item's run (the run lists
 * filtered by `batchId` = the evaluation set run id, then each run for its output) and the items'
 * expected outputs into the same export items as the 2025-04-21 path, and records the service's
 * run in the export's `service` member as answered.
 */
import type { Client, EvaluationSetRun, ProcessorRun, ProcessorType, ProcessorVersion } from '../api/index.js';
import { isApiError, lostAnswerError, typeOfId } from '../api/index.js';
import type { EvaluationExport, ExportServiceRun } from '../metrics/generated/export.js';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import { isPlainObject, stableStringify } from '../util/json.js';
import { paginate, pauseBeforeReadBack } from '../api/index.js';
import { buildExport, countItems, endedRunById, exportOptions, seconds, whileNotAborted, withDeadline } from './export.js';
import { configHash, forgetInFlight, forgetRun, inFlightDir, inFlightPath, readInFlight, recordInFlight, serviceOf } from './inflight.js';
import { pairRuns } from './pair.js';
import { readEach } from './reads.js';
import { notFoundAs, pickVersion, normalizeVersionRef } from './resolve.js';
import { listItemIds2026, loadItems2026, loadSet2026, type Set2026 } from './set-2026.js';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS, InterruptedError, type EvalCallbacks, type EvalItem, type EvalProgress, type EvalResult, type ExportBatchRunOptions, type RunEvaluationOptions } from './types.js';

type Json = Record<string, unknown>;

const RUN_ID_OF_TYPE: Readonly<Record<ProcessorType, string>> = { EXTRACT: 'an extract run id', CLASSIFY: 'a classify run id', SPLITTER: 'a split run id' };

/**
 * What an id that is no evaluation set run is (by its prefix, spec 1.4), for exit 2 before any
 * request; undefined when the prefix says nothing (the service decides).
 */
export function wrongRunIdKind(id: string): string | undefined {
  if (/^(bpr|eval_set_run)_/.test(id)) return undefined;
  if (/^(exr|clr|splr)_/.test(id)) return RUN_ID_OF_TYPE[typeOfId(id) as ProcessorType];
  const known: Array<[RegExp, string]> = [
    [/^dpr_/, 'a processor run id'],
    [/^evi_/, 'an evaluation set item id'],
    [/^ev_/, 'an evaluation set id'],
    [/^(exv|clv|splv|dpv)_/, 'a version id'],
    [/^(ex|cls?|spl|dp)_/, 'an extractor, classifier or splitter id'],
    [/^file_/, 'a file id'],
    [/^workflow_run_/, 'a workflow run id'],
    [/^(workflow|wf)_/, 'a workflow id'],
    [/^batch_/, 'a workflow batch id'],
  ];
  for (const [re, what] of known) if (re.test(id)) return what;
  return undefined;
}

function checkRunId(id: string, flag: string): void {
  if (id.trim() === '') throw new UsageError(`${flag} must not be empty`, { hint: 'pass the id of an evaluation set run, such as bpr_123' });
  const what = wrongRunIdKind(id);
  if (what) {
    throw new UsageError(`${id} is ${what}, not an evaluation set run id (bpr_...)`, {
      hint: 'pass the id POST /evaluation_set_runs answered (`evalkit eval run` prints it), such as bpr_123',
    });
  }
}

/**
 * 2026-02-09 refuses what only the 2025-04-21 paths do; checked before any request. `--config`
 * and `--strategy per-item` are served (run.ts: one legacy processor run per item).
 */
/**
 * Whether an evaluation on 2026-02-09 is the service's evaluation set run; a config override or
 * --strategy per-item is one run per item on the legacy /processor_runs 2026-02-09 kept (docs/eval.md).
 */
export function usesSetRun(o: RunEvaluationOptions): boolean {
  return !o.config && o.strategy !== 'per-item';
}

export function checkOptions2026(o: RunEvaluationOptions): void {
  const keep = 'or run it on 2025-04-21 (--api-version 2025-04-21)';
  if (o.strategy === 'batch') {
    throw new UsageError(`--strategy batch is a 2025-04-21 strategy; on API version 2026-02-09 the service runs the evaluation itself (POST /evaluation_set_runs)`, {
      hint: `drop --strategy (auto picks the evaluation set run; per-item makes one run per item), ${keep}`,
    });
  }
  // The per-item runs go to the legacy /processor_runs, which takes one.
  if (o.priority !== undefined && usesSetRun(o)) {
    throw new UsageError('--priority is not sent to an evaluation set run (API version 2026-02-09): it takes none', { hint: `drop --priority, or pass --strategy per-item (one run per item, each with its priority), ${keep}` });
  }
}

/** An entity version in the ProcessorVersion shape buildExport takes (config in the 2026-02-09 layout: buildExport turns it into 2025-04-21). */
function asProcessorVersion(type: ProcessorType, entityId: string, v: { id: string; version: string; config?: Json }): ProcessorVersion {
  return { id: v.id, processorId: entityId, processorType: type, version: v.version, config: { ...(v.config ?? {}), type } } as unknown as ProcessorVersion;
}

/** The run's objects as the service answered them, with `metrics` absent when missing (a notice says so). */
function serviceRecord(run: EvaluationSetRun, notice: (m: string) => void): ExportServiceRun {
  const rec: ExportServiceRun = { evaluationSetRunId: run.id, status: run.status as ExportServiceRun['status'] };
  if (run.entity) rec.entity = run.entity as Json;
  if (run.entityVersion) rec.entityVersion = run.entityVersion as Json;
  if (run.metrics) rec.metrics = run.metrics as ExportServiceRun['metrics'];
  else notice(`the service's answer for evaluation set run ${run.id} has no metrics; the export records them as absent (report shows evalkit's numbers only)`);
  if (run.options) rec.options = run.options as Json;
  return rec;
}

function progressOf(run: EvaluationSetRun, phase: 'wait' | 'collect', started: number): EvalProgress {
  const m = (run.metrics ?? {}) as { numFilesTotal?: number; numFilesProcessed?: number; numFiles?: number };
  const total = m.numFilesTotal ?? 0;
  const done = m.numFilesProcessed ?? m.numFiles;
  return {
    strategy: 'evaluation-set-run', phase, total, created: total, ended: phase === 'collect' ? total : (done ?? null),
    processed: null, failed: null, elapsedMs: performance.now() - started, batchRunId: run.id, status: run.status,
  };
}

async function waitForRun(client: Client, run: EvaluationSetRun, opts: { timeoutMs: number; budgetMs: number; pollIntervalMs?: number; maxPollIntervalMs?: number }, cb: EvalCallbacks, started: number): Promise<EvaluationSetRun> {
  // A poll that hangs ends at the deadline too, not at the client's own request timeout.
  const deadline = withDeadline(cb.signal, opts.timeoutMs);
  try {
    return await client.evaluationSetRuns.waitFor(run.id, {
      timeoutMs: opts.timeoutMs, signal: deadline.signal, intervalMs: opts.pollIntervalMs, maxIntervalMs: opts.maxPollIntervalMs,
      onPoll: (r) => cb.onProgress?.(progressOf(r, 'wait', started)),
    });
  } catch (e) {
    if (cb.signal?.aborted) {
      throw new InterruptedError(`interrupted; evaluation set run ${run.id} keeps running on the service; nothing was written`, `write its export later with \`evalkit eval export ${run.id} --wait\``);
    }
    if ((isApiError(e) && e.kind === 'timeout') || deadline.expired()) {
      throw new EvalkitError(`evaluation set run ${run.id} did not finish within ${seconds(opts.budgetMs)}; nothing was written`, {
        exitCode: 2,
        hint: `it keeps running on the service: write its export later with \`evalkit eval export ${run.id} --wait\`, or raise --timeout`,
        cause: e,
      });
    }
    throw e;
  }
}

/** The item runs of an evaluation set run, each read in full (list rows carry no output). */
async function itemRuns(client: Client, type: ProcessorType, runId: string, signal?: AbortSignal, width = 8): Promise<ProcessorRun[]> {
  const ops = client.runs(type);
  const ids: string[] = [];
  for await (const r of ops.listAll({ batchId: runId, maxPageSize: 1000 }, { signal })) ids.push(r.id);
  return readEach(ids, width, async (id) => {
    const raw = (await ops.retrieve(id, { signal })).raw;
    // The 2025-04-21 run's members that pairing and export items read: files[], the rest as is.
    const files = Array.isArray(raw.files) ? raw.files : raw.file ? [raw.file] : [];
    return { ...raw, files } as unknown as ProcessorRun;
  }, signal);
}

/**
 * The config the item runs ran, as the service answered it with each run: a draft edited since
 * the run started is not what it evaluated. Undefined (the version's config is recorded) when no
 * run carries one; when they disagree, the version's too, with a note.
 */
function configRun(runs: readonly ProcessorRun[], type: ProcessorType, version: string, notice: (m: string) => void): Json | undefined {
  const configs = runs.map((r) => (r as unknown as { config?: unknown }).config).filter((c): c is Json => isPlainObject(c));
  if (configs.length === 0) return undefined;
  const first = stableStringify(configs[0]);
  if (configs.some((c) => stableStringify(c) !== first)) {
    notice(`the runs of this evaluation ran different configs (the ${version === 'draft' ? 'draft' : `version ${version}`} changed while it ran?); the export records the version's config as it is now`);
    return undefined;
  }
  return { ...configs[0], type };
}

/** Builds the export from an ended evaluation set run; items deleted since are warned about (see docs/eval.md). */
async function exportOf(
  client: Client,
  p: { set: Set2026; run: EvaluationSetRun; items: EvalItem[]; options: ReturnType<typeof exportOptions>; signal?: AbortSignal; width?: number },
  notice: (m: string) => void,
): Promise<EvaluationExport> {
  const { set, run, signal } = p;
  const entityId = (run.entity as { id?: string } | null | undefined)?.id ?? set.entityId;
  const versionId = (run.entityVersion as { id?: string } | null | undefined)?.id;
  const service = serviceRecord(run, notice);
  const ops = client.entities(set.type);
  const [version, runs] = await Promise.all([
    versionId
      ? ops.retrieveVersion(entityId, versionId, { signal }).catch(notFoundAs<never>(`${ops.noun} version`, versionId, 'the evaluation set run (its entity version)'))
      : Promise.resolve({ id: '', version: (run.entityVersion as { version?: string } | undefined)?.version ?? 'draft', config: {} as Json }),
    itemRuns(client, set.type, run.id, signal, p.width),
  ]);
  const paired = pairRuns(p.items, runs);
  if (paired.orphanRuns.length) {
    const named = paired.orphanRuns.map((r) => `${String((r.metadata as Json | null | undefined)?.evaluationSetItemId ?? '?')} (run ${r.id})`);
    const one = named.length === 1;
    notice(
      `${named.length} ${one ? 'run belongs to an item' : 'runs belong to items'} no longer in evaluation set ${set.id}: ${named.slice(0, 5).join(', ')}${named.length > 5 ? ', ...' : ''}; ` +
        `${one ? 'it is' : 'they are'} left out of the export (${one ? 'its expected output is' : 'their expected outputs are'} gone), while the service's metrics still count ${one ? 'it' : 'them'}`,
    );
  }
  if (paired.missing.length) {
    const shown = paired.missing.slice(0, 5).map((i) => i.id).join(', ');
    notice(`${paired.missing.length} item${paired.missing.length === 1 ? ' has' : 's have'} no run in ${run.id} (${shown}${paired.missing.length > 5 ? ', ...' : ''}); exported as FAILED with failureReason NO_RUN (items added after the run?)`);
  }
  const name = (run.entity as { name?: string } | null | undefined)?.name ?? set.entityName;
  return buildExport({
    version: asProcessorVersion(set.type, entityId, version),
    config: configRun(runs, set.type, version.version, notice),
    name,
    options: p.options,
    items: paired.items,
    evaluationSetId: set.id,
    batchProcessorRunId: run.id,
    service,
  });
}

function ended(run: EvaluationSetRun, notice: (m: string) => void): void {
  if (run.status === 'FAILED' || run.status === 'CANCELLED') notice(`evaluation set run ${run.id} ended ${run.status}; the export says so (service.status) and \`evalkit report\` refuses to score it unless --allow-partial`);
}

/**
 * The ids of the set's evaluation runs, where the service lists them: the sandbox serves
 * `GET /batch_processor_runs?sourceId=` (its extension) under both versions and shows every
 * evaluation set run there; the service lists no evaluation set runs (spec 4.1): undefined (404/405).
 */
async function evaluationRunIds(client: Client, setId: string, signal?: AbortSignal): Promise<Set<string> | undefined> {
  const ids = new Set<string>();
  try {
    for await (const b of paginate((t) => client.batchProcessorRuns.list({ sourceId: setId, nextPageToken: t }, { signal }), { signal })) ids.add(b.id);
  } catch (e) {
    if (isApiError(e) && e.kind === 'http' && (e.status === 404 || e.status === 405)) return undefined;
    throw e;
  }
  return ids;
}

/**
 * POST /evaluation_set_runs, never sent twice blindly: after a lost answer the set's evaluation
 * runs are listed again where that is possible, and the one run that was not there before is this
 * one; where the service lists none, the user is asked to look before running again.
 */
async function startRun(client: Client, body: { evaluationSetId: string; entity: { id: string; version: string }; evaluationSetItemIds: string[] }, signal?: AbortSignal): Promise<EvaluationSetRun> {
  const setId = body.evaluationSetId;
  const before = await evaluationRunIds(client, setId, signal);
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.evaluationSetRuns.create(body, { signal });
    } catch (e) {
      if (!(isApiError(e) && e.outcomeUnknown)) throw e;
      if (before === undefined) {
        throw lostAnswerError(e, `an evaluation set run of ${setId} may have been started`, "check the service's dashboard for a new run of the set before running the evaluation again; `evalkit eval export <its id>` writes its export");
      }
      await pauseBeforeReadBack(client, attempt, signal);
      const fresh = [...((await evaluationRunIds(client, setId, signal)) ?? [])].filter((id) => !before.has(id));
      if (fresh.length === 1) return client.evaluationSetRuns.retrieve(fresh[0], { signal });
      const hint = `list the set's evaluation runs (GET /batch_processor_runs?sourceId=${setId}) before running the evaluation again`;
      if (fresh.length > 1) throw lostAnswerError(e, `${fresh.length} evaluation set runs of ${setId} started during this run (${fresh.join(', ')}): this run's lost answers, or someone else's`, hint);
      if (attempt > client.options.maxRetries) throw lostAnswerError(e, `no evaluation set run of ${setId} was started (the list holds none that is new)`, 'retry later: the service did not answer');
    }
  }
}

/**
 * The run a stopped `eval run` of the same set, entity version and items left in flight, read
 * again: still running or ended, it is the one to poll and export, as long as it ran the config
 * asked for now (a draft edited since is another evaluation: the record is dropped and a new run
 * started, with a note). One the service no longer has (404) is forgotten, and a new run is started.
 */
async function adoptInFlight(client: Client, file: string, want: { version: string; configHash: string }, signal: AbortSignal | undefined, notice: (m: string) => void): Promise<EvaluationSetRun | undefined> {
  const rec = await readInFlight(file);
  if (!rec) return undefined;
  if (rec.configHash !== want.configHash && (rec.configHash !== undefined || want.version === 'draft')) {
    notice(
      `evaluation set run ${rec.evaluationSetRunId}, left by a stopped eval run, ran ${want.version === 'draft' ? 'the draft' : `version ${want.version}`} as it was at ${rec.startedAt}, ` +
        `and its config ${rec.configHash === undefined ? 'was not recorded' : 'has changed since'}; starting a new evaluation (\`evalkit eval export ${rec.evaluationSetRunId} --wait\` still writes the old run's export)`,
    );
    await forgetInFlight(file);
    return undefined;
  }
  try {
    const run = await client.evaluationSetRuns.retrieve(rec.evaluationSetRunId, { signal });
    notice(`going on with evaluation set run ${run.id} (${run.status}), started ${rec.startedAt} by an eval run of this set and version that was stopped; no new run is started`);
    return run;
  } catch (e) {
    if (!(isApiError(e) && e.kind === 'http' && e.status === 404)) throw e;
    notice(`evaluation set run ${rec.evaluationSetRunId}, left by a stopped eval run, is not on the service any more; starting a new run`);
    await forgetInFlight(file);
    return undefined;
  }
}

/** `eval run` on 2026-02-09 (runEvaluation calls it when the client speaks 2026-02-09). */
export async function runEvaluation2026(client: Client, opts: RunEvaluationOptions, cb: EvalCallbacks): Promise<EvalResult> {
  checkOptions2026(opts);
  return whileNotAborted(cb.signal, () => evaluate2026(client, opts, cb));
}

async function evaluate2026(client: Client, opts: RunEvaluationOptions, cb: EvalCallbacks): Promise<EvalResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { signal } = cb;
  const notices: string[] = [];
  const notice = (m: string): void => {
    notices.push(m);
    cb.onNotice?.(m);
  };
  const ref = opts.version ?? 'latest';
  if (normalizeVersionRef(ref) === undefined) throw new UsageError(`--version "${ref}" is not a version`, { hint: 'use draft, latest, or a published version number such as 1.0' });
  cb.onProgress?.({ strategy: 'evaluation-set-run', phase: 'start', total: 0, created: 0, ended: 0, processed: 0, failed: 0, elapsedMs: 0 });

  if (opts.evaluationSetId.trim() === '') throw new UsageError('--evaluation-set must not be empty', { hint: 'pass the id of an evaluation set, such as ev_123' });
  const set = await loadSet2026(client, opts.evaluationSetId, '--evaluation-set', signal);
  const ops = client.entities(set.type);
  const versions = [];
  for await (const v of ops.listAllVersions(set.entityId, { signal })) versions.push(v);
  const picked = pickVersion(versions, ref);
  if (!picked) {
    throw new InputError(`${ops.noun} ${set.entityId} has no version "${ref}"`, { hint: `available: ${versions.map((v) => v.version).sort().join(', ') || 'none'}; pass one of them with --version` });
  }
  // Read before the run starts, and sent as evaluationSetItemIds: the run covers exactly the items whose expected outputs the export holds.
  const width = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const items = await loadItems2026(client, set.id, set.type, signal, width);
  if (items.length === 0) {
    throw new UsageError(`evaluation set ${set.id} has no items; nothing to evaluate`, { hint: `add items first, for example with \`evalkit dataset upload data.csv --evaluation-set ${set.id}\`` });
  }
  // The same command run again after a kill or Ctrl-C goes on with the run it started (inflight.ts).
  const inFlight = inFlightPath({ baseUrl: client.options.baseUrl, evaluationSetId: set.id, entityId: set.entityId, version: picked.version, itemIds: items.map((i) => i.id) });
  // The version's config now: a draft edited since a recorded run started is another evaluation.
  const hash = configHash((await ops.retrieveVersion(set.entityId, picked.id, { signal })).config ?? null);
  let run = await adoptInFlight(client, inFlight, { version: picked.version, configHash: hash }, signal, notice);
  if (!run) {
    run = await startRun(client, { evaluationSetId: set.id, entity: { id: set.entityId, version: picked.version }, evaluationSetItemIds: items.map((i) => i.id) }, signal);
    try {
      await recordInFlight(inFlight, { evaluationSetRunId: run.id, evaluationSetId: set.id, entityId: set.entityId, version: picked.version, startedAt: new Date().toISOString(), configHash: hash, service: serviceOf(client.options.baseUrl) });
    } catch (e) {
      notice(`cannot record evaluation set run ${run.id} in ${inFlight} (${e instanceof Error ? e.message : String(e)}): if this command is stopped, \`evalkit eval export ${run.id} --wait\` writes its export (running it again starts a new run)`);
    }
  }
  cb.onProgress?.(progressOf(run, 'wait', started));
  const done = await waitForRun(client, run, { timeoutMs: Math.max(1, started + timeoutMs - performance.now()), budgetMs: timeoutMs, pollIntervalMs: opts.pollIntervalMs, maxPollIntervalMs: opts.maxPollIntervalMs }, cb, started);
  ended(done, notice);
  cb.onProgress?.(progressOf(done, 'collect', started));
  const now = await listItemIds2026(client, set.id, signal);
  const gone = items.filter((i) => !now.some((n) => n.id === i.id));
  if (gone.length) {
    notice(
      `${gone.length} item${gone.length === 1 ? ' was' : 's were'} deleted from ${set.id} while the run was in flight: ${gone.slice(0, 5).map((i) => i.id).join(', ')}${gone.length > 5 ? ', ...' : ''}; ` +
        'kept in the export with the expected output read before the run started (the one the service scored)',
    );
  }
  const exp = await exportOf(client, { set, run: done, items, options: exportOptions(opts.fuzzyMatchFields, opts.excludeFields), signal, width }, notice);
  // The export is the caller's first (onResult), the record gone after: a failed write can be run again.
  const result = finish(exp, done, started, notices, cb);
  await cb.onResult?.(result);
  await forgetInFlight(inFlight);
  return result;
}

function finish(exp: EvaluationExport, run: EvaluationSetRun, started: number, notices: string[], cb: EvalCallbacks): EvalResult {
  const counts = countItems(exp.items);
  const elapsedMs = performance.now() - started;
  cb.onProgress?.({ strategy: 'evaluation-set-run', phase: 'done', total: counts.items, created: counts.items, ended: counts.items, processed: counts.processed, failed: counts.failed, elapsedMs, batchRunId: run.id, status: run.status });
  return { export: exp, strategy: 'evaluation-set-run', batchRunId: run.id, counts, elapsedMs, notices, serviceStatus: run.status };
}

/** `evalkit eval export <evaluation set run id>` on 2026-02-09. */
export async function exportEvaluationSetRun(client: Client, id: string, opts: ExportBatchRunOptions = {}, cb: EvalCallbacks = {}): Promise<EvalResult> {
  checkRunId(id, 'the evaluation set run id');
  return whileNotAborted(cb.signal, async () => {
    const { signal } = cb;
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { run, started, notices, notice } = await endedRunById(cb, opts.wait, {
      what: 'evaluation set run', id, flag: 'the evaluation set run id',
      get: () => client.evaluationSetRuns.retrieve(id, { signal }),
      waitFor: (r, t0) => waitForRun(client, r, { timeoutMs, budgetMs: timeoutMs, pollIntervalMs: opts.pollIntervalMs, maxPollIntervalMs: opts.maxPollIntervalMs }, cb, t0),
    });
    ended(run, notice);
    cb.onProgress?.(progressOf(run, 'collect', started));
    const set = await loadSet2026(client, run.evaluationSetId, 'the evaluation set run (its evaluation set)', signal);
    const items = await loadItems2026(client, set.id, set.type, signal);
    const options = exportOptions(run.options?.fuzzyMatchFields, run.options?.excludeFields);
    const exp = await exportOf(client, { set, run, items, options, signal }, notice);
    const result = finish(exp, run, started, notices, cb);
    await cb.onResult?.(result);
    // A run a stopped `eval run` recorded is exported now: the next `eval run` is a new evaluation.
    try {
      const removed = await forgetRun({ baseUrl: client.options.baseUrl, evaluationSetRunId: run.id, evaluationSetId: set.id });
      if (removed > 0) notice(`evaluation set run ${run.id} was recorded by a stopped eval run; the record is removed, so the next \`evalkit eval run\` of the set starts a new evaluation`);
    } catch (e) {
      notice(`cannot remove the record of evaluation set run ${run.id} from ${inFlightDir()} (${e instanceof Error ? e.message : String(e)}): the next \`evalkit eval run\` of the set and version exports this run again; delete the record to start a new evaluation`);
    }
    return result;
  });
}
