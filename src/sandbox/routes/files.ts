/** Files (spec 4.14; upload, list and delete from service-facts.md; presigned downloads). */
import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { parseUpload } from '../files.js';
import { badRequest, BinaryBody, checkId, HttpError, notFound, queryFlag, type Req } from '../http.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import { fileJson, signFile } from '../serialize.js';
import type { FileRow, Where } from '../store.js';
import { storeFile } from './processorRuns.js';

const NO_CONTENTS = { rawText: false, markdown: false, html: false };
const FILE_COLUMNS = 'seq, id, name, type, mime, size, sha256, num_pages, raw_text, pages, html, parent_file_id, metadata, created_at, updated_at';

async function upload(req: Req, ctx: Ctx): Promise<Record<string, unknown>> {
  const part = await parseUpload(req.headers['content-type'], req.rawBody ?? Buffer.alloc(0));
  const row = await storeFile(ctx, part.name, part.bytes, 'file');
  return { success: true, file: fileJson(ctx, row, NO_CONTENTS, req.version) };
}

function load(ctx: Ctx, id: string): FileRow {
  checkId(id, 'file id');
  const row = ctx.store.st(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`).get(id) as FileRow | undefined;
  if (!row) throw notFound(`file ${id} not found`);
  return row;
}

function get(req: Req, ctx: Ctx): Record<string, unknown> {
  const flags = { rawText: queryFlag(req.query, 'rawText'), markdown: queryFlag(req.query, 'markdown'), html: queryFlag(req.query, 'html') };
  return { success: true, file: fileJson(ctx, load(ctx, req.params.id), flags, req.version) };
}

function list(req: Req, ctx: Ctx): Record<string, unknown> {
  const page = pageParams(req.query, { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const nameContains = req.query.get('nameContains');
  if (nameContains) where.push(["name LIKE ? ESCAPE '\\'", `%${nameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  const rows = ctx.store.list<FileRow>('files', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 }, FILE_COLUMNS);
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r[page.sortCol as keyof FileRow] as string);
  return { success: true, files: items.map((f) => fileJson(ctx, f, NO_CONTENTS, req.version)), nextPageToken };
}

function remove(req: Req, ctx: Ctx): Record<string, unknown> {
  const f = load(ctx, req.params.id);
  ctx.store.deleteById('files', f.id);
  return { success: true, fileId: f.id, message: `file ${f.id} deleted` };
}

/** GET /files/:id/content?expires=&signature= : the presignedUrl (a sandbox route, no token). */
function content(req: Req, ctx: Ctx): BinaryBody {
  const id = checkId(req.params.id, 'file id');
  const expires = Number(req.query.get('expires'));
  const sig = req.query.get('signature') ?? '';
  if (!Number.isInteger(expires) || !/^[0-9a-f]{64}$/.test(sig)) throw badRequest('a presigned URL needs expires and signature');
  const want = Buffer.from(signFile(ctx.secret, id, expires), 'hex');
  if (!timingSafeEqual(want, Buffer.from(sig, 'hex'))) throw new HttpError(403, 'presigned URL signature is invalid');
  if (expires < Date.now() / 1000) throw new HttpError(403, 'presigned URL has expired; get the file again for a fresh presignedUrl');
  const row = ctx.store.st('SELECT name, mime, content FROM files WHERE id = ?').get(id) as { name: string; mime: string; content: Buffer } | undefined;
  if (!row) throw notFound(`file ${id} not found`);
  return new BinaryBody(row.content, row.mime, row.name);
}

export const fileRoutes: Route[] = [
  { method: 'POST', pattern: '/files/upload', body: 'raw', handler: upload },
  { method: 'GET', pattern: '/files', handler: list },
  { method: 'GET', pattern: '/files/:id', handler: get },
  { method: 'DELETE', pattern: '/files/:id', handler: remove },
  { method: 'GET', pattern: '/files/:id/content', public: true, handler: content },
];
