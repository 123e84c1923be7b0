/**
 * Files: type detection, content extraction, multipart parsing and the loopback-only fetch of
 * file URLs.
 *
 * Types: PDF, IMG, DOCX, EXCEL and CSV as in spec 2.6, plus TXT for plain text (.txt, .md), a
 * sandbox choice since the full list is not published. Contents: plain text and CSV give their
 * text (TXT pages split at form feeds); PDFs with a text layer give real page text through
 * pdfjs-dist; IMG, DOCX and EXCEL keep empty text (no OCR or office conversion offline).
 */
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import { badRequest, HttpError } from './http.js';
import { isLoopbackAddress, notLoopback } from './loopback.js';

export interface FileType {
  type: 'PDF' | 'IMG' | 'DOCX' | 'EXCEL' | 'CSV' | 'TXT';
  mime: string;
}

const BY_EXTENSION: Record<string, FileType> = {
  pdf: { type: 'PDF', mime: 'application/pdf' },
  png: { type: 'IMG', mime: 'image/png' },
  jpg: { type: 'IMG', mime: 'image/jpeg' },
  jpeg: { type: 'IMG', mime: 'image/jpeg' },
  gif: { type: 'IMG', mime: 'image/gif' },
  tif: { type: 'IMG', mime: 'image/tiff' },
  tiff: { type: 'IMG', mime: 'image/tiff' },
  webp: { type: 'IMG', mime: 'image/webp' },
  bmp: { type: 'IMG', mime: 'image/bmp' },
  heic: { type: 'IMG', mime: 'image/heic' },
  doc: { type: 'DOCX', mime: 'application/msword' },
  docx: { type: 'DOCX', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  xls: { type: 'EXCEL', mime: 'application/vnd.ms-excel' },
  xlsx: { type: 'EXCEL', mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  csv: { type: 'CSV', mime: 'text/csv' },
  txt: { type: 'TXT', mime: 'text/plain' },
  md: { type: 'TXT', mime: 'text/markdown' },
};

export const SUPPORTED_EXTENSIONS = Object.keys(BY_EXTENSION);

/** The type of a file from its name; 400 for an unsupported extension (spec 4.6). */
export function fileTypeOf(name: string, what = 'file'): FileType {
  const m = /\.([A-Za-z0-9]+)$/.exec(name);
  const ext = m ? m[1].toLowerCase() : '';
  const t = BY_EXTENSION[ext];
  if (!t) {
    throw badRequest(`unsupported file type${ext ? ` ".${ext}"` : ' (no extension)'} for ${what} "${name.slice(0, 100)}"; supported: ${SUPPORTED_EXTENSIONS.map((e) => '.' + e).join(' ')}`);
  }
  return t;
}

export interface Extracted {
  rawText: string;
  pages: string[];
  html: string | null;
}

const MAGIC: Partial<Record<FileType['type'], (b: Buffer) => boolean>> = {
  PDF: (b) => b.subarray(0, 1024).includes('%PDF-'),
  // docx/xlsx are zip files; legacy doc/xls are OLE compound files.
  DOCX: (b) => (b[0] === 0x50 && b[1] === 0x4b) || (b[0] === 0xd0 && b[1] === 0xcf),
  EXCEL: (b) => (b[0] === 0x50 && b[1] === 0x4b) || (b[0] === 0xd0 && b[1] === 0xcf),
};

/** Reads the text of a file; 400 for a corrupted file (spec 4.6 "corrupted or undownloadable"). */
export async function extractContents(t: FileType, bytes: Buffer, name: string): Promise<Extracted> {
  if (bytes.length === 0) throw badRequest(`file "${name}" is empty`);
  const looksRight = MAGIC[t.type];
  if (looksRight && !looksRight(bytes)) throw badRequest(`file "${name}" is corrupted: its content is not a ${t.type} file`);
  if (t.type === 'TXT' || t.type === 'CSV') {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw badRequest(`file "${name}" is not valid UTF-8 text`);
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const pages = t.type === 'TXT' ? text.split('\f') : [text];
    return { rawText: text, pages, html: null };
  }
  if (t.type === 'PDF') return pdfText(bytes, name);
  if (t.type === 'DOCX') return { rawText: '', pages: [''], html: '' };
  return { rawText: '', pages: [''], html: null };
}

type PdfJs = typeof PdfJsModule;
let pdfjs: Promise<PdfJs> | undefined;

async function pdfText(bytes: Buffer, name: string): Promise<Extracted> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  const lib = await pdfjs;
  let doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']> | undefined;
  try {
    doc = await lib.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
    const pages: string[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const tc = await page.getTextContent();
      let text = '';
      for (const item of tc.items) {
        if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
      }
      pages.push(text.trim());
      page.cleanup();
    }
    return { rawText: pages.join('\n\n'), pages, html: null };
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw badRequest(`file "${name}" is corrupted: it cannot be read as a PDF`);
  } finally {
    await doc?.destroy().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// multipart/form-data (POST /files/upload), parsed by the WHATWG Request built into Node.

export async function parseUpload(contentType: string | undefined, body: Buffer): Promise<{ name: string; bytes: Buffer; mime: string }> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
    throw badRequest('POST /files/upload takes multipart/form-data with the file in a field named "file"');
  }
  let form: FormData;
  try {
    form = await new Request('http://sandbox.invalid/', { method: 'POST', headers: { 'content-type': contentType }, body }).formData();
  } catch {
    throw badRequest('malformed multipart/form-data body');
  }
  const part = form.get('file');
  if (part === null) throw badRequest('multipart form field "file" is required');
  if (typeof part === 'string') throw badRequest('multipart form field "file" must be a file part (with a filename)');
  const override = form.get('name');
  const name = typeof override === 'string' && override.trim() ? override.trim() : part.name;
  if (!name) throw badRequest('the uploaded file needs a file name (filename in the part, or a "name" field)');
  return { name, bytes: Buffer.from(await part.arrayBuffer()), mime: part.type };
}

// ---------------------------------------------------------------------------------------------
// File URLs: fetched only from loopback addresses, so the sandbox never proxies to a network.

/** For a check that cannot wait for DNS: loopback IP literals and `localhost` itself. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname.toLowerCase() === 'localhost' || isLoopbackAddress(hostname);
}

export async function fetchLoopback(fileUrl: string, what: string, maxBytes: number, timeoutMs = 10_000, signal?: AbortSignal): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(fileUrl);
  } catch {
    throw badRequest(`${what} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`${what} must be an http or https URL`);
  const why = await notLoopback(url.hostname);
  if (why !== undefined) {
    throw badRequest(
      `${what}: the sandbox downloads files only from loopback addresses (127.0.0.1, ::1, localhost): ${why}; ` +
        'upload the file with POST /files/upload and pass {fileId}, or send fileBase64',
    );
  }
  signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  // A download that fails is a bad input (400) naming the host and why, never a 500: the
  // connection, the status, a body that trickles past the timeout, a body over the limit.
  const failed = (why: string): HttpError => badRequest(`${what} could not be downloaded from ${url.host}: ${why}`);
  const reason = (e: unknown): string => {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) return `no complete answer within ${timeoutMs / 1000} s (the body arrives too slowly)`;
    return (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
  };
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'manual', signal: both });
  } catch (e) {
    throw failed(reason(e));
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw badRequest(`${what} could not be downloaded: redirects are not followed (HTTP ${res.status})`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw badRequest(`${what} could not be downloaded: HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length'));
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new HttpError(400, `${what} is larger than the sandbox's ${maxBytes} byte limit (${url.host} declares ${declared} bytes)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body) {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > maxBytes) {
          await res.body.cancel().catch(() => undefined);
          throw new HttpError(400, `${what} is larger than the sandbox's ${maxBytes} byte limit (from ${url.host})`);
        }
        chunks.push(Buffer.from(chunk));
      }
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw failed(reason(e));
    }
  }
  return Buffer.concat(chunks);
}

/** Strict base64 (RFC 4648, optional padding, whitespace ignored); 400 otherwise. */
export function decodeBase64(text: string, what: string): Buffer {
  const s = text.replace(/\s+/g, '');
  if (s === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) throw badRequest(`${what} is not valid base64`);
  return Buffer.from(s, 'base64');
}
