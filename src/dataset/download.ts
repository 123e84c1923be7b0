/**
 * `evalkit dataset download`: an evaluation set as a CSV that `dataset upload` reads back to the
 * same items. Each row names its file (`fileId`, or with a files folder the downloaded copy's
 * path, `file`) and holds the whole expected output as JSON (`expectedOutput`), so the round trip
 * is exact for every processor type; `# item` (ignored by upload) keeps the item id.
 *
 * Files come from their presigned URLs, which carry their own authorisation: the API token is
 * never sent there. Everything is read before the CSV is written, and the CSV is written
 * atomically, so a failed download leaves no CSV that names missing files.
 */
import path from 'node:path';
import pLimit from 'p-limit';
import { isApiError, type Client, type EvalSet, type FetchLike } from '../api/index.js';
import { InputError } from '../util/errors.js';
import { AtomicWriter, writeFileAtomic } from '../util/fs.js';
import { fetchProcessorConfig } from '../expected/index.js';
import { isPlainObject } from '../util/json.js';
import { inForm, outputType } from './classes.js';
import { formOf } from './config.js';
import type { CoerceOptions } from './cells.js';
import { inCurrentLayout } from './config.js';
import { csvLine } from './rejects.js';
import { appliedKey, journalPathFor, readJournal, serviceKey } from './journal.js';
import { patiently, readItems } from './remote.js';
import { nameWithoutUploadTag } from './files.js';
import { applyWriteBack, lossyWriteBackError, planWriteBack, writeBackError, type CellChange, type DroppedValue, type WriteBackTarget } from './writeback.js';

export interface DownloadOptions {
  evaluationSetId: string;
  /** The CSV to write. */
  out: string;
  /** Also download each item's file into this folder; the CSV then names them by path. */
  filesDir?: string;
  concurrency?: number;
  /** For the presigned downloads (tests); default the global fetch. */
  fetch?: FetchLike;
  signal?: AbortSignal;
  onProgress?: (p: { phase: 'list' | 'files'; done: number; total?: number }) => void;
}

export interface DownloadResult {
  set: { id: string; name: string; processorId: string };
  csv: string;
  items: number;
  columns: string[];
  /** With a files folder: distinct files written there. */
  files?: { dir: string; written: number };
  /** The CSV names files outside its folder: upload needs --allow-outside. */
  outside: boolean;
}

/** A safe local file name for a service file name: no folders, no control characters. */
export function localName(serviceName: string | null | undefined, fileId: string): string {
  // evalkit names uploads `<stem>.ek<24 hex><ext>`; the copy gets the name the user gave.
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const base = nameWithoutUploadTag(serviceName ?? '').split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base === '' || base === '.' || base === '..' ? `${fileId}.bin` : base;
}

/** `inv.pdf`, `inv-2.pdf`, ... : the first name not yet taken (case-insensitively, for macOS and Windows). */
function unique(name: string, taken: Set<string>): string {
  const ext = path.extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

async function findSet(client: Client, id: string, signal?: AbortSignal): Promise<EvalSet> {
  return patiently(() => client.sets.retrieve(id, { signal })).catch((e: unknown) => {
    if (isApiError(e) && e.status === 404) throw new InputError(`evaluation set "${id}" not found`, { hint: 'check --evaluation-set: the id must exist and be visible to this token', cause: e });
    throw e;
  });
}

export async function downloadDataset(client: Client, opts: DownloadOptions): Promise<DownloadResult> {
  const { signal } = opts;
  const set = await findSet(client, opts.evaluationSetId, signal);
  const concurrency = Math.max(1, opts.concurrency ?? 8);
  const items = await readItems(client, set.id, { concurrency, signal, onListed: (n) => n % 1000 === 0 && opts.onProgress?.({ phase: 'list', done: n }) });
  const csv = path.resolve(opts.out);
  const csvDir = path.dirname(csv);
  let pathOf: Map<string, string> | undefined;
  let written = 0;
  let outside = false;
  if (opts.filesDir !== undefined) {
    const dir = path.resolve(opts.filesDir);
    const ids = [...new Set(items.map((i) => i.fileId))];
    const limit = pLimit(concurrency);
    const store = client.files;
    const files = await Promise.all(ids.map((id) => limit(() => patiently(() => store.retrieve(id, { signal })))));
    // Names in item order, so the same set gives the same paths.
    const taken = new Set<string>();
    pathOf = new Map(files.map((f, i) => [ids[i], path.join(dir, unique(localName(f.name, ids[i]), taken))]));
    const get = opts.fetch ?? ((url, init) => fetch(url, init));
    const writer = new AtomicWriter();
    await Promise.all(files.map((f, i) => limit(async () => {
      const target = pathOf!.get(ids[i])!;
      if (!f.presignedUrl) throw new InputError(`file ${f.id} has no presignedUrl to download it from`, { hint: 'download without --files: the CSV then names files by fileId' });
      // The presigned URL authorises itself; the API token must not travel to another host.
      const res = await get(f.presignedUrl, { method: 'GET', signal });
      if (!res.ok) throw new InputError(`downloading file ${f.id} (${f.name}) failed: HTTP ${res.status}`, { hint: 'run the download again; presigned URLs expire, a new run gets fresh ones' });
      await writer.write(target, new Uint8Array(await res.arrayBuffer()));
      written++;
      opts.onProgress?.({ phase: 'files', done: written, total: files.length });
    })));
    await writer.flush();
    outside = path.relative(csvDir, dir).split(path.sep)[0] === '..';
  }

  const columns = [pathOf ? 'file' : 'fileId', 'expectedOutput', '# item'];
  const lines = [csvLine(columns, ',')];
  for (const item of items) {
    const ref = pathOf ? path.relative(csvDir, pathOf.get(item.fileId)!).split(path.sep).join('/') : item.fileId;
    const out = item.expectedOutput;
    const shown = isPlainObject(out) ? inForm(out, outputType(out), formOf(client)) : out;
    lines.push(csvLine([ref, JSON.stringify(shown), item.id], ','));
  }
  await writeFileAtomic(csv, lines);
  return {
    set: { id: set.id, name: set.name, processorId: set.entityId },
    csv: opts.out,
    items: items.length,
    columns,
    ...(pathOf ? { files: { dir: opts.filesDir!, written } } : {}),
    outside,
  };
}

export interface DownloadIntoOptions {
  evaluationSetId: string;
  /** The dataset CSV to bring the set's labels into. */
  into: string;
  /** Version whose config reads the CSV's cells (default draft, as upload). */
  processorVersion?: string;
  coerce?: CoerceOptions;
  delimiter?: string;
  allowOutside?: boolean;
  /**
   * Rewrite rows whose cells hold what the form in effect has no place for (under 2026-02-09: a
   * CLASSIFY confidence other than 1 in a row whose label changed on the service), dropping those
   * values (listed in `dropped`). Without it such a download is refused and nothing is written.
   */
  allowLossy?: boolean;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface DownloadIntoResult {
  set: { id: string; name: string; processorId: string };
  csv: string;
  /** Rows whose cells changed, and how many cells. */
  rows: number;
  cells: number;
  /** Items the CSV already agrees with. */
  unchanged: number;
  /** Rows kept as they are: they hold an edit not yet uploaded (the set did not change since the last sync). */
  pending: number;
  /** Each row rewritten (or, in a dry run, to be), cell by cell: column, the text it held, the text it gets. */
  changes: Array<{ line: number; item: string; cells: CellChange[] }>;
  /** Items the CSV had no row for, appended as rows (fileId column). */
  appended: number;
  /** Items the CSV has no row for and cannot get one (no fileId column): left out. */
  missing: string[];
  /** Values the rewritten rows no longer hold (allowLossy), one per value: line, item, pointer in the output, value. */
  dropped: DroppedValue[];
  written: boolean;
}

/**
 * `dataset download --into data.csv`: the set's labels brought into an existing dataset CSV, the
 * way a corrections upload writes back (writeback.ts): each item's row (matched as a sync matches
 * it) gets the item's expected output, only in the cells that differ; an item without a row is
 * appended when the CSV has a fileId column. Rows without an item stay as they are.
 */
export async function downloadInto(client: Client, opts: DownloadIntoOptions): Promise<DownloadIntoResult> {
  const { signal } = opts;
  const set = await findSet(client, opts.evaluationSetId, signal);
  const config = inCurrentLayout(await patiently(() => fetchProcessorConfig(client, set.entityId, opts.processorVersion ?? 'draft')));
  const targets = new Map<string, WriteBackTarget>();
  const fileIdOf = new Map<string, string>();
  // Three-way, as a sync: with a record of the item's last sync, only what changed on the service
  // since is brought in, so a CSV edit not yet synced stays (and one the service changed too is refused).
  const { state } = await readJournal(journalPathFor(path.resolve(opts.into)), serviceKey(client.options.baseUrl));
  for (const item of await readItems(client, set.id, { concurrency: 8, signal })) {
    const last = state.applied.get(appliedKey(set.id, item.id));
    targets.set(item.id, last === undefined ? { after: item.expectedOutput as Record<string, unknown> } : { before: last, after: item.expectedOutput as Record<string, unknown> });
    fileIdOf.set(item.id, item.fileId);
  }
  const plan = await planWriteBack({ csv: opts.into, config, client, setId: set.id, targets, coerce: opts.coerce, delimiter: opts.delimiter, allowOutside: opts.allowOutside, appendMissing: true, fileIdOf, signal });
  if (plan.problems.length > 0) throw writeBackError(plan, `a label changed in both the CSV and the set since the last sync: settle it in ${opts.into} (or sync the CSV with --overwrite); a column the set's labels need: add it (or an expectedOutput column), or download the set as a new CSV with --out`);
  // As a corrections write-back: a value the form in effect cannot hold is not dropped unsaid.
  if (plan.dropped.length > 0 && !opts.allowLossy) {
    throw lossyWriteBackError(plan, 'downloaded', `pass --allow-lossy to drop them (each is listed), or settle those rows in ${opts.into} first (remove the confidence, or set the label the set holds)`);
  }
  const written = !opts.dryRun && (plan.edits.length > 0 || plan.appended.length > 0);
  if (written) await applyWriteBack(plan);
  return {
    set: { id: set.id, name: set.name, processorId: set.entityId },
    csv: opts.into,
    rows: plan.edits.length,
    cells: plan.cellsChanged,
    unchanged: plan.unchanged,
    pending: plan.pending,
    changes: plan.edits.map((e) => ({ line: e.line, item: e.item, cells: e.changes })),
    appended: plan.appended.length,
    missing: plan.missing,
    dropped: plan.dropped,
    written,
  };
}
