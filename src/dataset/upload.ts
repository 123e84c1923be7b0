/**
 * `evalkit dataset upload`: CSV -> evaluation set items, validated before any write, journaled,
 * reconciled with the service, resumable.
 *
 *   1. prepare: shape and validate every row (pass 1); invalid rows -> rejects file; stop here
 *      (nothing written) unless skipInvalid.
 *   2. target: the set (found, or created by name), the journal's knowledge, the set's items.
 *   3. plan: create / update / unchanged / orphan per row (plan.ts).
 *   4. write (pass 2, streaming): files once per content, creates in bulk chunks, updates one
 *      by one, all under one concurrency limit (item writes before queued uploads); creates
 *      whose outcome is unknown are settled by asking the service again (never by a blind
 *      retry); a 429 waits, never fails; then --prune deletes.
 */
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { isApiError, type Client, type FetchLike, type ItemOps } from '../api/index.js';
import { fetchProcessorConfig, type ConfigSource } from '../expected/index.js';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import type { CoerceOptions } from './cells.js';
import type { ColumnMap } from './columns.js';
import { nameTag, readLocal, sha256Of, uploadName, type LocalFile } from './files.js';
import type { RowFinding } from './findings.js';
import { guardFetch, isUncertain, type RequestStats } from './guard.js';
import { appliedKey, JOURNAL_FORMAT, journalPathFor, NO_JOURNAL, openJournal, readJournal, recordApplied, serviceKey, type JournalState, type JournalWriter } from './journal.js';
import { appliedLabels, clearedLabels, labelValues, mergeItem, type ItemMerge, type LabelChange } from './merge.js';
import { formatPath, type Segment } from './paths.js';
import { digestOf, planSync, type ExistingItem, type RowAction } from './plan.js';
import { prepareRows, type Prepared, type ValidRow } from './prepare.js';
import { rejectsPathFor } from './rejects.js';
import { acquireUploadLock, uploadLockFor, type UploadLock } from './lock.js';
import { FileIndex, findSetByName, findUploaded, listExisting, patiently, readItems } from './remote.js';
import { contentIdentity } from './files.js';
import { formOf, inCurrentLayout } from './config.js';
import { isErrorsHeader, planCorrections, readCorrections } from './corrections.js';
import { openCsv, type CsvSource } from './csv.js';
import { applyWriteBack, planCorrectionsWriteBack, type DroppedValue } from './writeback.js';
import { isError } from './findings.js';

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_CHUNK_SIZE = 100;
/** A sync may clear (set from a value to empty) at most this many labels without allowClear. */
export const CLEAR_LIMIT = 3;
const MAX_ROUNDS = 5;

export interface UploadOptions {
  /**
   * An offline dry run's API version (no `connect`): its expected-output form is the one rows are
   * built in (default evalkit's). With a client, the version the client speaks decides (formOf).
   */
  offlineApiVersion?: string;
  csv: string;
  delimiter?: string;
  map?: ColumnMap;
  coerce?: CoerceOptions;
  strict?: boolean;
  skipInvalid?: boolean;
  /** With an errors file: drop (and list) what the API version in effect cannot hold instead of refusing (a CLASSIFY confidence other than 1 under 2026-02-09). */
  allowLossy?: boolean;
  allowOutside?: boolean;
  /** Target: an existing set... */
  evaluationSetId?: string;
  /** ...or a set of this name under this processor (found, else created). */
  createSet?: { name: string; processorId: string; description?: string };
  /** The processor config (--config); fetched from the service when absent. */
  config?: ConfigSource;
  /** Version whose config validates the rows: draft (default, what the service checks items against), latest, 1.0, dpv_... */
  processorVersion?: string;
  /** Builds the client over the given fetch (which adds pacing and guards creates). Absent: offline, dry runs only. */
  connect?: (fetch: FetchLike) => Client;
  /** Inner fetch (tests); default the global fetch. */
  fetch?: FetchLike;
  /** Client-side pacing in requests per second. */
  maxRps?: number;
  dryRun?: boolean;
  prune?: boolean;
  /** The CSV's value wins over labels changed on the service, conflicts and items without a record of their last sync. */
  overwrite?: boolean;
  /** Without a journal record of an item's last sync, a difference is a CSV change rather than refused (a harvest: the latest review wins). */
  csvWinsWithoutRecord?: boolean;
  /** Labels no column of the CSV names are removed from the items (else the service's values stay). */
  pruneFields?: boolean;
  /** Lets a sync clear more than CLEAR_LIMIT labels. */
  allowClear?: boolean;
  /** Asked before deleting; false cancels the run before anything is written. */
  confirmPrune?: (orphans: readonly ExistingItem[]) => Promise<boolean>;
  /** Journal path; default `<csv>.journal.ndjson`; false: none. */
  journal?: string | false;
  /**
   * The upload lock (one writing run into a set at a time); default in the user's state folder,
   * named after the service, the processor and the set's name (lock.ts). A run against a service
   * of its own (the demo's embedded sandbox) may keep it with its output instead.
   */
  lockFile?: string;
  /** With an errors file: the dataset CSV the corrections are also written into (writeback.ts); false: the set only, said by choice; absent: the set only, with a note. */
  source?: string | false;
  /** Rejects file path; default `<csv>.rejects.csv` (none in a dry run). */
  rejectsFile?: string;
  concurrency?: number;
  chunkSize?: number;
  onProgress?: (p: UploadProgress) => void;
  /** One-line notes for the user (set reused, journal resumed...). */
  onNotice?: (message: string) => void;
  /**
   * Interrupts the upload: reads stop at once; in the write phase no new request starts and
   * those in flight run to their answers (so the journal knows their outcome). The result then
   * has status `interrupted`; running the upload again finishes it.
   */
  signal?: AbortSignal;
}

export interface UploadProgress {
  phase: 'validate' | 'reconcile' | 'write';
  /** Rows read (validate), items listed (reconcile), operations finished (write). */
  done: number;
  total?: number;
  created: number;
  updated: number;
  deleted: number;
  failed: number;
  filesUploaded: number;
}

export interface Tally {
  created: number;
  updated: number;
  unchanged: number;
  /** Items left as the service has them: labels changed on the service since the last sync. */
  kept: number;
  /** Items not written: CSV and service both changed a label (or no record of the last sync). */
  conflicts: number;
  /** Labels set from a value to empty by the updates sent. */
  cleared: number;
  deleted: number;
  failed: number;
  /** Invalid rows left out with skipInvalid. */
  skippedInvalid: number;
  filesUploaded: number;
  filesReused: number;
  requests: number;
  rateLimited: number;
  elapsedMs: number;
  /** Items written (created + updated + deleted) per second of the whole run. */
  itemsPerSecond: number;
}

export interface PlanSummary {
  create: number;
  update: number;
  unchanged: number;
  /** Items whose only differences are labels changed on the service since the last sync: left as they are. */
  kept?: number;
  /** Items refused: a label changed in the CSV and on the service, or no record of the last sync. */
  conflict?: number;
  /** Labels the updates clear (a value becoming empty). */
  cleared?: number;
  /** Items not in the CSV: deleted with prune. */
  delete: number;
  /** Items not in the CSV that stay (no prune). */
  keep: number;
  /** Per row (dry runs only). */
  rows?: Array<{ line: number; action: RowAction['kind'] | 'kept' | 'conflict'; item?: string }>;
  /**
   * What each row changes: the labels of every update, kept item and conflict (CSV, service and
   * last-synced values), and in a dry run the typed values of every create. In CSV order.
   */
  changes?: RowChange[];
  /** A dry run without the service: the set's items were not read, so every row counts as a create. */
  offline?: boolean;
  /** Items to delete (dry runs only). */
  deletes?: string[];
}

export interface RowChange {
  line: number;
  item?: string;
  action: 'create' | 'update' | 'kept' | 'conflict';
  /** update, kept, conflict: the labels where the CSV and the service differ. */
  labels?: LabelChange[];
  /** create: the typed values. */
  values?: Array<{ label: string; value: unknown; cell?: string }>;
}

export interface Failure {
  operation: 'upload-file' | 'create' | 'update' | 'delete';
  line?: number;
  item?: string;
  error: string;
  /** The service refused it (a 4xx other than 408 and 429): the same request fails again, a re-run does not finish it. */
  permanent?: boolean;
}

function permanence(e: unknown): { permanent?: true } {
  // Upload failures wrap the client's error (with the file and line) as their cause.
  const api = isApiError(e) ? e : e instanceof Error && isApiError(e.cause) ? e.cause : undefined;
  if (!api || typeof api.status !== 'number' || isUncertain(api)) return {};
  return api.status >= 400 && api.status < 500 && api.status !== 408 && api.status !== 429 ? { permanent: true } : {};
}

export interface UploadResult {
  csv: string;
  dryRun: boolean;
  /**
   * invalid: stopped before writing; planned: dry run; done; cancelled: prune declined;
   * interrupted: signal; refused: the sync would clear more than CLEAR_LIMIT labels (nothing written).
   */
  status: 'invalid' | 'planned' | 'done' | 'cancelled' | 'interrupted' | 'refused';
  /** Why a sync was refused. */
  refusal?: { reason: 'clear'; cleared: number; limit: number };
  processor: { id?: string; type: string; config: string };
  set?: { id?: string; name?: string; created: boolean };
  rows: { total: number; valid: number; invalid: number };
  findings: RowFinding[];
  rejectsFile?: string;
  /** A rejects file of an earlier run, renamed because every row of this run is valid. */
  staleRejects?: { from: string; to: string };
  journal?: string;
  plan?: PlanSummary;
  tally?: Tally;
  /** Where the time went: reading and validating, listing and planning, writing (with its request count). */
  timings?: { validateMs: number; planMs: number; writeMs: number; writeRequests: number };
  failures: Failure[];
  /** An errors file's corrections written into the dataset CSV: rows and cells changed, and whether the file was written. */
  writeBack?: { csv: string; rows: number; cells: number; written: boolean; dropped?: DroppedValue[] };
}

/** What pass 2 needs to write one row. */
interface WriteRow {
  index: number;
  line: number;
  identity: string;
  output: Record<string, unknown>;
  local?: LocalFile;
  fileId?: string;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Items per create call: as asked (default 100), at most what one call of the API version in
 * effect takes (2026-02-09: 100). One call is one journaled batch, so a chunk is never split
 * into several calls behind the journal's back.
 */
export function chunkSizeFor(asked: number | undefined, client: Pick<Client, 'sets'> | undefined, onNotice?: (m: string) => void): number {
  const want = Math.max(1, Math.floor(asked ?? DEFAULT_CHUNK_SIZE));
  const max = client?.sets.maxItemsPerCreate ?? want;
  if (want <= max) return want;
  onNotice?.(`--chunk-size ${want} is more than the ${max} items one create call takes with this API version: chunks of ${max}`);
  return max;
}

/**
 * A run that writes holds the upload lock of its target set (lock.ts) from its first step to its
 * last, so a second run into the same set refuses at once instead of planning the same creates.
 */
export async function uploadDataset(opts: UploadOptions): Promise<UploadResult> {
  if (opts.dryRun) return uploadHoldingLock(opts);
  let lockFile = opts.lockFile ? path.resolve(opts.lockFile) : undefined;
  let what: string | undefined;
  if (!lockFile) {
    // Without the service or a target the run stops on that, before it writes anything.
    const client = opts.connect?.(opts.fetch ?? ((url, init) => fetch(url, init)));
    if (!client || (!opts.evaluationSetId && !opts.createSet)) return uploadHoldingLock(opts);
    ({ file: lockFile, what } = await uploadLockFor(client, serviceKey(client.options.baseUrl), opts, opts.signal));
  }
  let lock: UploadLock;
  try {
    lock = await acquireUploadLock(lockFile, { what });
  } catch (e) {
    if (e instanceof EvalkitError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot create the upload lock ${lockFile}: ${code ?? String(e)}`, { hint: 'the folder must be writable (the locks live under $XDG_STATE_HOME/evalkit, default ~/.local/state/evalkit)' });
  }
  try {
    return await uploadHoldingLock(opts);
  } finally {
    await lock.release();
  }
}

async function uploadHoldingLock(opts: UploadOptions): Promise<UploadResult> {
  const started = performance.now();
  const csv = path.resolve(opts.csv);
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const signal = opts.signal;
  const guard = guardFetch(opts.fetch ?? ((url, init) => fetch(url, init)), { maxRps: opts.maxRps });
  const client = opts.connect?.(guard.fetch);
  const chunkSize = chunkSizeFor(opts.chunkSize, client, opts.onNotice);
  if (!client && !opts.dryRun) throw new UsageError('an upload needs the service', { hint: 'set EVALKIT_BASE_URL and EVALKIT_API_TOKEN, or use --dry-run with --config for an offline plan' });
  if (!opts.evaluationSetId && !opts.createSet && !(opts.dryRun && opts.config)) throw new UsageError('name the target: --evaluation-set ID, or --create-set NAME --processor ID');
  const progress = (p: Omit<UploadProgress, 'created' | 'updated' | 'deleted' | 'failed' | 'filesUploaded'>, t?: Partial<UploadProgress>): void =>
    opts.onProgress?.({ created: 0, updated: 0, deleted: 0, failed: 0, filesUploaded: 0, ...t, ...p });

  // 1. The config and the target set (read only).
  let set: { id: string; name: string; processorId: string } | undefined;
  if (opts.evaluationSetId && client) {
    const s = await patiently(() => client.sets.retrieve(opts.evaluationSetId!, { signal }));
    set = { id: s.id, name: s.name, processorId: s.entityId };
  }
  const processorId = opts.createSet?.processorId ?? set?.processorId;
  let config = opts.config;
  if (!config) {
    if (!client || !processorId) throw new UsageError('no processor config', { hint: 'pass --config FILE, or set EVALKIT_BASE_URL and EVALKIT_API_TOKEN to read it from the service' });
    config = await patiently(() => fetchProcessorConfig(client, processorId, opts.processorVersion ?? 'draft'));
  }
  config = inCurrentLayout(config);

  // The errors file of `evalkit report --export-errors`: updates of exactly the items it names.
  const head = await openCsv(csv, { delimiter: opts.delimiter });
  if (isErrorsHeader(head.header)) return uploadCorrections(opts, { started, csv, client, stats: guard.stats, set, config, source: head, processorId });

  // 2. Every row, before anything is written.
  // A dry run writes no file at all: the findings are in the result.
  const rejectsFile = opts.dryRun ? undefined : (opts.rejectsFile ?? rejectsPathFor(csv));
  const prepared = await prepareRows(config, {
    csv,
    form: formOf(client, opts.offlineApiVersion),
    delimiter: opts.delimiter,
    map: opts.map,
    coerce: opts.coerce,
    strict: opts.strict,
    allowOutside: opts.allowOutside,
    rejectsFile,
    fileIdExists: client
      ? async (id) => {
          try {
            await patiently(() => client.files.retrieve(id, { signal }));
            return true;
          } catch (e) {
            if (isApiError(e) && e.status === 404) return false;
            throw e;
          }
        }
      : undefined,
    onRow: (n) => {
      if (n % 500 === 0) progress({ phase: 'validate', done: n });
    },
  });
  const validated = performance.now();
  const result: UploadResult = {
    csv: opts.csv,
    dryRun: opts.dryRun === true,
    status: 'done',
    processor: { id: processorId, type: prepared.model.type, config: config.origin },
    set: set ? { id: set.id, name: set.name, created: false } : opts.createSet ? { name: opts.createSet.name, created: false } : { id: opts.evaluationSetId, created: false },
    rows: { total: prepared.total, valid: prepared.rows.length, invalid: prepared.invalid },
    findings: prepared.findings,
    rejectsFile: prepared.rejectsFile,
    failures: [],
  };
  if (prepared.headerInvalid || (prepared.invalid > 0 && !opts.skipInvalid)) {
    result.status = 'invalid';
    return result;
  }
  if (rejectsFile && !prepared.rejectsFile) result.staleRejects = await setStaleRejectsAside(rejectsFile, opts.onNotice);

  // 3. What the service holds.
  const service = client ? serviceKey(client.options.baseUrl) : 'offline';
  const journalFile = opts.journal === false ? undefined : path.resolve(opts.journal ?? journalPathFor(csv));
  const { state, existed } = journalFile ? await readJournal(journalFile, service) : { state: undefined, existed: false };
  if (existed && state && state.files.size > 0 && !opts.dryRun) opts.onNotice?.(`journal ${path.relative(process.cwd(), journalFile!) || journalFile}: ${state.files.size} files already uploaded`);
  const index = new FileIndex();
  if (state) for (const [sha, fileId] of state.files) index.learn(contentIdentity(sha), fileId);

  if (!set && opts.createSet && client) {
    const key = `${opts.createSet.processorId}\0${opts.createSet.name}`;
    const fromJournal = state?.sets.get(key);
    // The set the journal remembers, unless it was deleted since; else the one of that name.
    const remembered = fromJournal
      ? await patiently(() => client.sets.retrieve(fromJournal, { signal })).catch((e: unknown) => {
          if (isApiError(e) && e.status === 404) return undefined;
          throw e;
        })
      : undefined;
    const found = remembered ?? (await findSetByName(client, opts.createSet.processorId, opts.createSet.name, signal));
    if (found) {
      set = { id: found.id, name: found.name, processorId: found.entityId };
      result.set = { id: found.id, name: found.name, created: false };
      if (!remembered) opts.onNotice?.(`processor ${found.entityId} already has a set named "${found.name}" (${found.id}); uploading into it`);
    }
  }

  const rowFileIds = new Set<string>();
  for (const r of prepared.rows) if (r.identity.startsWith('file:')) rowFileIds.add(r.identity.slice(5));
  const existing = set && client
    ? await listExisting(client, set.id, index, rowFileIds, { concurrency, signal, onListed: (n) => n % 1000 === 0 && progress({ phase: 'reconcile', done: n }) })
    : [];
  const plan = planSync(prepared.rows, existing);
  const orphans = plan.orphans;
  // The three-way merge of every row whose item differs, before anything is written.
  const setId = set?.id;
  const live = new Map(existing.map((it) => [it.id, it.output]));
  const review = await reviewRows(prepared, plan.actions, {
    live,
    applied: (itemId) => (setId && state ? state.applied.get(appliedKey(setId, itemId)) : undefined),
    creates: opts.dryRun === true,
    overwrite: opts.overwrite,
    csvWinsWithoutRecord: opts.csvWinsWithoutRecord,
    pruneFields: opts.pruneFields,
    signal,
  });
  const rc = review.counts;
  result.plan = {
    create: plan.counts.create,
    update: rc.update,
    unchanged: plan.counts.skip + rc.inSync,
    kept: rc.kept,
    conflict: rc.conflict,
    cleared: rc.cleared,
    delete: opts.prune ? orphans.length : 0,
    keep: opts.prune ? 0 : orphans.length,
    changes: review.changes,
  };
  const refused = rc.cleared > CLEAR_LIMIT && !opts.allowClear;
  if (refused) {
    result.status = 'refused';
    result.refusal = { reason: 'clear', cleared: rc.cleared, limit: CLEAR_LIMIT };
  }
  if (opts.dryRun) {
    if (!refused) result.status = 'planned';
    if (!client) result.plan.offline = true;
    result.plan.rows = prepared.rows.map((r, i) => {
      const a = plan.actions[i];
      if (a.kind === 'create') return { line: r.line, action: a.kind };
      const m = review.merges.get(i)?.merge;
      return { line: r.line, action: m ? (m.status === 'in-sync' ? 'skip' : m.status) : a.kind, item: a.itemId };
    });
    if (opts.prune) result.plan.deletes = orphans.map((o) => o.id);
    result.tally = tallyOf(started, guard.stats, { unchanged: result.plan.unchanged, kept: rc.kept, conflicts: rc.conflict, skippedInvalid: prepared.invalid });
    return result;
  }
  // Nothing is written, the journal included.
  if (refused) return result;
  // Items in sync whose journal record is missing or older: recorded as they go by in pass 2.
  const record = new Set<number>();
  if (setId && state) {
    plan.actions.forEach((a, i) => {
      if (a.kind !== 'skip') return;
      const last = state.applied.get(appliedKey(setId, a.itemId));
      if (last === undefined || digestOf(last) !== prepared.rows[i].digest) record.add(i);
    });
  }
  if (opts.prune && orphans.length > 0 && opts.confirmPrune && !(await opts.confirmPrune(orphans))) {
    result.status = 'cancelled';
    return result;
  }

  // 4. Write.
  const planned = performance.now();
  const requestsBeforeWrite = guard.stats.requests;
  const journal: JournalWriter = journalFile ? openJournal(journalFile) : NO_JOURNAL;
  result.journal = journalFile;
  journal.write({ k: 'run', at: new Date().toISOString(), service, csv: path.basename(csv), set: set?.id, v: JOURNAL_FORMAT });
  try {
    if (!set) {
      const cs = opts.createSet!;
      journal.write({ k: 'set', op: 'start', name: cs.name, processorId: cs.processorId });
      let created;
      try {
        // Writes take no signal: once sent, a write runs to its answer, which the journal records.
        created = await patiently(() => client!.sets.create({ name: cs.name, entityId: cs.processorId, description: cs.description }));
      } catch (e) {
        if (!isUncertain(e)) throw e;
        created = await findSetByName(client!, cs.processorId, cs.name);
        if (!created) created = await patiently(() => client!.sets.create({ name: cs.name, entityId: cs.processorId, description: cs.description }));
      }
      journal.write({ k: 'set', op: 'done', name: cs.name, processorId: cs.processorId, id: created.id });
      set = { id: created.id, name: created.name, processorId: created.entityId };
      result.set = { id: created.id, name: created.name, created: true };
    }
    const writer = new Writer(client!, set.id, journal, state, index, prepared, plan.actions, { merges: review.merges, record }, { concurrency, chunkSize, signal, onProgress: opts.onProgress });
    await writer.run(opts.prune ? orphans : []);
    result.failures = writer.failures;
    result.status = signal?.aborted ? 'interrupted' : 'done';
    result.tally = tallyOf(started, guard.stats, { ...writer.counts, unchanged: result.plan.unchanged, kept: rc.kept, conflicts: rc.conflict, skippedInvalid: prepared.invalid });
    result.timings = {
      validateMs: Math.round(validated - started),
      planMs: Math.round(planned - validated),
      writeMs: Math.round(performance.now() - planned),
      writeRequests: guard.stats.requests - requestsBeforeWrite,
    };
    journal.write({ k: 'end', at: new Date().toISOString(), tally: { ...result.tally } });
  } finally {
    journal.close();
  }
  return result;
}

/**
 * Every row is valid now, so a rejects file left by an earlier run no longer describes this CSV.
 * It is renamed, not deleted (it may hold fixes typed into it), and the rename is said.
 */
async function setStaleRejectsAside(file: string, onNotice?: (m: string) => void): Promise<{ from: string; to: string } | undefined> {
  if (!/\.rejects\.csv$/.test(file)) return undefined;
  // A name no earlier stale file has: one set aside by an earlier run may hold fixes too.
  let to = file.replace(/\.rejects\.csv$/, '.rejects.stale.csv');
  for (let n = 2; existsSync(to); n++) to = file.replace(/\.rejects\.csv$/, `.rejects.stale-${n}.csv`);
  try {
    await fsp.rename(file, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`cannot rename the stale rejects file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { hint: 'every row is valid now: delete the old rejects file and run again' });
  }
  onNotice?.(`every row is valid: the earlier rejects file ${path.basename(file)} is stale, renamed to ${path.basename(to)}`);
  return { from: file, to };
}

/** A row's merge, and what the journal records once it is synced (merge.ts appliedLabels). */
interface Merged {
  merge: ItemMerge;
  record: Record<string, unknown>;
}

interface Review {
  /** By row index: rows planned as updates. */
  merges: Map<number, Merged>;
  changes: RowChange[];
  counts: { update: number; kept: number; conflict: number; inSync: number; cleared: number };
}

/**
 * Reads the CSV again for the rows whose item differs and merges each with the service's output
 * and the journal's record (merge.ts); in a dry run also the typed values of each create.
 */
async function reviewRows(
  prepared: Prepared,
  actions: readonly RowAction[],
  o: { live: ReadonlyMap<string, unknown>; applied: (itemId: string) => unknown; creates: boolean; overwrite?: boolean; csvWinsWithoutRecord?: boolean; pruneFields?: boolean; signal?: AbortSignal },
): Promise<Review> {
  const review: Review = { merges: new Map(), changes: [], counts: { update: 0, kept: 0, conflict: 0, inSync: 0, cleared: 0 } };
  if (!actions.some((a) => a.kind === 'update' || (o.creates && a.kind === 'create'))) return review;
  const columnOf = new Map<string, number>();
  for (const c of prepared.columns.columns) if (c.role === 'field') columnOf.set(formatPath(c.path!), c.index);
  const rows = prepared.rows;
  let next = 0;
  for await (const rec of prepared.source.records()) {
    if (o.signal?.aborted || next >= rows.length) break;
    if (rec.line !== rows[next].line) continue;
    const index = next++;
    const a = actions[index];
    if (a.kind === 'skip' || (a.kind === 'create' && !o.creates)) continue;
    const s = await prepared.shape(rec);
    if (s.output === undefined || digestOf(s.output) !== rows[index].digest) {
      throw new InputError('the CSV or a file it names changed during the upload', { location: { file: prepared.source.file, line: rec.line }, hint: 'run the upload again' });
    }
    const cellOf = (p: readonly Segment[]): string | undefined => {
      const i = columnOf.get(formatPath(p));
      return i === undefined ? undefined : (s.cells[i] ?? '');
    };
    if (a.kind === 'create') {
      review.changes.push({ line: rec.line, action: 'create', values: labelValues(prepared.model, s.output, cellOf) });
      continue;
    }
    const live = o.live.get(a.itemId);
    const merge = mergeItem(prepared.model, s.output, o.applied(a.itemId), live, { uncovered: prepared.columns.uncovered, pruneFields: o.pruneFields, overwrite: o.overwrite, csvWinsWithoutRecord: o.csvWinsWithoutRecord, cellOf });
    review.merges.set(index, { merge, record: appliedLabels(prepared.model, s.output, live, { uncovered: prepared.columns.uncovered, pruneFields: o.pruneFields }) });
    if (merge.status === 'in-sync') review.counts.inSync++;
    else {
      review.counts[merge.status]++;
      review.changes.push({ line: rec.line, item: a.itemId, action: merge.status, labels: merge.labels });
    }
    review.counts.cleared += clearedLabels(merge);
  }
  return review;
}

function tallyOf(started: number, stats: RequestStats, t: Partial<Tally>): Tally {
  const elapsedMs = Math.round(performance.now() - started);
  const written = (t.created ?? 0) + (t.updated ?? 0) + (t.deleted ?? 0);
  return {
    created: 0,
    updated: 0,
    unchanged: 0,
    kept: 0,
    conflicts: 0,
    cleared: 0,
    deleted: 0,
    failed: 0,
    skippedInvalid: 0,
    filesUploaded: 0,
    filesReused: 0,
    ...t,
    requests: stats.requests,
    rateLimited: stats.rateLimited,
    elapsedMs,
    itemsPerSecond: elapsedMs > 0 ? Math.round((written / elapsedMs) * 1000 * 10) / 10 : 0,
  };
}

/** A queued request that did not start because the upload was interrupted. */
class Stopped extends Error {
  constructor() {
    super('not started: the upload was interrupted');
  }
}

/** Pass 2 and the rounds after it. Requests take no abort signal: an interrupt stops new ones. */
class Writer {
  readonly counts = { created: 0, updated: 0, cleared: 0, deleted: 0, failed: 0, filesUploaded: 0, filesReused: 0 };
  readonly failures: Failure[] = [];
  private readonly queue: PQueue;
  private readonly items: ItemOps;
  private readonly inflight = new Set<Promise<void>>();
  private readonly files = new Map<string, Promise<string>>();
  private uncertain: WriteRow[] = [];
  private batch = 0;
  private rowsInFlight = 0;
  private done = 0;
  private total: number;

  constructor(
    private readonly client: Client,
    private readonly setId: string,
    private readonly journal: JournalWriter,
    private readonly state: JournalState | undefined,
    private readonly index: FileIndex,
    private readonly prepared: Prepared,
    private readonly actions: RowAction[],
    /** The merges of the rows planned as updates, and the rows in sync to record in the journal. */
    private readonly sync: { merges: ReadonlyMap<number, Merged>; record: ReadonlySet<number> },
    private readonly o: { concurrency: number; chunkSize: number; signal?: AbortSignal; onProgress?: (p: UploadProgress) => void },
  ) {
    this.queue = new PQueue({ concurrency: o.concurrency });
    this.items = client.items(setId);
    this.total = actions.filter((a, i) => a.kind === 'create' || (a.kind === 'update' && sync.merges.get(i)?.merge.status === 'update')).length;
  }

  /**
   * Runs a request in one of the `concurrency` slots. Item writes go before queued file
   * uploads: a chunk whose files are done is created at once instead of waiting behind the
   * uploads of the rows read after it, so items and files flow together (the service sees an
   * even mix, and an interrupted run has created what it could).
   */
  private slot<T>(lane: 'file' | 'item', fn: () => Promise<T>): Promise<T> {
    return this.queue.add(() => {
      // After an interrupt nothing new starts; what is in flight runs to its answer.
      if (this.aborted) throw new Stopped();
      return fn();
    }, { priority: lane === 'item' ? 1 : 0 });
  }

  /** An update or delete in its slot; one that never started because of an interrupt is no failure. */
  private write(fn: () => Promise<void>): Promise<void> {
    return this.slot('item', fn).catch((e: unknown) => {
      if (!(e instanceof Stopped)) throw e;
    });
  }

  private get aborted(): boolean {
    return this.o.signal?.aborted === true;
  }

  private tick(n: number): void {
    this.done += n;
    this.o.onProgress?.({ phase: 'write', done: this.done, total: this.total, created: this.counts.created, updated: this.counts.updated, deleted: this.counts.deleted, failed: this.counts.failed, filesUploaded: this.counts.filesUploaded });
  }

  private fail(f: Failure, n = 1): void {
    this.failures.push(f);
    this.counts.failed += n;
    this.tick(n);
  }

  /**
   * Tracks an operation on `rows` rows and waits while too many rows are in flight: enough to
   * keep every slot busy, few enough that a long CSV is never held in memory.
   */
  private async spawn(p: Promise<void>, rows: number): Promise<void> {
    this.inflight.add(p);
    this.rowsInFlight += rows;
    void p.finally(() => {
      this.inflight.delete(p);
      this.rowsInFlight -= rows;
    });
    const cap = Math.max(2 * this.o.chunkSize, Math.min(this.o.concurrency * this.o.chunkSize, 2000));
    while (this.rowsInFlight >= cap && this.inflight.size > 0) await Promise.race(this.inflight);
  }

  private async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  async run(orphans: readonly ExistingItem[]): Promise<void> {
    this.total += orphans.length;
    // Progress from the start of the writes, and again as each file is uploaded: the first
    // chunk of items waits for its files, so counting items alone showed nothing for a while.
    this.tick(0);
    await this.pass2();
    for (let round = 1; this.uncertain.length > 0 && round <= MAX_ROUNDS && !this.aborted; round++) await this.settleUncertain();
    for (const r of this.uncertain) this.fail({ operation: 'create', line: r.line, error: 'the service did not confirm the create; re-run to finish' });
    this.uncertain = [];
    for (const item of orphans) {
      if (this.aborted) break;
      await this.spawn(this.write(() => this.remove(item)), 1);
    }
    await this.drain();
  }

  private async pass2(): Promise<void> {
    const rows: ValidRow[] = this.prepared.rows;
    let next = 0;
    let chunk: WriteRow[] = [];
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      const c = chunk;
      chunk = [];
      await this.spawn(this.createChunk(c), c.length);
    };
    for await (const rec of this.prepared.source.records()) {
      if (this.aborted) break;
      if (next >= rows.length) break;
      if (rec.line !== rows[next].line) continue;
      const index = next++;
      const action = this.actions[index];
      if (action.kind === 'skip' && !this.sync.record.has(index)) continue;
      const merged = action.kind === 'update' ? this.sync.merges.get(index) : undefined;
      if (action.kind === 'update' && merged?.merge.status !== 'update') {
        // Nothing to send: in sync but for unnamed fields, or only changed on the service (the
        // record keeps saying what the CSV last synced); a conflict is not recorded either.
        if (merged && merged.merge.status !== 'conflict') recordApplied(this.journal, this.setId, action.itemId, merged.record);
        continue;
      }
      const s = await this.prepared.shape(rec);
      if (s.output === undefined || s.identity !== rows[index].identity || digestOf(s.output) !== rows[index].digest) {
        throw new InputError('the CSV or a file it names changed during the upload', { location: { file: this.prepared.source.file, line: rec.line }, hint: 'run the upload again; it continues where it stopped' });
      }
      if (action.kind === 'skip') {
        recordApplied(this.journal, this.setId, action.itemId, s.output);
        continue;
      }
      const row: WriteRow = { index, line: rec.line, identity: s.identity, output: s.output, local: s.local, fileId: s.fileId };
      if (action.kind === 'update') await this.spawn(this.write(() => this.update(action.itemId, row, merged)), 1);
      else {
        // Start the upload now, so files flow while the chunk fills.
        if (row.local) void this.fileFor(row.local, row.line).catch(() => undefined);
        chunk.push(row);
        if (chunk.length >= this.o.chunkSize) await flush();
      }
    }
    await flush();
    await this.drain();
  }

  /** The uploaded file for this content: known, in flight, found by name after a crash, or uploaded now. */
  private fileFor(local: LocalFile, line: number): Promise<string> {
    const identity = contentIdentity(local.sha256);
    const known = this.index.byIdentity.get(identity);
    if (known) return Promise.resolve(known);
    let p = this.files.get(identity);
    if (!p) {
      p = this.uploadFile(local, line);
      this.files.set(identity, p);
    }
    return p;
  }

  private async uploadFile(local: LocalFile, line: number): Promise<string> {
    const identity = contentIdentity(local.sha256);
    const rel = path.relative(path.dirname(this.prepared.source.file), local.abs);
    const tag = nameTag(local.sha256);
    let lookFirst = this.state?.pendingFiles.has(local.sha256) === true;
    for (let attempt = 1; ; attempt++) {
      if (lookFirst) {
        const found = await this.slot('file', () => findUploaded(this.client, tag));
        if (found) {
          this.journal.write({ k: 'file', op: 'done', sha256: local.sha256, fileId: found, reused: true });
          this.index.learn(identity, found);
          this.counts.filesReused++;
          return found;
        }
      }
      try {
        const file = await this.slot('file', async () => {
          // Read inside the slot: only files being sent are in memory.
          const data = await readLocal(local);
          // The content must be what pass 1 hashed: its hash names the upload and identifies the row.
          if (sha256Of(data) !== local.sha256) throw new InputError(`${rel} changed during the upload`, { location: { file: local.abs }, hint: 'run the upload again; it continues where it stopped' });
          this.journal.write({ k: 'file', op: 'start', sha256: local.sha256, path: rel });
          return patiently(() => this.client.files.upload({ name: uploadName(rel, local.sha256), data }));
        });
        this.journal.write({ k: 'file', op: 'done', sha256: local.sha256, fileId: file.id });
        this.index.learn(identity, file.id);
        this.counts.filesUploaded++;
        this.tick(0);
        return file.id;
      } catch (e) {
        if (e instanceof Stopped) throw e;
        const uncertain = isUncertain(e);
        this.journal.write({ k: 'file', op: 'fail', sha256: local.sha256, error: message(e), uncertain });
        if (!uncertain || attempt >= MAX_ROUNDS || this.aborted) {
          throw new Error(`upload of ${rel} (line ${line}) failed: ${message(e)}`, { cause: e });
        }
        lookFirst = true;
      }
    }
  }

  private async resolveFileIds(rows: WriteRow[]): Promise<WriteRow[]> {
    const ready: WriteRow[] = [];
    await Promise.all(rows.map(async (r) => {
      if (r.fileId !== undefined) {
        ready.push(r);
        return;
      }
      try {
        r.fileId = await this.fileFor(r.local!, r.line);
        ready.push(r);
      } catch (e) {
        if (!(e instanceof Stopped)) this.fail({ operation: 'upload-file', line: r.line, error: message(e), ...permanence(e) });
      }
    }));
    return ready.sort((a, b) => a.index - b.index);
  }

  private async createChunk(rows: WriteRow[]): Promise<void> {
    const ready = await this.resolveFileIds(rows);
    if (ready.length === 0 || this.aborted) return;
    const batch = ++this.batch;
    try {
      const created = await this.slot('item', async () => {
        this.journal.write({ k: 'create', op: 'start', set: this.setId, batch, lines: ready.map((r) => r.line), ids: ready.map((r) => r.identity) });
        return patiently(() => this.items.create(ready.map((r) => ({ fileId: r.fileId!, expectedOutput: r.output }))));
      });
      this.journal.write({ k: 'create', op: 'done', set: this.setId, batch, items: created.map((c) => c.id) });
      // The bulk endpoint answers the items in the order they were sent.
      created.forEach((c, i) => recordApplied(this.journal, this.setId, c.id, ready[i].output));
      this.counts.created += created.length;
      this.tick(created.length);
    } catch (e) {
      if (e instanceof Stopped) return;
      const uncertain = isUncertain(e);
      this.journal.write({ k: 'create', op: 'fail', set: this.setId, batch, error: message(e), uncertain });
      if (uncertain) this.uncertain.push(...ready);
      else if (ready.length > 1 && isApiError(e) && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 429) {
        // The bulk endpoint is all or nothing: one by one, so one bad row fails alone.
        await Promise.all(ready.map((r) => this.createChunk([r])));
      } else for (const r of ready) this.fail({ operation: 'create', line: r.line, error: message(e), ...permanence(e) });
    }
  }

  /** Creates whose answer was lost: ask the service what exists now, create only the rest. */
  private async settleUncertain(): Promise<void> {
    const pending = this.uncertain;
    this.uncertain = [];
    const rowFileIds = new Set<string>();
    for (const r of this.prepared.rows) if (r.identity.startsWith('file:')) rowFileIds.add(r.identity.slice(5));
    const existing = await listExisting(this.client, this.setId, this.index, rowFileIds, { concurrency: this.o.concurrency });
    const plan = planSync(this.prepared.rows, existing);
    let chunk: WriteRow[] = [];
    for (const r of pending) {
      const a = plan.actions[r.index];
      if (a.kind === 'skip') {
        recordApplied(this.journal, this.setId, a.itemId, r.output);
        this.counts.created++;
        this.tick(1);
      } else if (a.kind === 'update') await this.spawn(this.write(() => this.update(a.itemId, r)), 1);
      else {
        chunk.push(r);
        if (chunk.length >= this.o.chunkSize) {
          await this.spawn(this.createChunk(chunk), chunk.length);
          chunk = [];
        }
      }
    }
    if (chunk.length) await this.spawn(this.createChunk(chunk), chunk.length);
    await this.drain();
  }

  /** Sends the merge's output (the service's with the CSV's changes), else the row's; then records what was synced. */
  private async update(itemId: string, row: WriteRow, merged?: Merged): Promise<void> {
    if (this.aborted) return;
    const merge = merged?.merge;
    this.journal.write({ k: 'update', op: 'start', set: this.setId, item: itemId, line: row.line });
    try {
      await patiently(() => this.items.update(itemId, { expectedOutput: (merge?.output ?? row.output) as WriteRow['output'] }));
      this.journal.write({ k: 'update', op: 'done', set: this.setId, item: itemId, line: row.line });
      recordApplied(this.journal, this.setId, itemId, merged?.record ?? row.output);
      if (merge) this.counts.cleared += clearedLabels(merge);
      this.counts.updated++;
      this.tick(1);
    } catch (e) {
      this.journal.write({ k: 'update', op: 'fail', set: this.setId, item: itemId, line: row.line, error: message(e) });
      this.fail({ operation: 'update', line: row.line, item: itemId, error: message(e), ...permanence(e) });
    }
  }

  private async remove(item: ExistingItem): Promise<void> {
    if (this.aborted) return;
    this.journal.write({ k: 'delete', op: 'start', set: this.setId, item: item.id });
    try {
      await patiently(() => this.items.delete(item.id));
    } catch (e) {
      // Gone already (a retry after a lost answer, or someone else): the goal is met.
      if (!(isApiError(e) && e.status === 404)) {
        this.journal.write({ k: 'delete', op: 'fail', set: this.setId, item: item.id, error: message(e) });
        this.fail({ operation: 'delete', item: item.id, error: message(e), ...permanence(e) });
        return;
      }
    }
    this.journal.write({ k: 'delete', op: 'done', set: this.setId, item: item.id });
    this.counts.deleted++;
    this.tick(1);
  }
}

/** `dataset upload errors.csv`: the corrected expected values of a report's errors file, as updates of the items it names. */
async function uploadCorrections(
  opts: UploadOptions,
  ctx: { started: number; csv: string; client?: Client; stats: RequestStats; set?: { id: string; name: string }; config: ConfigSource; source: CsvSource; processorId?: string },
): Promise<UploadResult> {
  const { client, set, config } = ctx;
  if (!client || !set) {
    throw new UsageError(`${opts.csv} is an errors file (evalkit report --export-errors): it updates items of an existing evaluation set`, {
      hint: 'pass --evaluation-set ID (the set the report was computed from), with EVALKIT_BASE_URL and EVALKIT_API_TOKEN set',
    });
  }
  const corrections = await readCorrections(ctx.source);
  const items = new Map<string, unknown>();
  for (const it of await readItems(client, set.id, { concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY, signal: opts.signal })) items.set(it.id, it.expectedOutput);
  const plan = planCorrections(corrections, items, config, opts.coerce, formOf(client));
  const badLines = new Set(plan.findings.filter(isError).map((f) => f.line));
  const result: UploadResult = {
    csv: opts.csv,
    dryRun: opts.dryRun === true,
    status: 'done',
    processor: { id: ctx.processorId, type: config.type, config: config.origin },
    set: { id: set.id, name: set.name, created: false },
    rows: { total: plan.rows, valid: plan.rows - badLines.size, invalid: badLines.size },
    findings: plan.findings,
    failures: [],
    plan: { create: 0, update: plan.updates.length, unchanged: plan.unchanged, delete: 0, keep: 0 },
  };
  if (badLines.size > 0 && !opts.skipInvalid) {
    result.status = 'invalid';
    return result;
  }
  const source = opts.source;
  const wb = typeof source === 'string' ? await planCorrectionsWriteBack(opts, source, config, client, set.id, plan.updates, items) : undefined;
  if (wb && typeof source === 'string') result.writeBack = { csv: source, rows: wb.edits.length, cells: wb.cellsChanged, written: false, ...(wb.dropped.length ? { dropped: wb.dropped } : {}) };
  if (source === undefined && plan.updates.length > 0) opts.onNotice?.('no dataset CSV to write the corrections into (--source FILE, or "csv" in evalkit.config.json): a sync of the old CSV would put the old labels back');
  if (opts.dryRun) {
    result.status = 'planned';
    result.tally = tallyOf(ctx.started, ctx.stats, { unchanged: plan.unchanged });
    return result;
  }
  const journalFile = opts.journal === false ? undefined : path.resolve(opts.journal ?? journalPathFor(ctx.csv));
  const journal: JournalWriter = journalFile ? openJournal(journalFile) : NO_JOURNAL;
  result.journal = journalFile;
  journal.write({ k: 'run', at: new Date().toISOString(), service: serviceKey(client.options.baseUrl), csv: path.basename(ctx.csv), set: set.id });
  let updated = 0;
  try {
    // The dataset CSV first, then the set: a run stopped anywhere leaves every correction in the
    // CSV, and a re-run (or the next sync of the CSV) brings the set to it.
    if (wb && wb.edits.length > 0) {
      journal.write({ k: 'writeback', op: 'start', csv: path.basename(wb.csv), rows: wb.edits.length, cells: wb.cellsChanged });
      await applyWriteBack(wb);
      journal.write({ k: 'writeback', op: 'done', csv: path.basename(wb.csv), rows: wb.edits.length, cells: wb.cellsChanged });
      result.writeBack!.written = true;
    }
    for (const u of plan.updates) {
      journal.write({ k: 'update', op: 'start', set: set.id, item: u.item, line: u.line });
      try {
        await patiently(() => client.items(set.id).update(u.item, { expectedOutput: u.output as Record<string, unknown> }));
        journal.write({ k: 'update', op: 'done', set: set.id, item: u.item, line: u.line });
        updated++;
        opts.onProgress?.({ phase: 'write', done: updated, total: plan.updates.length, created: 0, updated, deleted: 0, failed: result.failures.length, filesUploaded: 0 });
      } catch (e) {
        journal.write({ k: 'update', op: 'fail', set: set.id, item: u.item, line: u.line, error: message(e) });
        result.failures.push({ operation: 'update', line: u.line, item: u.item, error: message(e), ...permanence(e) });
      }
    }
    result.tally = tallyOf(ctx.started, ctx.stats, { updated, unchanged: plan.unchanged, failed: result.failures.length, skippedInvalid: badLines.size });
    journal.write({ k: 'end', at: new Date().toISOString(), tally: { ...result.tally } });
  } finally {
    journal.close();
  }
  return result;
}
