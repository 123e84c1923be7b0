/**
 * Processor runs as core operations: resolving a run's input, starting runs (and waiting for one),
 * loading, listing, cancelling and deleting them. Every API version's run routes call these and
 * only parse their request and render the result: the legacy `/processor_runs` routes
 * (2025-04-21, kept by 2026-02-09) and the 2026-02-09 `/extract_runs`, `/classify_runs`,
 * `/split_runs`, `/extract`, `/classify`, `/split` (routes/currentRuns.ts). One run is one row,
 * whichever route created it, and every route shows it.
 */
import { createHash } from 'node:crypto';
import { assertProcessorAccess } from './auth.js';
import type { Ctx } from './context.js';
import type { Json } from './core.js';
import { finishBatch } from './engine/process.js';
import { decodeBase64, extractContents, fetchLoopback, fileTypeOf } from './files.js';
import { badRequest, checkId, notFound, type Req } from './http.js';
import { nowIso } from './ids.js';
import { pageOf, type PageParams } from './paging.js';
import type { FileRow, RunRow, Where } from './store.js';
import { advanceWorkflowRun, WORKFLOW_SOURCE } from './workflows/runs.js';

export const RUN_STATUSES = ['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED'] as const;

/** Checks the priority rule of 4.6: integer 1 to 100, default 50. */
export function priorityOf(body: Json): number {
  const v = body.priority;
  if (v === undefined || v === null) return 50;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 100) throw badRequest('priority must be an integer from 1 to 100 (lower values are served first)');
  return v;
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** A file resource for bytes, parsed but not stored (type check and text extraction: 400s for bad files). */
export async function prepareFile(ctx: Ctx, name: string, bytes: Buffer, what: string): Promise<FileRow> {
  const t = fileTypeOf(name, what);
  const ex = await extractContents(t, bytes, name);
  const now = nowIso();
  return {
    seq: 0, id: ctx.ids('file'), name, type: t.type, mime: t.mime, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
    num_pages: Math.max(1, ex.pages.length), raw_text: ex.rawText, pages: JSON.stringify(ex.pages), html: ex.html, parent_file_id: null, metadata: null,
    created_at: now, updated_at: now,
  };
}

/** Stores bytes as a file resource (type check and text extraction first: 400s for bad files). */
export async function storeFile(ctx: Ctx, name: string, bytes: Buffer, what: string): Promise<FileRow> {
  const row = await prepareFile(ctx, name, bytes, what);
  ctx.store.insertFile(row, bytes);
  return row;
}

/**
 * Where a run's document comes from, as each version's edge parsed it. `what` names the member in
 * the caller's words (`file.fileId`, `file.id`, `inputs[3].file.url`) for the 400s.
 */
export type FileSource =
  | { kind: 'id'; fileId: string; what: string }
  | { kind: 'url'; name: string; url: string; what: { url: string; name: string } }
  | { kind: 'base64'; name: string; base64: string; what: { base64: string; name: string } }
  /** 2026-02-09 `{text, name}`: becomes a .txt file resource (spec 2.1). */
  | { kind: 'textFile'; name: string; text: string; what: string };

/** A file source -> a file resource that is not stored yet (`bytes` set) or already is. */
export async function prepareSource(ctx: Ctx, src: FileSource, signal?: AbortSignal): Promise<{ row: FileRow; bytes?: Buffer }> {
  if (src.kind === 'id') {
    const row = ctx.store.byId<FileRow>('files', src.fileId);
    if (!row) throw badRequest(`${src.what} ${src.fileId} does not exist (upload it with POST /files/upload first)`);
    return { row };
  }
  let name: string;
  let bytes: Buffer;
  let what: string;
  if (src.kind === 'url') {
    fileTypeOf(src.name, src.what.name);
    bytes = await fetchLoopback(src.url, src.what.url, ctx.maxBodyBytes, undefined, signal);
    ({ name, what } = { name: src.name, what: src.what.name });
  } else if (src.kind === 'base64') {
    fileTypeOf(src.name, src.what.name);
    bytes = decodeBase64(src.base64, src.what.base64);
    ({ name, what } = { name: src.name, what: src.what.name });
  } else {
    bytes = Buffer.from(src.text, 'utf8');
    ({ name, what } = { name: src.name, what: src.what });
  }
  return { row: await prepareFile(ctx, name, bytes, what), bytes };
}

/** A prepared source stored now (single runs; batches store theirs with the runs, in one transaction). */
export async function resolveSource(ctx: Ctx, src: FileSource, signal?: AbortSignal): Promise<FileRow> {
  const p = await prepareSource(ctx, src, signal);
  if (p.bytes) ctx.store.insertFile(p.row, p.bytes);
  return p.row;
}

// ---------------------------------------------------------------------------------------------
// Starting runs

/**
 * Stores runs (with the files they bring, and all in one transaction) and queues them. With
 * `waitMs`, resolves when the first run has ended or `waitMs` has passed, with its row as stored
 * then (a sync request's answer; the run goes on after a timeout).
 */
export async function startRuns(ctx: Ctx, runs: RunRow[], files: Array<{ row: FileRow; bytes: Buffer }> = [], waitMs?: number): Promise<RunRow> {
  const first = runs[0];
  const ended = waitMs === undefined ? undefined : untilEnded(ctx, first.id, waitMs);
  ctx.store.tx(() => {
    for (const f of files) ctx.store.insertFile(f.row, f.bytes);
    ctx.store.insertRuns(runs);
  });
  for (const r of runs) ctx.scheduler.enqueue(r.id, r.priority);
  if (ended) await ended.promise;
  // Stopped while waiting: the store is closing (or closed); the run resumes on the next start.
  if (ctx.scheduler.isClosed) return first;
  return waitMs === undefined ? first : ((ctx.store.byId<RunRow>('processor_runs', first.id) as RunRow | undefined) ?? first);
}

/** How often a waiting request looks at its run besides the engine's events (a cancel sends none). */
const WAIT_CHECK_MS = 250;

/** Subscribes before the run is stored, so that its end cannot be missed. */
function untilEnded(ctx: Ctx, id: string, waitMs: number): { promise: Promise<void> } {
  let done: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    done = resolve;
  });
  const timers: NodeJS.Timeout[] = [];
  const off = ctx.events.on((e) => {
    if ((e.type === 'processor_run.processed' || e.type === 'processor_run.failed') && e.runId === id) finish();
  });
  let offClose: () => void = () => undefined;
  function finish(): void {
    off();
    offClose();
    for (const t of timers) clearTimeout(t);
    clearInterval(check);
    done();
  }
  const check = setInterval(() => {
    if (ctx.scheduler.isClosed) return finish();
    const row = ctx.store.st('SELECT status FROM processor_runs WHERE id = ?').get(id) as { status: string } | undefined;
    if (ctx.scheduler.isClosed || !row || row.status !== 'PROCESSING') finish();
  }, WAIT_CHECK_MS);
  check.unref();
  if (Number.isFinite(waitMs)) timers.push(setTimeout(finish, waitMs));
  // Stop clears the timers (the wait timeout would keep the process alive, the check would read a closed store).
  offClose = ctx.scheduler.onClose(finish);
  return { promise };
}

// ---------------------------------------------------------------------------------------------
// Reading, listing, cancelling, deleting

/** 404 for an unknown run, 403 when the token may not use its processor. `noun`: "processor run", "extract run"... */
export function loadRun(ctx: Ctx, req: Req, id: string, noun = 'processor run'): RunRow {
  checkId(id, `${noun} id`);
  const row = ctx.store.byId<RunRow>('processor_runs', id);
  if (!row) throw notFound(`${noun} ${id} not found`);
  assertProcessorAccess(req.token, row.processor_id);
  return row;
}

export interface RunFilters {
  status?: string;
  processorId?: string;
  processorType?: string;
  source?: string;
  sourceId?: string;
  batchId?: string;
  fileNameContains?: string;
}

/** One page of runs, the token's processors only. */
export function listRuns<T extends { seq: number; created_at: string; updated_at: string }>(
  ctx: Ctx, req: Req, f: RunFilters, page: PageParams, columns: string,
): { rows: T[]; nextPageToken: string | null } {
  const where: Where[] = [];
  if (f.status) where.push(['status = ?', f.status]);
  if (f.processorId) where.push(['processor_id = ?', f.processorId]);
  if (f.processorType) where.push(['processor_type = ?', f.processorType]);
  if (f.source) where.push(['source = ?', f.source]);
  if (f.sourceId) where.push(['source_id = ?', f.sourceId]);
  if (f.batchId) where.push(['batch_id = ?', f.batchId]);
  if (f.fileNameContains) where.push(["file_name LIKE ? ESCAPE '\\'", `%${f.fileNameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  if (req.token.processors !== '*') where.push(['processor_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.processors])]);
  const rows = ctx.store.list<T>('processor_runs', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 }, columns);
  return pageOf(rows, page, (r) => (page.sortCol === 'updated_at' ? r.updated_at : r.created_at));
}

/** Ends a PROCESSING processor run as CANCELLED (inside the caller's transaction); false when it had already ended. */
export function cancelRunRow(ctx: Ctx, row: RunRow, now: string): boolean {
  const doc = JSON.parse(row.doc) as Json;
  doc.status = 'CANCELLED';
  doc.updatedAt = now;
  const batch = ctx.store.finishRun(row.id, 'CANCELLED', JSON.stringify(doc), 0, now, (b) => finishBatch(ctx, b));
  const ended = ctx.store.byId<RunRow>('processor_runs', row.id)?.status === 'CANCELLED';
  if (ended && row.source === WORKFLOW_SOURCE) {
    const step = advanceWorkflowRun(ctx, row, doc, now);
    if (step?.event) ctx.events.emit(step.event);
  }
  if (batch) ctx.events.emit({ type: batch.status === 'PROCESSED' ? 'batch_processor_run.processed' : 'batch_processor_run.failed', batchProcessorRunId: batch.id });
  return ended;
}

/** Only a PROCESSING run can be cancelled (spec 1.5): a 400 naming its status otherwise. */
export function cancelRun(ctx: Ctx, row: RunRow, noun: string): void {
  if (row.status !== 'PROCESSING') throw badRequest(`${noun} ${row.id} is ${row.status}; only a PROCESSING run can be cancelled`);
  if (!ctx.store.tx(() => cancelRunRow(ctx, row, nowIso()))) throw badRequest(`${noun} ${row.id} ended before it could be cancelled`);
}

/** A PROCESSING run cannot be deleted: a 400 that names the cancel route. */
export function deleteRun(ctx: Ctx, row: RunRow, noun: string, cancelPath: string): void {
  if (row.status === 'PROCESSING') throw badRequest(`${noun} ${row.id} is still PROCESSING; cancel it first (POST ${cancelPath})`);
  ctx.store.deleteById('processor_runs', row.id);
}
