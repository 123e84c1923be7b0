/** Files (spec 4.14; upload, list and delete from service-facts.md; presigned downloads). */
import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { parseUpload } from '../files.js';
import { badRequest, BinaryBody, checkId, HttpError, notFound, queryFlag, type Req } from '../http.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import { deletedAnswer, fileSummary, listAnswer } from '../current.js';
import { fileJson, presignedUrl, signFile, type FileFlags } from '../serialize.js';
import type { FileRow, Where } from '../store.js';
import { storeFile } from './processorRuns.js';

const NO_CONTENTS = { rawText: false, markdown: false, html: false };
const FILE_COLUMNS = 'seq, id, name, type, mime, size, sha256, num_pages, raw_text, pages, html, parent_file_id, metadata, created_at, updated_at';

// Core operations: both edges (2025-04-21 `{success, file}`, 2026-02-09 bare `File_`) call these.

async function uploadFile(req: Req, ctx: Ctx): Promise<FileRow> {
  const part = await parseUpload(req.headers['content-type'], req.rawBody ?? Buffer.alloc(0));
  return storeFile(ctx, part.name, part.bytes, 'file');
}

function load(ctx: Ctx, id: string): FileRow {
  checkId(id, 'file id');
  const row = ctx.store.st(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`).get(id) as FileRow | undefined;
  if (!row) throw notFound(`file ${id} not found`);
  return row;
}

function flagsOf(req: Req): FileFlags {
  return { rawText: queryFlag(req.query, 'rawText'), markdown: queryFlag(req.query, 'markdown'), html: queryFlag(req.query, 'html') };
}

function listFiles(req: Req, ctx: Ctx, sorts: Record<string, string>): { rows: FileRow[]; nextPageToken: string | null } {
  const page = pageParams(req, ctx.secret, sorts, 'createdAt', 'desc');
  const where: Where[] = [];
  const nameContains = req.query.get('nameContains');
  if (nameContains) where.push(["name LIKE ? ESCAPE '\\'", `%${nameContains.replace(/[\\%_]/g, (c) => '\\' + c)}%`]);
  const rows = ctx.store.list<FileRow>('files', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 }, FILE_COLUMNS);
  return pageOf(rows, page, (r) => r[page.sortCol as keyof FileRow] as string);
}

function deleteFile(req: Req, ctx: Ctx): FileRow {
  const f = load(ctx, req.params.id);
  ctx.store.deleteById('files', f.id);
  return f;
}

// ---------------------------------------------------------------------------------------------
// 2025-04-21

async function upload(req: Req, ctx: Ctx): Promise<Record<string, unknown>> {
  return { success: true, file: fileJson(ctx, await uploadFile(req, ctx), NO_CONTENTS, req.version) };
}

function get(req: Req, ctx: Ctx): Record<string, unknown> {
  return { success: true, file: fileJson(ctx, load(ctx, req.params.id), flagsOf(req), req.version) };
}

function list(req: Req, ctx: Ctx): Record<string, unknown> {
  const { rows: items, nextPageToken } = listFiles(req, ctx, { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' });
  return { success: true, files: items.map((f) => fileJson(ctx, f, NO_CONTENTS, req.version)), nextPageToken };
}

function remove(req: Req, ctx: Ctx): Record<string, unknown> {
  const f = deleteFile(req, ctx);
  return { success: true, fileId: f.id, message: `file ${f.id} deleted` };
}

// ---------------------------------------------------------------------------------------------
// 2026-02-09 (spec 2 `files`, 7 `File_`, `FileSummary`)

/**
 * `File_`: the summary's members plus `presignedUrl` and `contents` (null when no flag asks for
 * any). rawText -> contents.rawText; markdown -> contents.pages[].markdown for PDF, IMG and DOCX;
 * html -> contents.pages[].html for DOCX (2026-02-09 has no top-level html).
 */
function file26(ctx: Ctx, f: FileRow, flags: FileFlags): Record<string, unknown> {
  let contents: Record<string, unknown> | null = null;
  if (flags.rawText || flags.markdown || flags.html) {
    contents = {};
    if (flags.rawText) contents.rawText = f.raw_text;
    const markdown = flags.markdown && (f.type === 'PDF' || f.type === 'IMG' || f.type === 'DOCX');
    const html = flags.html && f.type === 'DOCX';
    if (markdown || html) {
      contents.pages = (JSON.parse(f.pages) as string[]).map((text, i) => ({
        pageNumber: i + 1, ...(markdown ? { markdown: text } : {}), ...(html && i === 0 ? { html: f.html ?? '' } : {}),
      }));
    }
  }
  const { object, id, name, type, parentFileId, metadata, createdAt, updatedAt } = fileSummary(f);
  return { object, id, name, type, presignedUrl: presignedUrl(ctx, f.id), parentFileId, contents, metadata, createdAt, updatedAt };
}

/** `convertToPdf` is checked and not emulated (the sandbox keeps every file as uploaded); `password` is accepted and unused. */
async function upload26(req: Req, ctx: Ctx): Promise<Record<string, unknown>> {
  queryFlag(req.query, 'convertToPdf');
  return file26(ctx, await uploadFile(req, ctx), NO_CONTENTS);
}

function get26(req: Req, ctx: Ctx): Record<string, unknown> {
  return file26(ctx, load(ctx, req.params.id), flagsOf(req));
}

/** Files take `sortDir` only (spec 1.3): newest first by default. */
function list26(req: Req, ctx: Ctx): Record<string, unknown> {
  if (req.query.get('sortBy')) throw badRequest('file lists take sortDir only (by creation time)');
  const { rows, nextPageToken } = listFiles(req, ctx, { createdAt: 'created_at' });
  return { ...listAnswer(rows.map(fileSummary), nextPageToken) };
}

function remove26(req: Req, ctx: Ctx): Record<string, unknown> {
  return deletedAnswer(deleteFile(req, ctx).id);
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
  { method: 'POST', pattern: '/files/upload', versions: 'current', body: 'raw', handler: upload26 },
  { method: 'GET', pattern: '/files', versions: 'current', handler: list26 },
  { method: 'GET', pattern: '/files/:id', versions: 'current', handler: get26 },
  { method: 'DELETE', pattern: '/files/:id', versions: 'current', handler: remove26 },
];
