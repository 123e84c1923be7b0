/** Processor runs (spec 4.6, 4.7; listing and `file: {fileId}` / `sync` from service-facts.md). */
import { createHash } from 'node:crypto';
import { assertProcessorAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import { HUB, type Json } from '../core.js';
import { decodeBase64, extractContents, fetchLoopback, fileTypeOf } from '../files.js';
import { withDownloads } from '../downloads.js';
import { badRequest, checkId, notFound, objectBody, optObject, optString, queryEnum, queryId, RawJson, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { pageOf, pageParams } from '../paging.js';
import { acceptConfig, loadProcessor, normalizeVersionLabel, resolveVersion } from '../resolve.js';
import type { Route } from '../router.js';
import { buildRun } from '../runs.js';
import { runObject, runSplice } from '../serialize.js';
import type { FileRow, RunRow, Where } from '../store.js';
import { isPlainObject } from '../../util/json.js';

export const RUN_STATUSES = ['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED'] as const;

/** Checks the priority rule of 4.6: integer 1 to 100, default 50. */
export function priorityOf(body: Json): number {
  const v = body.priority;
  if (v === undefined || v === null) return 50;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 100) throw badRequest('priority must be an integer from 1 to 100 (lower values are served first)');
  return v;
}

type FileSpec = { kind: 'id'; fileId: string } | { kind: 'url'; fileName: string; fileUrl: string } | { kind: 'base64'; fileName: string; fileBase64: string };

/** The body's `file`: {fileId}, or {fileName, fileUrl} / {fileName, fileBase64} with exactly one source. */
function fileSpec(v: unknown): FileSpec {
  if (!isPlainObject(v)) throw badRequest('file must be an object: {fileName, fileUrl} or {fileName, fileBase64} or {fileId}');
  const has = (k: string): boolean => v[k] !== undefined && v[k] !== null;
  if (has('fileId')) {
    if (has('fileUrl') || has('fileBase64')) throw badRequest('file: give fileId alone, or fileName with fileUrl or fileBase64');
    const id = optString(v, 'fileId', 'file.') as string;
    return { kind: 'id', fileId: checkId(id, 'file.fileId') };
  }
  if (has('fileUrl') && has('fileBase64')) throw badRequest('file: give exactly one source, fileUrl or fileBase64, not both');
  if (!has('fileUrl') && !has('fileBase64')) throw badRequest('file needs a source: fileUrl or fileBase64 (or fileId of an uploaded file)');
  const fileName = optString(v, 'fileName', 'file.');
  if (!fileName || !fileName.trim()) throw badRequest('file.fileName is required with fileUrl or fileBase64');
  if (has('fileUrl')) {
    const fileUrl = optString(v, 'fileUrl', 'file.') as string;
    if (!fileUrl.trim()) throw badRequest('file.fileUrl must be a non-empty string');
    return { kind: 'url', fileName, fileUrl };
  }
  return { kind: 'base64', fileName, fileBase64: optString(v, 'fileBase64', 'file.') as string };
}

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

async function create(req: Req, ctx: Ctx): Promise<RawJson> {
  const body = objectBody(req.body);
  // 400s of the body first (4.6), then 403/404, then the file itself.
  if (body.processorId === undefined || body.processorId === null || body.processorId === '') throw badRequest('processorId is required');
  if (typeof body.processorId !== 'string') throw badRequest('processorId must be a string');
  const hasFile = body.file !== undefined && body.file !== null;
  const hasText = body.rawText !== undefined && body.rawText !== null;
  if (!hasFile && !hasText) throw badRequest('one of file or rawText is required');
  if (hasFile && hasText) throw badRequest('give either file or rawText, not both');
  let text: string | undefined;
  let spec: FileSpec | undefined;
  if (hasText) {
    if (typeof body.rawText !== 'string' || body.rawText.trim() === '') throw badRequest('rawText must be a non-empty string');
    text = body.rawText;
  } else spec = fileSpec(body.file);
  const priority = priorityOf(body);
  const versionRef = optString(body, 'version');
  if (versionRef !== undefined && !normalizeVersionLabel(versionRef)) throw badRequest('version must be "latest", "draft" or a published version number such as "1.0"');
  const metadata = optObject(body, 'metadata') ?? {};
  const override = optObject(body, 'config');
  if (body.sync !== undefined && typeof body.sync !== 'boolean') throw badRequest('sync must be a boolean');

  const p = loadProcessor(ctx, req, body.processorId);
  const version = resolveVersion(ctx, p, versionRef);
  const config = override ? acceptConfig(ctx, override, p.type as never) : (JSON.parse(version.config) as Json);

  let file: FileRow | undefined;
  if (spec?.kind === 'id') {
    file = ctx.store.byId<FileRow>('files', spec.fileId);
    if (!file) throw badRequest(`file.fileId ${spec.fileId} does not exist (upload it with POST /files/upload first)`);
  } else if (spec?.kind === 'url') {
    fileTypeOf(spec.fileName, 'file.fileName');
    const url = spec.fileUrl;
    file = await storeFile(ctx, spec.fileName, await withDownloads(req, (signal) => fetchLoopback(url, 'file.fileUrl', ctx.maxBodyBytes, undefined, signal)), 'file.fileName');
  } else if (spec?.kind === 'base64') {
    fileTypeOf(spec.fileName, 'file.fileName');
    file = await storeFile(ctx, spec.fileName, decodeBase64(spec.fileBase64, 'file.fileBase64'), 'file.fileName');
  }

  const row = buildRun({
    id: ctx.ids('run'),
    processor: p, version, config, priority, metadata, source: 'API', sourceId: null, batchId: null, itemId: null, now: nowIso(),
    input: file ? { kind: 'file', file } : { kind: 'text', text: text as string },
  });
  let finished: Promise<void> | undefined;
  if (body.sync === true) {
    finished = new Promise((resolve) => {
      const off = ctx.events.on((e) => {
        if ((e.type === 'processor_run.processed' || e.type === 'processor_run.failed') && e.runId === row.id) {
          off();
          resolve();
        }
      });
      ctx.scheduler.idle().then(() => ctx.scheduler.isClosed && resolve());
    });
  }
  ctx.store.insertRuns([row]);
  ctx.scheduler.enqueue(row.id, priority);
  if (finished) await finished;
  const doc = finished ? ((ctx.store.byId<RunRow>('processor_runs', row.id) as RunRow).doc) : row.doc;
  return new RawJson(`{"success":true,"processorRun":${serve(ctx, doc, row.id, req)}}`);
}

/** Stored text + url for the current layout; parse and convert only for older versions. */
function serve(ctx: Ctx, doc: string, id: string, req: Req): string {
  return req.layout === HUB ? runSplice(ctx, doc, id) : JSON.stringify(runObject(ctx, JSON.parse(doc) as Json, req.layout));
}

function get(req: Req, ctx: Ctx): RawJson {
  const id = checkId(req.params.id, 'processor run id');
  const row = ctx.store.st('SELECT doc, processor_id FROM processor_runs WHERE id = ?').get(id) as { doc: string; processor_id: string } | undefined;
  if (!row) throw notFound(`processor run ${id} not found`);
  assertProcessorAccess(req.token, row.processor_id);
  return new RawJson(`{"success":true,"processorRun":${serve(ctx, row.doc, id, req)}}`);
}

function list(req: Req, ctx: Ctx): RawJson {
  const q = req.query;
  const page = pageParams(q, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const status = queryEnum(q, 'status', RUN_STATUSES);
  if (status) where.push(['status = ?', status]);
  const processorId = queryId(q, 'processorId');
  if (processorId) where.push(['processor_id = ?', processorId]);
  const type = queryEnum(q, 'processorType', ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const);
  if (type) where.push(['processor_type = ?', type]);
  const source = q.get('source');
  if (source) where.push(['source = ?', source]);
  const sourceId = queryId(q, 'sourceId');
  if (sourceId) where.push(['source_id = ?', sourceId]);
  const batchId = queryId(q, 'batchProcessorRunId');
  if (batchId) where.push(['batch_id = ?', batchId]);
  const nameContains = q.get('fileNameContains');
  if (nameContains) where.push(["file_name LIKE ? ESCAPE '\\'", `%${nameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  if (req.token.processors !== '*') where.push(['processor_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.processors])]);
  const rows = ctx.store.list<Pick<RunRow, 'seq' | 'id' | 'doc' | 'created_at' | 'updated_at'>>(
    'processor_runs',
    { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 },
    'seq, id, doc, created_at, updated_at',
  );
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => (page.sortCol === 'updated_at' ? r.updated_at : r.created_at));
  const parts = items.map((r) => serve(ctx, r.doc, r.id, req));
  return new RawJson(`{"success":true,"processorRuns":[${parts.join(',')}],"nextPageToken":${JSON.stringify(nextPageToken)}}`);
}

export const processorRunRoutes: Route[] = [
  { method: 'POST', pattern: '/processor_runs', versions: 'both', body: 'json', handler: create },
  { method: 'GET', pattern: '/processor_runs', versions: 'both', handler: list },
  { method: 'GET', pattern: '/processor_runs/:id', versions: 'both', handler: get },
];
