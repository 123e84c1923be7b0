/**
 * `evalkit dataset harvest`: outputs that reviewers corrected become evaluation items. The
 * processor's reviewed runs are listed (newest change first; --since filters by review time), each run's
 * `reviewedOutput` is shaped as an expected output, and the rows are written as a CSV that the
 * upload then validates, plans, journals and writes like any other (`uploadDataset`): one
 * machinery, so a harvest is resumable, idempotent (a re-run leaves harvested items unchanged)
 * and refused whole when a row is invalid. The CSV stays as the record of what was harvested:
 * `fileId`, `expectedOutput`, and notes columns (ignored by upload) with the run, the reviewer,
 * the time and the reviewer's `edits`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isApiError, type Client, type FetchLike, type ProcessorRun } from '../api/index.js';
import { InputError, UsageError } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { isPlainObject } from '../util/json.js';
import type { ExpectedForm } from '../expected/model.js';
import { formOf } from './config.js';
import { journalPathFor } from './journal.js';
import { csvLine } from './rejects.js';
import { patiently } from './remote.js';
import { uploadDataset, type UploadOptions, type UploadResult } from './upload.js';

type Json = Record<string, unknown>;

export interface HarvestOptions extends Pick<UploadOptions, 'skipInvalid' | 'journal' | 'concurrency' | 'chunkSize' | 'maxRps' | 'processorVersion' | 'onProgress' | 'onNotice' | 'signal' | 'fetch'> {
  processorId: string;
  /** Only runs reviewed at or after this instant (ISO 8601). */
  since?: string;
  /** The harvest CSV to write (the upload's journal and rejects file go beside it). */
  csv: string;
  /** Target: an existing set of the processor, or a set of this name (found, else created). */
  evaluationSetId?: string;
  createSet?: { name: string; description?: string };
  connect: (fetch: FetchLike) => Client;
  /** Validate and plan only: the CSV goes to a temp folder and is removed, nothing is written. */
  dryRun?: boolean;
}

export interface HarvestRow {
  run: string;
  fileId: string;
  reviewedAt: string | null;
  reviewedBy: string | null;
  /** Field ids the reviewer edited. */
  edited: string[];
}

export interface HarvestResult {
  processorId: string;
  since?: string;
  /** Runs read from the list, reviewed among them (in the window), rows harvested. */
  runs: { listed: number; reviewed: number; harvested: number };
  skipped: Array<{ run: string; reason: string }>;
  rows: HarvestRow[];
  /** The harvest CSV (absent in a dry run and when there was nothing to harvest). */
  csv?: string;
  /** Absent when no run was harvested. */
  upload?: UploadResult;
}

/** An instant from --since: a date (midnight UTC) or an ISO 8601 date-time. */
export function parseSince(text: string): string {
  const s = text.trim();
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(s) ? Date.parse(`${s}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(s) ? Date.parse(s) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--since "${text}" is not a date`, { hint: 'give a date (2025-05-01, midnight UTC) or an ISO 8601 date-time (2025-05-01T12:00:00Z)' });
  return new Date(ms).toISOString();
}

/**
 * The expected output a reviewed output stands for: results only, no confidences or citations,
 * in the expected-output form of the API version in effect (spec 3.7). In the 2026-02-09 form a
 * split has no id (a run's split id is the run's reference, as its confidence is no label); a
 * split's identifier or observation with a value stays, for the upload to name
 * (`api-version-form`): that form has no place for it, and it is not dropped unsaid.
 */
export function expectedFromReviewed(type: string, reviewed: Json, form: ExpectedForm = '2025-04-21'): Json {
  if (type === 'CLASSIFY') return { id: reviewed.id, type: reviewed.type };
  if (type === 'SPLITTER') {
    const splits = Array.isArray(reviewed.splits) ? reviewed.splits : Array.isArray(reviewed.subDocumentClassifications) ? reviewed.subDocumentClassifications : [];
    const keep = ['id', 'classificationId', 'type', 'startPage', 'endPage', 'identifier', 'observation'];
    const current = form === '2026-02-09';
    const kept = (s: Json, k: string): boolean => Object.hasOwn(s, k) && !(current && (k === 'id' || ((k === 'identifier' || k === 'observation') && (s[k] === null || s[k] === ''))));
    return { splits: splits.map((s: unknown) => (isPlainObject(s) ? Object.fromEntries(keep.filter((k) => kept(s, k)).map((k) => [k, s[k]])) : s)) };
  }
  if (Object.hasOwn(reviewed, 'value')) return { value: reviewed.value };
  // The legacy fields-array form: fieldName -> {id, type, value, confidence, ...}.
  const out: Json = Object.create(null) as Json;
  for (const [name, entry] of Object.entries(reviewed)) {
    if (name === 'metadata') continue;
    out[name] = isPlainObject(entry) ? Object.fromEntries(['id', 'type', 'value'].filter((k) => Object.hasOwn(entry, k)).map((k) => [k, entry[k]])) : entry;
  }
  return { ...out };
}

const at = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export async function harvestReviewed(opts: HarvestOptions): Promise<HarvestResult> {
  const { signal } = opts;
  if (!opts.evaluationSetId === !opts.createSet) throw new UsageError('name the target set: --evaluation-set ID, or --create-set NAME');
  const since = opts.since !== undefined ? parseSince(opts.since) : undefined;
  const client = opts.connect(opts.fetch ?? ((url, init) => fetch(url, init)));
  if (opts.evaluationSetId) {
    const set = await patiently(() => client.sets.retrieve(opts.evaluationSetId!, { signal })).catch((e: unknown) => {
      if (isApiError(e) && e.status === 404) throw new InputError(`evaluation set "${opts.evaluationSetId}" not found`, { hint: 'check --evaluation-set', cause: e });
      throw e;
    });
    if (set.entityId !== opts.processorId) {
      throw new InputError(`evaluation set ${set.id} belongs to processor ${set.entityId}, not ${opts.processorId}`, { hint: 'harvest into a set of the same processor, or use --create-set NAME' });
    }
  }

  const result: HarvestResult = { processorId: opts.processorId, ...(since ? { since } : {}), runs: { listed: 0, reviewed: 0, harvested: 0 }, skipped: [], rows: [] };
  const picked: Array<{ run: ProcessorRun; fileId: string; output: Json }> = [];
  const seenFiles = new Map<string, string>();
  const runs = client.processorRuns.listAll({ processorId: opts.processorId, status: 'PROCESSED', sortBy: 'updatedAt', sortDir: 'desc', maxPageSize: 100 }, { signal });
  try {
    for await (const listed of runs) {
      result.runs.listed++;
      if (listed.reviewed !== true) continue;
      // Every run is read: the list's filters have no review time, and a service that ignores
      // sortBy would make stopping at the first old run miss later reviews of older runs.
      const reviewedAt = at((listed as Json).reviewedAt) ?? at(listed.updatedAt);
      if (since && reviewedAt !== null && reviewedAt < since) continue;
      result.runs.reviewed++;
      // The list may leave the outputs out (the spec shows them on the get endpoint).
      const run = isPlainObject(listed.reviewedOutput) ? listed : await patiently(() => client.processorRuns.get(listed.id, { signal }));
      const fileId = run.files?.find((f) => typeof (f as Json).id === 'string')?.id as string | undefined;
      if (!isPlainObject(run.reviewedOutput)) result.skipped.push({ run: run.id, reason: 'reviewed, but the run has no reviewedOutput' });
      else if (!fileId) result.skipped.push({ run: run.id, reason: 'ran on raw text: an evaluation item needs a file' });
      else if (seenFiles.has(fileId)) result.skipped.push({ run: run.id, reason: `same file as ${seenFiles.get(fileId)}, reviewed later (the latest review wins)` });
      else {
        seenFiles.set(fileId, run.id);
        picked.push({ run, fileId, output: expectedFromReviewed(String(run.type ?? ''), run.reviewedOutput, formOf(client)) });
      }
    }
  } catch (e) {
    if (isApiError(e) && e.status === 404) throw new InputError(`processor "${opts.processorId}" not found`, { hint: 'check --processor', cause: e });
    throw e;
  }
  // Oldest review first: the CSV reads as a history, and ids of created items follow it.
  picked.reverse();
  result.runs.harvested = picked.length;
  result.rows = picked.map(({ run, fileId }) => ({
    run: run.id,
    fileId,
    reviewedAt: at((run as Json).reviewedAt),
    reviewedBy: at((run as Json).reviewedBy),
    edited: isPlainObject(run.edits) ? Object.keys(run.edits) : [],
  }));
  if (picked.length === 0) return result;

  const lines = [csvLine(['fileId', 'expectedOutput', '# run', '# reviewedBy', '# reviewedAt', '# edits'], ',')];
  for (const { run, fileId, output } of picked) {
    lines.push(csvLine([fileId, JSON.stringify(output), run.id, at((run as Json).reviewedBy) ?? '', at((run as Json).reviewedAt) ?? '', run.edits ? JSON.stringify(run.edits) : ''], ','));
  }
  const tmp = opts.dryRun ? await mkdtemp(path.join(os.tmpdir(), 'evalkit-harvest-')) : undefined;
  const csv = tmp ? path.join(tmp, path.basename(opts.csv)) : opts.csv;
  try {
    await writeFileAtomic(csv, lines);
    result.upload = await uploadDataset({
      csv,
      evaluationSetId: opts.evaluationSetId,
      createSet: opts.createSet ? { name: opts.createSet.name, description: opts.createSet.description, processorId: opts.processorId } : undefined,
      processorVersion: opts.processorVersion,
      connect: opts.connect,
      fetch: opts.fetch,
      dryRun: opts.dryRun,
      skipInvalid: opts.skipInvalid,
      // A review is a deliberate correction: an item this harvest's journal has no record of (a
      // monthly --out file) takes the latest review; with a record the merge is three-way.
      csvWinsWithoutRecord: true,
      // A dry run reads the real journal (its last-applied records make the merge three-way) and writes none.
      journal: opts.dryRun && opts.journal !== false ? path.resolve(opts.journal ?? journalPathFor(opts.csv)) : opts.journal,
      concurrency: opts.concurrency,
      chunkSize: opts.chunkSize,
      maxRps: opts.maxRps,
      onProgress: opts.onProgress,
      onNotice: opts.onNotice,
      signal,
    });
    if (!tmp) result.csv = opts.csv;
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
  return result;
}
