/**
 * `evalkit view`'s server: 127.0.0.1 only; every request must name the host it printed
 * (`Host: 127.0.0.1:<port>`), so a page of another site that rebinds its name to 127.0.0.1 gets
 * nothing; GET and HEAD only. It serves the index of reports, each report's explorer with the
 * document pane, a document's pane data and file (looked up by item id, never by a path from
 * the URL), the pane's script and pdf.js's browser build from the installed pdfjs-dist.
 */
import { createReadStream, readFileSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ExportItem } from '../metrics/generated/export.js';
import { nameWithoutUploadTag } from '../dataset/files.js';
import { esc } from '../report/html.js';
import { paneMain } from './client.js';
import { escapeControls } from '../util/controls.js';
import { paneDocument, type PaneDocument } from './documents.js';
import { isInside, kindOf, type FileFinder } from './files.js';
import { viewPage } from './page.js';
import type { TiffPage } from './tiff.js';
import { itemsById, type ViewReport } from './reports.js';

export interface ViewOptions {
  reports: readonly ViewReport[];
  finder: FileFinder;
  /** 0: any free port. */
  port: number;
  /** The service's copy of a file, when the user asked for it (the token stays in the caller). */
  remoteFile?: (fileId: string) => Promise<Uint8Array>;
  /** The report history's charts (`--history`): an HTML section, made on each request of /history. */
  history?: () => Promise<string>;
  /** Largest file served, in bytes (a larger one is said so in the pane). */
  maxFileBytes?: number;
  /** The service's copies kept in memory, in bytes (default 256 MiB); the least recently used go first. */
  remoteCacheBytes?: number;
}

export interface ViewServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export const HOST = '127.0.0.1';
const MAX_FILE_BYTES = 256 * 2 ** 20;
/** The service's copies (--remote-files) kept in memory, in bytes; the oldest go first. */
const REMOTE_CACHE_BYTES = 256 * 2 ** 20;

const require = createRequire(import.meta.url);
/** pdfjs-dist's folder: its browser build, worker, standard fonts and CMaps are served from it. */
function pdfjsDir(): string {
  return realpathSync(path.dirname(require.resolve('pdfjs-dist/package.json')));
}
const PDFJS_FILES = new Map([
  ['pdf.min.mjs', 'build/pdf.min.mjs'],
  ['pdf.worker.min.mjs', 'build/pdf.worker.min.mjs'],
]);
const PDFJS_DIRS = ['standard_fonts', 'cmaps'];

const PANE_SCRIPT = `"use strict";var __name=function(f){return f};(${paneMain.toString()})(${escapeControls.toString()});`;

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
};

export async function startView(opts: ViewOptions): Promise<ViewServer> {
  const pdfjs = pdfjsDir();
  const items = new Map<string, Promise<Map<string, ExportItem> | undefined>>();
  const itemsOf = (file: string | undefined): Promise<Map<string, ExportItem> | undefined> => {
    if (!file) return Promise.resolve(undefined);
    let p = items.get(file);
    if (!p) items.set(file, (p = itemsById(file)));
    return p;
  };
  const multi = opts.reports.length > 1;
  let expectedHost = '';

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `evalkit view: ${e instanceof Error ? e.message : String(e)}`);
      else res.destroy();
    });
  });

  function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
    res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), 'content-security-policy': "default-src 'none'", ...extra });
    res.end(body);
  }
  const json = (res: http.ServerResponse, status: number, body: unknown): void => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

  function sendFile(res: http.ServerResponse, file: string, type: string): void {
    const size = statSync(file).size;
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(size), 'content-security-policy': "default-src 'none'" });
    createReadStream(file).pipe(res);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // DNS rebinding: a browser sends the name it looked up; only the address printed is ours.
    if (req.headers.host !== expectedHost) return send(res, 421, 'text/plain; charset=utf-8', `evalkit view answers only to Host ${expectedHost}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'GET only\n', { allow: 'GET, HEAD' });
    const url = new URL(req.url ?? '/', `http://${expectedHost}`);
    const p = url.pathname;
    if (p === '/') {
      if (!multi && !opts.history) return send(res, 302, 'text/plain; charset=utf-8', '', { location: '/r/0/' });
      return send(res, 200, 'text/html; charset=utf-8', indexPage(opts.reports, !!opts.history), { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
    }
    if (p === '/history' && opts.history) return send(res, 200, 'text/html; charset=utf-8', historyPage(await opts.history()), { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
    if (p === '/_view/view.js') return send(res, 200, 'text/javascript; charset=utf-8', PANE_SCRIPT);
    // Browsers ask every page's icon: none, rather than a 404 in the console.
    if (p === '/favicon.ico') return void res.writeHead(204, SECURITY_HEADERS).end();
    if (p.startsWith('/_view/pdfjs/')) {
      const rest = p.slice('/_view/pdfjs/'.length);
      const fixed = PDFJS_FILES.get(rest);
      if (fixed) return sendFile(res, path.join(pdfjs, fixed), 'text/javascript; charset=utf-8');
      const [dir, name, ...more] = rest.split('/');
      if (PDFJS_DIRS.includes(dir) && name && more.length === 0 && /^[A-Za-z0-9_.-]+$/.test(name)) {
        const file = path.join(pdfjs, dir, name);
        try {
          const real = realpathSync(file);
          if (isInside(path.join(pdfjs, dir), real) && statSync(real).isFile()) return sendFile(res, real, 'application/octet-stream');
        } catch {
          // 404 below
        }
      }
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    }
    const m = /^\/r\/(\d+)\/(|api\/doc|file)$/.exec(p);
    const r = m ? opts.reports[Number(m[1])] : undefined;
    if (!m || !r) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    const base = `/r/${r.index}/`;
    if (m[2] === '') {
      const page = viewPage(await readFile(r.html, 'utf8'), base, multi ? '/' : null);
      if (!page) return send(res, 500, 'text/plain; charset=utf-8', `${r.shown}/report.html was not written by this evalkit (no explorer in it); run evalkit report again\n`);
      return send(res, 200, 'text/html; charset=utf-8', page.html, { 'content-security-policy': page.csp });
    }
    const id = url.searchParams.get('id') ?? '';
    const run = await itemsOf(r.exportFile);
    if (!run) {
      const why = r.exportFile ? `the export ${r.exportFile} cannot be read` : `the export ${r.report.source.file} is not beside report.json in ${r.shown}, nor the one file of that name under the folder evalkit view runs in`;
      return json(res, 404, { error: `${why}: evalkit view needs it for the documents' citations and files` });
    }
    const item = run.get(id);
    if (!item) return json(res, 404, { error: `no document ${id} in ${r.exportFile}` });
    if (m[2] === 'api/doc') {
      const baseItems = await itemsOf(r.baselineFile);
      const baseline = baseItems?.get(id) ?? [...(baseItems?.values() ?? [])].find((b) => b.fileId === item.fileId);
      const baselineMissing =
        r.report.baseline?.kind === 'export' && !baseItems
          ? r.baselineFile
            ? `its export ${r.baselineFile} cannot be read`
            : `its export ${r.report.baseline.file} was not found beside report.json nor as the one file of that name under the folder evalkit view runs in`
          : undefined;
      const pane = (file: Parameters<typeof paneDocument>[3]): PaneDocument => ({ ...paneDocument(r.report.type, item, baseline, file), ...(baselineMissing ? { baselineMissing } : {}) });
      const where = await locate(item);
      const url = `${base}file?id=${encodeURIComponent(id)}`;
      if ('missing' in where) return json(res, 200, pane(where));
      if (kindOf(item.fileName ?? '').kind !== 'tiff') return json(res, 200, pane({ url }));
      // A TIFF's pages are listed now (their sizes, without decoding pixels) and drawn as PNG one by one.
      let pages: TiffPage[];
      try {
        const { tiffPages } = await import('./tiff.js');
        pages = tiffPages(where.bytes ?? (await readFile(where.file as string)));
      } catch (e) {
        return json(res, 200, pane({ missing: `${nameWithoutUploadTag(item.fileName ?? '')} cannot be drawn: it is ${(e as Error).message}` }));
      }
      return json(res, 200, pane({ url, pages }));
    }
    const where = await locate(item);
    if ('missing' in where) return send(res, 404, 'text/plain; charset=utf-8', `${where.missing}\n`);
    if (kindOf(item.fileName ?? '').kind === 'tiff') {
      const page = Number(url.searchParams.get('page') ?? '1');
      if (!Number.isInteger(page) || page < 1) return send(res, 400, 'text/plain; charset=utf-8', `page=${url.searchParams.get('page')}: a page number from 1\n`);
      let png: Uint8Array;
      try {
        const { tiffPagePng } = await import('./tiff.js');
        png = tiffPagePng(where.bytes ?? (await readFile(where.file as string)), page);
      } catch (e) {
        return send(res, 404, 'text/plain; charset=utf-8', `${(e as Error).message}\n`);
      }
      return send(res, 200, 'image/png', Buffer.from(png));
    }
    const type = kindOf(item.fileName ?? '').mime;
    if (where.bytes) return send(res, 200, type, Buffer.from(where.bytes));
    return sendFile(res, where.file as string, type);
  }

  // The service's copies, most recently used last: opening a document asks for its pane data and
  // then its file, and both need the file, so one download serves both (and a reopened document).
  // A failed download is not kept: the next request tries again.
  const downloads = new Map<string, Promise<Uint8Array>>();
  const kept = new Map<string, number>();
  function remote(fileId: string): Promise<Uint8Array> {
    let p = downloads.get(fileId);
    if (p) {
      downloads.delete(fileId);
      downloads.set(fileId, p);
      return p;
    }
    p = (opts.remoteFile as NonNullable<ViewOptions['remoteFile']>)(fileId);
    downloads.set(fileId, p);
    p.then(
      (bytes) => {
        if (downloads.get(fileId) !== p) return;
        kept.set(fileId, bytes.length);
        let total = [...kept.values()].reduce((a, b) => a + b, 0);
        // The least recently used first; downloads still running are not counted nor dropped.
        for (const old of [...downloads.keys()]) {
          if (total <= (opts.remoteCacheBytes ?? REMOTE_CACHE_BYTES)) break;
          if (old === fileId || !kept.has(old)) continue;
          total -= kept.get(old) as number;
          kept.delete(old);
          downloads.delete(old);
        }
      },
      () => {
        if (downloads.get(fileId) === p) downloads.delete(fileId);
      },
    );
    return p;
  }

  /** A document's file: on disk (inside the allowed folders), else the service's when asked for; or why not. */
  async function locate(item: ExportItem): Promise<{ file?: string; bytes?: Uint8Array } | { missing: string }> {
    const found = opts.finder.find(item.fileName);
    if (found.ok) {
      const size = statSync(found.file).size;
      if (size > (opts.maxFileBytes ?? MAX_FILE_BYTES)) return { missing: `${found.file} is ${size} bytes, more than evalkit view serves (${opts.maxFileBytes ?? MAX_FILE_BYTES})` };
      return { file: found.file };
    }
    if (opts.remoteFile && item.fileId) {
      try {
        const bytes = await remote(item.fileId);
        const max = opts.maxFileBytes ?? MAX_FILE_BYTES;
        if (bytes.length > max) return { missing: `${found.why}; the service's copy of ${item.fileId} is ${bytes.length} bytes, more than evalkit view serves (${max})` };
        return { bytes };
      } catch (e) {
        return { missing: `${found.why}; the service's copy of ${item.fileId} could not be downloaded: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
    return { missing: found.why };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  expectedHost = `${HOST}:${port}`;
  // Read the exports now, in the background: the first document opened need not wait for them.
  for (const r of opts.reports) {
    void itemsOf(r.exportFile);
    void itemsOf(r.baselineFile);
  }
  return {
    url: `http://${expectedHost}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function indexPage(reports: readonly ViewReport[], history: boolean): string {
  const rows = reports
    .map((r) => {
      const p = r.report.source.processor;
      const head =
        r.report.extract ? `micro F1 ${r.report.extract.micro.f1.value?.toFixed(3) ?? 'n/a'}` : r.report.classify ? `accuracy ${r.report.classify.accuracy.value?.toFixed(3) ?? 'n/a'}` : r.report.splitter ? `F1 ${r.report.splitter.f1.value?.toFixed(3) ?? 'n/a'}` : '';
      return `<tr><td><a href="/r/${r.index}/">${esc(r.shown)}</a></td><td>${esc(p.name || p.id)} ${esc(p.version)}</td><td>${esc(r.report.type)}</td><td>${r.report.summary.documents}</td><td>${esc(head)}</td><td>${r.report.baseline ? esc(r.report.baseline.file) : ''}</td></tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>evalkit view</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}th,td{border-bottom:1px solid #ccc;padding:4px 10px;text-align:left}</style></head>
<body><h1>evalkit view: ${reports.length} report${reports.length === 1 ? '' : 's'}</h1>${history ? '<p><a href="/history">the report history</a></p>' : ''}
<table><thead><tr><th>folder</th><th>processor</th><th>type</th><th>documents</th><th>headline</th><th>baseline</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

function historyPage(section: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>evalkit history</title></head><body><p style="font:12px system-ui,sans-serif"><a href="/">all reports</a></p>${section}</body></html>`;
}

/** pdfjs-dist's version, for the banner. */
export function pdfjsVersion(): string {
  return (JSON.parse(readFileSync(path.join(pdfjsDir(), 'package.json'), 'utf8')) as { version: string }).version;
}
