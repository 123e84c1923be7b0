/** Processor runs (spec 4.6, 4.7; listing and `file: {fileId}` / `sync` from service-facts.md). */
import type { Ctx } from '../context.js';
import { HUB, type Json } from '../core.js';
import { withDownloads } from '../downloads.js';
import { badRequest, checkId, objectBody, optObject, optString, queryEnum, queryId, RawJson, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { pageParams } from '../paging.js';
import { acceptConfig, loadProcessor, normalizeVersionLabel, resolveVersion } from '../resolve.js';
import type { Route } from '../router.js';
import { buildRun } from '../runs.js';
import { runObject, runSplice } from '../serialize.js';
import type { FileRow, RunRow } from '../store.js';
import { listRuns, loadRun, priorityOf, resolveSource, RUN_STATUSES, startRuns, type FileSource, type RunFilters } from '../runOps.js';
import { isPlainObject } from '../../util/json.js';

// Core operations of runs (runOps.ts), exported here too for the routes that import them from here.
export { prepareFile, priorityOf, RUN_STATUSES, storeFile } from '../runOps.js';

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
  if (spec?.kind === 'id') file = await resolveSource(ctx, { kind: 'id', fileId: spec.fileId, what: 'file.fileId' });
  else if (spec?.kind === 'url') {
    const src: FileSource = { kind: 'url', name: spec.fileName, url: spec.fileUrl, what: { url: 'file.fileUrl', name: 'file.fileName' } };
    file = await withDownloads(req, (signal) => resolveSource(ctx, src, signal));
  } else if (spec?.kind === 'base64') file = await resolveSource(ctx, { kind: 'base64', name: spec.fileName, base64: spec.fileBase64, what: { base64: 'file.fileBase64', name: 'file.fileName' } });

  const row = buildRun({
    id: ctx.ids('run'),
    processor: p, version, config, priority, metadata, source: 'API', sourceId: null, batchId: null, itemId: null, now: nowIso(),
    input: file ? { kind: 'file', file } : { kind: 'text', text: text as string },
  });
  // `sync: true` waits as long as the run takes (2026-02-09's sync routes have a 5-minute cap).
  const stored = await startRuns(ctx, [row], [], body.sync === true ? Infinity : undefined);
  return new RawJson(`{"success":true,"processorRun":${serve(ctx, stored.doc, row.id, req)}}`);
}

/** Stored text + url for the current layout; parse and convert only for older versions. */
function serve(ctx: Ctx, doc: string, id: string, req: Req): string {
  return req.layout === HUB ? runSplice(ctx, doc, id) : JSON.stringify(runObject(ctx, JSON.parse(doc) as Json, req.layout));
}

function get(req: Req, ctx: Ctx): RawJson {
  const row = loadRun(ctx, req, req.params.id);
  return new RawJson(`{"success":true,"processorRun":${serve(ctx, row.doc, row.id, req)}}`);
}

function list(req: Req, ctx: Ctx): RawJson {
  const q = req.query;
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const filters: RunFilters = {
    status: queryEnum(q, 'status', RUN_STATUSES),
    processorId: queryId(q, 'processorId'),
    processorType: queryEnum(q, 'processorType', ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const),
    source: q.get('source') || undefined,
    sourceId: queryId(q, 'sourceId'),
    batchId: queryId(q, 'batchProcessorRunId'),
    fileNameContains: q.get('fileNameContains') || undefined,
  };
  const { rows: items, nextPageToken } = listRuns<Pick<RunRow, 'seq' | 'id' | 'doc' | 'created_at' | 'updated_at'>>(ctx, req, filters, page, 'seq, id, doc, created_at, updated_at');
  const parts = items.map((r) => serve(ctx, r.doc, r.id, req));
  return new RawJson(`{"success":true,"processorRuns":[${parts.join(',')}],"nextPageToken":${JSON.stringify(nextPageToken)}}`);
}

export const processorRunRoutes: Route[] = [
  { method: 'POST', pattern: '/processor_runs', versions: 'both', body: 'json', handler: create },
  { method: 'GET', pattern: '/processor_runs', versions: 'both', handler: list },
  { method: 'GET', pattern: '/processor_runs/:id', versions: 'both', handler: get },
];
