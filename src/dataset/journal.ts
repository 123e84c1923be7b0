/**
 * The upload journal: append-only NDJSON, one record before and one after each file upload and
 * item operation. Each record is written with a synchronous write before the request goes out
 * (or right after its answer), so after kill -9 the journal holds every operation that could
 * have reached the service. A re-run reads it to learn which files are already uploaded (content
 * hash -> fileId) and which uploads were in flight; items are always reconciled with the
 * service itself, so a lost journal costs re-uploads, never duplicate items.
 *
 * `applied` records are the last-applied state of the three-way sync (merge.ts): the CSV's
 * expected output of an item, written once the service holds what that sync meant it to hold.
 * A journal from before them (format 1) replays the same way with no record of any item, which
 * the sync treats as a first sync: nothing to migrate on disk, and the next sync adds them.
 *
 * The token never goes in; the service is recorded as its origin and path only.
 */
import { closeSync, fsyncSync, openSync, promises as fsp, writeSync } from 'node:fs';

export type JournalRecord =
  | { k: 'run'; at: string; service: string; csv: string; set?: string; dryRun?: boolean; v?: typeof JOURNAL_FORMAT }
  | { k: 'set'; op: 'start'; name: string; processorId: string }
  | { k: 'set'; op: 'done'; name: string; processorId: string; id: string }
  | { k: 'file'; op: 'start'; sha256: string; path: string }
  | { k: 'file'; op: 'done'; sha256: string; fileId: string; reused?: boolean }
  | { k: 'file'; op: 'fail'; sha256: string; error: string; uncertain?: boolean }
  | { k: 'create'; op: 'start'; set: string; batch: number; lines: number[]; ids: string[] }
  | { k: 'create'; op: 'done'; set: string; batch: number; items: string[] }
  | { k: 'create'; op: 'fail'; set: string; batch: number; error: string; uncertain?: boolean }
  | { k: 'writeback'; op: 'start' | 'done'; csv: string; rows: number; cells: number }
  | { k: 'update'; op: 'start' | 'done'; set: string; item: string; line: number }
  | { k: 'update'; op: 'fail'; set: string; item: string; line: number; error: string }
  | { k: 'delete'; op: 'start' | 'done'; set: string; item: string }
  | { k: 'delete'; op: 'fail'; set: string; item: string; error: string }
  | { k: 'applied'; set: string; item: string; labels: unknown }
  | { k: 'end'; at: string; tally: Record<string, number> };

/** Written in each run record since the journal holds `applied` records; absent: format 1. */
export const JOURNAL_FORMAT = 2;

export interface JournalState {
  /** Content hash -> uploaded file id, from runs against the same service. */
  files: Map<string, string>;
  /** Uploads that were sent but whose answer never made it into the journal. */
  pendingFiles: Set<string>;
  /** `processorId\0name` -> evaluation set id created by --create-set. */
  sets: Map<string, string>;
  /** Sets whose creation was sent without a recorded answer. */
  pendingSets: Set<string>;
  /** `setId\0itemId` -> the CSV's expected output at the item's last sync (what the sync applied). */
  applied: Map<string, unknown>;
  records: number;
  /** Lines that did not parse (a torn last line after a crash is normal). */
  skipped: number;
}

export function emptyState(): JournalState {
  return { files: new Map(), pendingFiles: new Set(), sets: new Map(), pendingSets: new Set(), applied: new Map(), records: 0, skipped: 0 };
}

/** Folds a journal's text into what a re-run needs; records of other services are ignored. */
export function replayJournal(text: string, service: string): JournalState {
  const st = emptyState();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let r: JournalRecord;
    try {
      r = JSON.parse(line) as JournalRecord;
    } catch {
      st.skipped++;
      continue;
    }
    st.records++;
    if (r.k === 'run') {
      current = r.service;
      continue;
    }
    if (current !== service) continue;
    if (r.k === 'file') {
      if (r.op === 'start') {
        if (!st.files.has(r.sha256)) st.pendingFiles.add(r.sha256);
      } else if (r.op === 'done') {
        st.files.set(r.sha256, r.fileId);
        st.pendingFiles.delete(r.sha256);
      } else if (!r.uncertain) st.pendingFiles.delete(r.sha256);
    } else if (r.k === 'applied') {
      st.applied.set(appliedKey(r.set, r.item), r.labels);
    } else if (r.k === 'delete' && r.op === 'done') {
      st.applied.delete(appliedKey(r.set, r.item));
    } else if (r.k === 'set') {
      const key = `${r.processorId}\0${r.name}`;
      if (r.op === 'start') st.pendingSets.add(key);
      else {
        st.sets.set(key, r.id);
        st.pendingSets.delete(key);
      }
    }
  }
  return st;
}

export async function readJournal(file: string, service: string): Promise<{ state: JournalState; existed: boolean }> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyState(), existed: false };
    throw e;
  }
  return { state: replayJournal(text, service), existed: true };
}

export interface JournalWriter {
  write(record: JournalRecord): void;
  close(): void;
}

/** Appends records with one synchronous write each (whole lines, so a crash tears at most the last). */
export function openJournal(file: string): JournalWriter {
  const fd = openSync(file, 'a', 0o600);
  let open = true;
  return {
    write(record) {
      if (open) writeSync(fd, JSON.stringify(record) + '\n');
    },
    close() {
      if (!open) return;
      open = false;
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

export function appliedKey(setId: string, itemId: string): string {
  return `${setId}\0${itemId}`;
}

/**
 * Records that the service holds, for this item, what the CSV's `labels` (its whole expected
 * output) mean: the next sync compares against them. Call it after the service confirmed the
 * write (or found the item already so): a kill before it costs nothing, since the next sync
 * then sees CSV and service agree and records it again.
 */
export function recordApplied(journal: JournalWriter, setId: string, itemId: string, labels: unknown): void {
  journal.write({ k: 'applied', set: setId, item: itemId, labels });
}

/** A journal that records nothing (dry runs). */
export const NO_JOURNAL: JournalWriter = { write() {}, close() {} };

/** The service as the journal names it: origin and path, never credentials or the query. */
export function serviceKey(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl;
  }
}

export function journalPathFor(csvFile: string): string {
  return `${csvFile.replace(/\.csv$/i, '')}.journal.ndjson`;
}
