/**
 * The sandbox's state in SQLite (better-sqlite3): ':memory:' by default, `<data-dir>/sandbox.db`
 * with --data-dir. WAL journal, and every change that spans rows (a batch and its runs, a run's
 * completion and its batch's metrics, a bulk of items) is one transaction, so a kill at any
 * moment leaves either the state before or the state after. synchronous=NORMAL keeps that
 * guarantee for a killed process (only an OS crash may lose the last commits).
 *
 * Resources that are read far more often than written (runs) are stored as their served JSON
 * text in the 2025-04-21 layout, so a GET splices text instead of rebuilding objects.
 * Statements are prepared once and cached by SQL text.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { InputError } from '../util/errors.js';

/**
 * 1: processors, versions, runs, files, evaluation sets and items, batch processor runs.
 * 2: workflows, workflow runs, webhook endpoints, deliveries and attempts. Only new tables, so a
 *    store of schema 1 is upgraded in place by the DDL's CREATE TABLE IF NOT EXISTS. The same
 *    holds for the tables API 2026-02-09 added (resource_meta, webhook_subscriptions).
 */
export const SCHEMA_VERSION = 2;

// The native module is loaded when a store is opened, not when this module is imported: the
// library entry and the commands that do not serve import the sandbox's module graph (through
// the demo and the report's replay reader) and must work where better-sqlite3 is not built.
const require = createRequire(import.meta.url);
let database: typeof BetterSqlite3 | undefined;
function openDatabase(file: string, options: BetterSqlite3.Options): Db {
  database ??= require('better-sqlite3') as typeof BetterSqlite3;
  return new database(file, options);
}

export interface ProcessorRow { seq: number; id: string; name: string; type: string; draft_version_id: string; created_at: string; updated_at: string }
export interface VersionRow { seq: number; id: string; processor_id: string; version: string; ord: number; description: string | null; config: string; created_at: string; updated_at: string }
export interface RunRow {
  seq: number; id: string; processor_id: string; processor_type: string; processor_version_id: string; status: string; priority: number;
  source: string; source_id: string | null; batch_id: string | null; item_id: string | null; file_id: string | null; file_name: string | null;
  created_at: string; updated_at: string; run_time_ms: number | null; num_pages: number; doc: string; job: string;
}
export interface FileRow {
  seq: number; id: string; name: string; type: string; mime: string; size: number; sha256: string; num_pages: number;
  raw_text: string; pages: string; html: string | null; parent_file_id: string | null; metadata: string | null; created_at: string; updated_at: string;
}
export interface SetRow { seq: number; id: string; name: string; description: string | null; processor_id: string; created_at: string; updated_at: string }
export interface ItemRow { seq: number; id: string; evaluation_set_id: string; file_id: string; expected: string; created_at: string; updated_at: string }
export interface BatchRow {
  seq: number; id: string; processor_id: string; processor_version_id: string; processor_name: string; status: string; source: string; source_id: string;
  run_count: number; done_count: number; options: string; metrics: string; created_at: string; updated_at: string;
}

export interface WorkflowRow { seq: number; id: string; name: string; source: string; created_at: string; updated_at: string }
export interface WorkflowVersionRow { seq: number; workflow_id: string; version: string; ord: number; steps: string; created_at: string; updated_at: string }
export interface WorkflowRunRow {
  seq: number; id: string; workflow_id: string; batch_id: string | null; status: string; file_name: string | null;
  created_at: string; updated_at: string; doc: string; job: string;
}
export interface EndpointRow { seq: number; id: string; url: string; api_version: string; secret: string; events: string; source: string; created_at: string; updated_at: string }
export interface DeliveryRow {
  seq: number; id: string; endpoint_id: string; event_id: string; event_type: string; body: string; status: string; attempts: number;
  next_attempt_at: string | null; created_at: string; updated_at: string;
}
/** What API 2026-02-09 shows of a resource that older rows do not carry (createdBy, a version's name, an endpoint's name...). */
export interface MetaRow { id: string; created_by: string | null; name: string | null; extra: string | null }
export interface SubscriptionRow {
  seq: number; id: string; endpoint_id: string; resource_type: string; resource_id: string; events: string; created_at: string; updated_at: string;
}
export interface AttemptRow { seq: number; delivery_id: string; attempt: number; at: string; duration_ms: number; status_code: number | null; error: string | null; ok: number }

export type Table =
  | 'processors' | 'processor_versions' | 'processor_runs' | 'files' | 'evaluation_sets' | 'evaluation_set_items' | 'batch_processor_runs'
  | 'workflows' | 'workflow_runs' | 'webhook_endpoints' | 'webhook_deliveries' | 'webhook_subscriptions';

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS processors (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, type TEXT NOT NULL,
  draft_version_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS processor_versions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, processor_id TEXT NOT NULL, version TEXT NOT NULL,
  ord INTEGER NOT NULL, description TEXT, config TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  UNIQUE (processor_id, version));
CREATE TABLE IF NOT EXISTS processor_runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, processor_id TEXT NOT NULL, processor_type TEXT NOT NULL,
  processor_version_id TEXT NOT NULL, status TEXT NOT NULL, priority INTEGER NOT NULL, source TEXT NOT NULL, source_id TEXT,
  batch_id TEXT, item_id TEXT, file_id TEXT, file_name TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  run_time_ms INTEGER, num_pages INTEGER NOT NULL DEFAULT 1, doc TEXT NOT NULL, job TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_batch ON processor_runs (batch_id, seq);
-- GET /batch_runs/{id} counts a run batch's runs by status from this index alone (2026-02-09).
CREATE INDEX IF NOT EXISTS runs_batch_status ON processor_runs (batch_id, source, processor_id, status, created_at);
CREATE INDEX IF NOT EXISTS runs_processor ON processor_runs (processor_id, seq);
CREATE INDEX IF NOT EXISTS runs_status ON processor_runs (status);
CREATE TABLE IF NOT EXISTS files (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, type TEXT NOT NULL, mime TEXT NOT NULL,
  size INTEGER NOT NULL, sha256 TEXT NOT NULL, num_pages INTEGER NOT NULL, raw_text TEXT NOT NULL, pages TEXT NOT NULL,
  html TEXT, content BLOB NOT NULL, parent_file_id TEXT, metadata TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluation_sets (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT,
  processor_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluation_set_items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, evaluation_set_id TEXT NOT NULL, file_id TEXT NOT NULL,
  expected TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS items_set ON evaluation_set_items (evaluation_set_id, seq);
CREATE INDEX IF NOT EXISTS items_file ON evaluation_set_items (file_id);
CREATE TABLE IF NOT EXISTS batch_processor_runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, processor_id TEXT NOT NULL, processor_version_id TEXT NOT NULL,
  processor_name TEXT NOT NULL, status TEXT NOT NULL, source TEXT NOT NULL, source_id TEXT NOT NULL, run_count INTEGER NOT NULL,
  done_count INTEGER NOT NULL, options TEXT NOT NULL, metrics TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workflows (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, source TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workflow_versions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, workflow_id TEXT NOT NULL, version TEXT NOT NULL, ord INTEGER NOT NULL, steps TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (workflow_id, version));
CREATE TABLE IF NOT EXISTS workflow_runs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, workflow_id TEXT NOT NULL, batch_id TEXT, status TEXT NOT NULL,
  file_name TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL, job TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS workflow_runs_batch ON workflow_runs (batch_id, seq);
CREATE INDEX IF NOT EXISTS workflow_runs_workflow ON workflow_runs (workflow_id, seq);
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, url TEXT NOT NULL, api_version TEXT NOT NULL, secret TEXT NOT NULL,
  events TEXT NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, endpoint_id TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL,
  body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS webhook_deliveries_status ON webhook_deliveries (status);
CREATE INDEX IF NOT EXISTS webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE TABLE IF NOT EXISTS webhook_attempts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, at TEXT NOT NULL, duration_ms INTEGER NOT NULL,
  status_code INTEGER, error TEXT, ok INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
CREATE TABLE IF NOT EXISTS resource_meta (id TEXT PRIMARY KEY, created_by TEXT, name TEXT, extra TEXT);
CREATE TABLE IF NOT EXISTS webhook_subscriptions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, endpoint_id TEXT NOT NULL, resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL, events TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (endpoint_id, resource_id));
`;

/** One condition of a list query: an SQL fragment written in code (never from input) and its values. */
export type Where = [sql: string, ...values: unknown[]];

export interface ListQuery {
  where: Where[];
  /** Column to sort by (from a whitelist in the route). */
  sortCol: string;
  dir: 'asc' | 'desc';
  /** Keyset cursor: rows strictly after (sortValue, seq). */
  after?: { value: string | number; seq: number };
  limit: number;
}

export class Store {
  // @internal members stay out of the published .d.ts (stripInternal), and with them
  // better-sqlite3's types, which are a devDependency.
  /** @internal */
  readonly db: Db;
  readonly persistent: boolean;
  private readonly stmts = new Map<string, Statement>();

  /**
   * `warn` receives what the owner should know but that does not stop the start (a store file
   * left readable by others that could not be tightened).
   */
  constructor(dataDir?: string, warn?: (line: string) => void) {
    this.persistent = Boolean(dataDir);
    let file = ':memory:';
    if (dataDir) {
      file = path.join(dataDir, 'sandbox.db');
      prepareStoreFile(dataDir, file, warn);
    }
    try {
      this.db = openDatabase(file, { timeout: 250 });
      if (dataDir) {
        this.db.pragma('journal_mode = WAL');
        // One sandbox per data dir: the first write takes a lock held until close.
        this.db.pragma('locking_mode = EXCLUSIVE');
      }
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(DDL);
      const v = this.getMeta('schema');
      if (v !== undefined && Number(v) > SCHEMA_VERSION) {
        throw new InputError(`data dir was written by a newer evalkit (store schema ${v}, this one reads ${SCHEMA_VERSION})`, { location: { file }, hint: 'upgrade evalkit or use another --data-dir' });
      }
      this.setMeta('schema', String(SCHEMA_VERSION));
    } catch (e) {
      if (e instanceof InputError) throw e;
      const code = (e as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        throw new InputError('data dir is in use by another sandbox', { location: { file }, hint: 'stop the other `evalkit sandbox` or use another --data-dir' });
      }
      if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
        throw new InputError(`cannot open the sandbox store: ${(e as Error).message}`, { location: { file }, hint: 'the file may be damaged; move it away to start fresh' });
      }
      if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_PERM')) {
        throw new InputError(`cannot write the sandbox store: ${(e as Error).message}`, {
          location: { file },
          hint: `check that ${dataDir ?? 'the data dir'}, ${file} and its -wal and -shm files are writable by this user, or use another --data-dir`,
        });
      }
      throw new InputError(`cannot open the sandbox store: ${(e as Error).message}`, { location: { file }, hint: 'move the file away to start fresh, or use another --data-dir' });
    }
  }

  /** A cached prepared statement. @internal */
  st(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  getMeta(key: string): string | undefined {
    return (this.st('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.st('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Newest timestamp in the store, so the clock never goes back after a restart. */
  latestTimestamp(): string | undefined {
    const row = this.st(
      `SELECT max(t) AS t FROM (SELECT max(updated_at) AS t FROM processors UNION ALL SELECT max(updated_at) FROM processor_versions
       UNION ALL SELECT max(updated_at) FROM processor_runs UNION ALL SELECT max(updated_at) FROM files
       UNION ALL SELECT max(updated_at) FROM evaluation_set_items UNION ALL SELECT max(updated_at) FROM batch_processor_runs
       UNION ALL SELECT max(updated_at) FROM workflows UNION ALL SELECT max(updated_at) FROM workflow_runs
       UNION ALL SELECT max(updated_at) FROM webhook_endpoints UNION ALL SELECT max(updated_at) FROM webhook_deliveries)`,
    ).get() as { t: string | null };
    return row.t ?? undefined;
  }

  byId<T>(table: Table, id: string): T | undefined {
    return this.st(`SELECT * FROM ${table} WHERE id = ?`).get(id) as T | undefined;
  }

  /** A page of rows (limit + 1 fetched by the caller to know whether another page exists). */
  list<T>(table: Table, q: ListQuery, columns = '*'): T[] {
    const conds: string[] = [];
    const values: unknown[] = [];
    for (const [sql, ...vals] of q.where) {
      conds.push(sql);
      values.push(...vals);
    }
    const cmp = q.dir === 'asc' ? '>' : '<';
    if (q.after) {
      if (q.sortCol === 'seq') {
        conds.push(`seq ${cmp} ?`);
        values.push(q.after.seq);
      } else {
        conds.push(`(${q.sortCol} ${cmp} ? OR (${q.sortCol} = ? AND seq ${cmp} ?))`);
        values.push(q.after.value, q.after.value, q.after.seq);
      }
    }
    const order = q.sortCol === 'seq' ? `seq ${q.dir}` : `${q.sortCol} ${q.dir}, seq ${q.dir}`;
    const sql = `SELECT ${columns} FROM ${table}${conds.length ? ' WHERE ' + conds.join(' AND ') : ''} ORDER BY ${order} LIMIT ?`;
    return this.st(sql).all(...values, q.limit) as T[];
  }

  // -------------------------------------------------------------------------------------------
  // Writes. Each public method is atomic on its own.

  insertProcessor(p: ProcessorRow, draft: VersionRow): void {
    this.tx(() => {
      this.st('INSERT INTO processors (id, name, type, draft_version_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        p.id, p.name, p.type, p.draft_version_id, p.created_at, p.updated_at,
      );
      this.insertVersion(draft);
    });
  }

  insertVersion(v: VersionRow): void {
    this.st('INSERT INTO processor_versions (id, processor_id, version, ord, description, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      v.id, v.processor_id, v.version, v.ord, v.description, v.config, v.created_at, v.updated_at,
    );
  }

  updateProcessor(id: string, draftVersionId: string, name: string | undefined, config: string | undefined, now: string): void {
    this.tx(() => {
      if (name !== undefined) this.st('UPDATE processors SET name = ?, updated_at = ? WHERE id = ?').run(name, now, id);
      else this.st('UPDATE processors SET updated_at = ? WHERE id = ?').run(now, id);
      if (config !== undefined) this.st('UPDATE processor_versions SET config = ?, updated_at = ? WHERE id = ?').run(config, now, draftVersionId);
    });
  }

  publish(v: VersionRow): void {
    this.tx(() => {
      this.insertVersion(v);
      this.st('UPDATE processors SET updated_at = ? WHERE id = ?').run(v.created_at, v.processor_id);
    });
  }

  latestPublished(processorId: string): VersionRow | undefined {
    return this.st("SELECT * FROM processor_versions WHERE processor_id = ? AND version <> 'draft' ORDER BY ord DESC LIMIT 1").get(processorId) as VersionRow | undefined;
  }

  versionByLabel(processorId: string, label: string): VersionRow | undefined {
    return this.st('SELECT * FROM processor_versions WHERE processor_id = ? AND version = ?').get(processorId, label) as VersionRow | undefined;
  }

  insertRuns(runs: RunRow[], batch?: BatchRow): void {
    this.tx(() => {
      if (batch) {
        this.st(
          `INSERT INTO batch_processor_runs (id, processor_id, processor_version_id, processor_name, status, source, source_id, run_count, done_count, options, metrics, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(batch.id, batch.processor_id, batch.processor_version_id, batch.processor_name, batch.status, batch.source, batch.source_id, batch.run_count, batch.done_count, batch.options, batch.metrics, batch.created_at, batch.updated_at);
      }
      const ins = this.st(
        `INSERT INTO processor_runs (id, processor_id, processor_type, processor_version_id, status, priority, source, source_id, batch_id, item_id, file_id, file_name, created_at, updated_at, run_time_ms, num_pages, doc, job)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const r of runs) {
        ins.run(r.id, r.processor_id, r.processor_type, r.processor_version_id, r.status, r.priority, r.source, r.source_id, r.batch_id, r.item_id, r.file_id, r.file_name, r.created_at, r.updated_at, r.run_time_ms, r.num_pages, r.doc, r.job);
      }
    });
  }

  /** Records a run's end; when it is the last run of its batch, `finishBatch` runs in the same transaction. */
  finishRun(id: string, status: string, doc: string, runTimeMs: number, now: string, finishBatch: (batch: BatchRow) => { status: string; metrics: string }): BatchRow | undefined {
    return this.tx(() => {
      const r = this.st("UPDATE processor_runs SET status = ?, doc = ?, run_time_ms = ?, updated_at = ? WHERE id = ? AND status = 'PROCESSING'").run(status, doc, runTimeMs, now, id);
      if (r.changes === 0) return undefined;
      const row = this.st('SELECT batch_id FROM processor_runs WHERE id = ?').get(id) as { batch_id: string | null };
      if (!row.batch_id) return undefined;
      this.st('UPDATE batch_processor_runs SET done_count = done_count + 1, updated_at = ? WHERE id = ?').run(now, row.batch_id);
      const batch = this.byId<BatchRow>('batch_processor_runs', row.batch_id);
      if (!batch || batch.done_count < batch.run_count || (batch.status !== 'PROCESSING' && batch.status !== 'PENDING')) return undefined;
      const done = finishBatch(batch);
      this.st('UPDATE batch_processor_runs SET status = ?, metrics = ?, updated_at = ? WHERE id = ?').run(done.status, done.metrics, now, batch.id);
      return { ...batch, status: done.status, metrics: done.metrics, updated_at: now };
    });
  }

  insertFile(f: FileRow, content: Buffer): void {
    this.st(
      `INSERT INTO files (id, name, type, mime, size, sha256, num_pages, raw_text, pages, html, content, parent_file_id, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(f.id, f.name, f.type, f.mime, f.size, f.sha256, f.num_pages, f.raw_text, f.pages, f.html, content, f.parent_file_id, f.metadata, f.created_at, f.updated_at);
  }

  fileContent(id: string): Buffer | undefined {
    return (this.st('SELECT content FROM files WHERE id = ?').get(id) as { content: Buffer } | undefined)?.content;
  }

  deleteById(table: Table, id: string): boolean {
    return this.st(`DELETE FROM ${table} WHERE id = ?`).run(id).changes > 0;
  }

  insertSet(s: SetRow): void {
    this.st('INSERT INTO evaluation_sets (id, name, description, processor_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      s.id, s.name, s.description, s.processor_id, s.created_at, s.updated_at,
    );
  }

  insertItems(items: ItemRow[]): void {
    this.tx(() => {
      const ins = this.st('INSERT INTO evaluation_set_items (id, evaluation_set_id, file_id, expected, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
      for (const i of items) ins.run(i.id, i.evaluation_set_id, i.file_id, i.expected, i.created_at, i.updated_at);
      if (items.length) this.st('UPDATE evaluation_sets SET updated_at = ? WHERE id = ?').run(items[0].created_at, items[0].evaluation_set_id);
    });
  }

  updateItem(id: string, expected: string, now: string): void {
    this.st('UPDATE evaluation_set_items SET expected = ?, updated_at = ? WHERE id = ?').run(expected, now, id);
  }

  allItems(setId: string): ItemRow[] {
    return this.st('SELECT * FROM evaluation_set_items WHERE evaluation_set_id = ? ORDER BY seq').all(setId) as ItemRow[];
  }

  /** The newest item holding this file in an evaluation set of the processor (the simulate engine's truth). */
  itemForFile(fileId: string, processorId: string): ItemRow | undefined {
    return this.st(
      `SELECT i.* FROM evaluation_set_items i JOIN evaluation_sets s ON s.id = i.evaluation_set_id
       WHERE i.file_id = ? AND s.processor_id = ? ORDER BY i.seq DESC LIMIT 1`,
    ).get(fileId, processorId) as ItemRow | undefined;
  }

  /** A PENDING evaluation (batch processor run) becomes PROCESSING when the engine takes up one of its runs. */
  markBatchStarted(runId: string, now: string): void {
    this.st("UPDATE batch_processor_runs SET status = 'PROCESSING', updated_at = ? WHERE status = 'PENDING' AND id = (SELECT batch_id FROM processor_runs WHERE id = ?)").run(now, runId);
  }

  runsOfBatch(batchId: string): RunRow[] {
    return this.st('SELECT * FROM processor_runs WHERE batch_id = ? ORDER BY seq').all(batchId) as RunRow[];
  }

  processingRuns(): Array<{ id: string; priority: number; seq: number }> {
    return this.st("SELECT id, priority, seq FROM processor_runs WHERE status = 'PROCESSING' ORDER BY seq").all() as Array<{ id: string; priority: number; seq: number }>;
  }
}

/** Owner only: the store holds the dev token and the webhook signing secret. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * The data dir (made 0700 when the sandbox creates it; an existing one is left as it is) and the
 * store file, created empty with 0600 before SQLite opens it: SQLite gives its -wal and -shm
 * files the mode of the database file. A store file (or -wal, -shm) left readable by others, by
 * an older evalkit for one, is tightened to 0600; when that fails (another user's file) a
 * warning says so. What is wrong with the path (a file in the way, a folder named sandbox.db,
 * no write permission) is an InputError naming it.
 */
function prepareStoreFile(dataDir: string, file: string, warn: ((line: string) => void) | undefined): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    if (code === 'EEXIST') throw notAFolder(dataDir);
    throw new InputError(code === 'ENOTDIR' ? `cannot create data dir: a folder above ${dataDir} is a file (${code})` : `cannot create data dir: ${code}`, {
      location: { file: dataDir },
      hint: code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'pick a --data-dir in a folder you can write' : 'check --data-dir',
    });
  }
  let isDir: boolean;
  try {
    isDir = statSync(dataDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw notAFolder(dataDir);
  const existing = statOf(file);
  if (existing?.isDirectory()) {
    throw new InputError(`the sandbox store ${file} is a folder, not a file`, { location: { file }, hint: `move the folder ${file} away, or use another --data-dir` });
  }
  try {
    closeSync(openSync(file, 'a', FILE_MODE));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new InputError(existing ? `the sandbox store ${file} is not writable (${code})` : `data dir ${dataDir} is not writable (${code})`, {
        location: { file: existing ? file : dataDir },
        hint: existing ? `make it writable by this user (chmod u+w ${file}), or use another --data-dir` : `make it writable by this user (chmod u+w ${dataDir}), or use another --data-dir`,
      });
    }
    if (code === 'EISDIR') throw new InputError(`the sandbox store ${file} is a folder, not a file`, { location: { file }, hint: `move the folder ${file} away, or use another --data-dir` });
    throw new InputError(`cannot create the sandbox store: ${code}`, { location: { file }, hint: 'check --data-dir' });
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    const st = statOf(f);
    if (!st || !st.isFile() || (st.mode & 0o077) === 0) continue;
    try {
      chmodSync(f, st.mode & 0o700);
    } catch (e) {
      warn?.(`sandbox: warning: ${f} holds the dev token and is readable by other users (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}), and it cannot be made owner-only (${(e as NodeJS.ErrnoException).code ?? String(e)}): chmod 600 ${f}`);
    }
  }
}

function notAFolder(dataDir: string): InputError {
  return new InputError(`data dir is not a folder: ${dataDir} is a file`, { location: { file: dataDir }, hint: 'point --data-dir at a folder (it is made when missing)' });
}

function statOf(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
