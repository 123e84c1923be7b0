/**
 * Reading evaluation exports (JSON or JSONL) and baselines (an export or a report.json),
 * validated against schemas/export.schema.json and schemas/report.schema.json. Every error
 * names the file, the line and the JSON pointer.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { InputError, InternalError } from '../util/errors.js';
import { fromPointer, isPlainObject, lineColumnAt, parseJson } from '../util/json.js';
import type { EvaluationExport, EvaluationExportHeader, ExportItem } from '../metrics/generated/export.js';
import type { DocumentRecord, Report } from '../metrics/generated/report.js';
import type { ItemSource } from '../metrics/accumulate.js';
import { ExtractTable } from '../metrics/table.js';
import type { BaselineInput } from './build.js';
import { RECORDS_MAX } from './documents.js';
import * as exportValidators from './generated/validators.js';

const EXPORT_HINT = 'the export format is described in schemas/export.schema.json (docs/report.md)';

/** A validator: generated ahead of time (ajv standalone code, scripts/gen-validators.mjs) or compiled by ajv. */
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * The export's validators, generated ahead of time: compiling them took about 0.3 s of every
 * report (test/config/schemas.test.ts checks they are in step with schemas/export.schema.json).
 */
const EXPORT_VALIDATORS = exportValidators as unknown as { exportDocument: ValidateFunction; header: ValidateFunction; item: ValidateFunction };

/** The report schema's generated validators (large: imported on first use). */
interface ReportValidators {
  /** A report.json of this version. */
  report: ValidateFunction;
  /** One line of a report's side file. */
  record: ValidateFunction;
  /** What a baseline needs of a report of format 1 or 2 (records inline): its type, options and documents. */
  oldReport: ValidateFunction;
}
let reportValidators: ReportValidators | undefined;

async function getValidators(): Promise<ReportValidators> {
  if (!reportValidators) {
    const v = (await import('./generated/report-validators.js')) as unknown as { report: ValidateFunction; documentRecord: ValidateFunction; oldReport: ValidateFunction };
    reportValidators = { report: v.report, record: v.documentRecord, oldReport: v.oldReport };
  }
  return reportValidators;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return `unknown member "${String(p.additionalProperty)}"`;
  if (e.keyword === 'required') return `missing member "${String(p.missingProperty)}"`;
  if (e.keyword === 'enum') return `${e.message} (${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
  if (e.keyword === 'const') return `must be ${JSON.stringify(p.allowedValue)}`;
  return e.message ?? 'is invalid';
}

/** Line and column of the value at a JSON pointer in a JSON text (only computed on error). */
function positionOf(text: string, pointer: string): { line?: number; column?: number } {
  try {
    const tree = parseTree(text);
    const segs = fromPointer(pointer).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const node = tree && findNodeAtLocation(tree, segs);
    return node ? lineColumnAt(text, node.offset) : {};
  } catch {
    return {};
  }
}

function invalid(fn: ValidateFunction, file: string, what: string, where: { text?: string; line?: number; prefix?: string }, hint = EXPORT_HINT): InputError {
  const e = (fn.errors ?? [])[0];
  const pointer = (where.prefix ?? '') + (e?.instancePath ?? '');
  const pos = where.line !== undefined ? { line: where.line } : where.text !== undefined ? positionOf(where.text, pointer) : {};
  return new InputError(`not a valid ${what}: ${e ? describe(e) : 'invalid'}`, { location: { file, ...pos, pointer }, hint });
}

function isJsonlName(file: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(file);
}

/** JSONL when named so, or when the first line alone is a header (an object with `processor` and no `items`). */
function looksLikeJsonl(text: string): boolean {
  // A header line longer than this is not looked for: name such a file .jsonl.
  const nl = text.slice(0, 4 << 20).indexOf('\n');
  if (nl < 0 || text.trimStart()[0] !== '{') return false;
  try {
    const first = JSON.parse(text.slice(0, nl)) as unknown;
    return isPlainObject(first) && 'processor' in first && !('items' in first);
  } catch {
    return false;
  }
}

/** A missing `format` is the current one; missing options (or members of them) are none. */
function withDefaults(exp: EvaluationExport): EvaluationExport {
  return {
    ...exp,
    format: exp.format ?? 'evalkit-export/1',
    options: { fuzzyMatchFields: exp.options?.fuzzyMatchFields ?? [], excludeFields: exp.options?.excludeFields ?? [] },
  };
}

async function checkExport(data: unknown, file: string, text: string): Promise<EvaluationExport> {
  const v = EXPORT_VALIDATORS;
  if (!v.exportDocument(data)) throw invalid(v.exportDocument, file, 'evaluation export', { text });
  return withDefaults(data as EvaluationExport);
}

/** Parses an export from text (JSON, or JSONL when `file` ends in .jsonl/.ndjson or the text looks like it). */
export async function parseExport(text: string, file: string): Promise<EvaluationExport> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (isJsonlName(file) || looksLikeJsonl(body)) {
    const reader = new JsonlExportReader(file);
    const lines = body.split('\n');
    for (let i = 0; i < lines.length; i++) await reader.line(lines[i], i + 1);
    return reader.finish();
  }
  return checkExport(parseJson(body, file), file, body);
}

/** Builds an export from JSONL lines: a header line, then one item per line. */
class JsonlExportReader {
  private header: EvaluationExportHeader | undefined;
  private readonly items: ExportItem[] = [];
  constructor(private readonly file: string) {}

  async line(raw: string, lineNo: number): Promise<void> {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    const v = EXPORT_VALIDATORS;
    const data = parseJson(text, this.file, lineNo - 1);
    if (!this.header) {
      if (!v.header(data)) throw invalid(v.header, this.file, 'export header (first line of a JSONL export)', { line: lineNo });
      this.header = data as EvaluationExportHeader;
      return;
    }
    if (!v.item(data)) throw invalid(v.item, this.file, 'export item', { line: lineNo, prefix: `/items/${this.items.length}` });
    this.items.push(data as ExportItem);
  }

  finish(): EvaluationExport {
    if (!this.header) throw new InputError('empty export: no header line', { location: { file: this.file, line: 1 }, hint: EXPORT_HINT });
    return withDefaults({ ...this.header, items: this.items });
  }
}

function readError(file: string, e: unknown): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  return new InputError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`, {
    location: { file },
    hint: 'check the path; exports are written by `evalkit eval run` or `evalkit eval export`',
  });
}

/** Lines of a file read in one chunk. */
export interface LineBatch {
  /** Number of the first line (from 1). */
  first: number;
  lines: string[];
  /** Only when asked for: each line's bytes in the file, [start, end) (the end before a carriage return). */
  starts?: number[];
  ends?: number[];
}

/**
 * The lines of a file in batches (one batch per chunk read), without the final newline or a
 * carriage return before it; a BOM at the start is dropped. Lines are numbered from 1.
 * The bytes are cut at each newline and each line decoded on its own: decoding every chunk to
 * one string and splitting that took twice the CPU (a 214 MB export: 2.3 s against 1.1 s, and
 * 3.6-4.3 s against 2.4-2.6 s with JSON.parse of each line). A newline byte is never part of a
 * multi-byte UTF-8 character, so no character is cut. With `spans`, each batch also says where
 * each line's bytes are, so that one line can be read again on its own (fileValueSource in
 * explorer/values.ts).
 */
export function readLineBatches(file: string, opts: { spans?: boolean; chunkSize?: number } = {}): AsyncGenerator<LineBatch> {
  return lineBatchesOf(createReadStream(file, { highWaterMark: opts.chunkSize ?? 1 << 20 }), opts.spans === true);
}

/** readLineBatches over an open byte stream. */
async function* lineBatchesOf(stream: AsyncIterable<Buffer>, spans = false): AsyncGenerator<LineBatch> {
  // The bytes of a line not finished in the chunks read so far (joined once its end is read).
  let pending: Buffer[] = [];
  let next = 1;
  // Offset in the file of the current chunk, and of the start of the pending line.
  let base = 0;
  let pendingStart = 0;
  for await (const chunk of stream) {
    let nl = chunk.indexOf(10);
    if (nl === -1) {
      if (!pending.length) pendingStart = base;
      pending.push(chunk);
      base += chunk.length;
      continue;
    }
    const lines: string[] = [];
    const starts: number[] | undefined = spans ? [] : undefined;
    const ends: number[] | undefined = spans ? [] : undefined;
    let at = 0;
    if (pending.length) {
      pending.push(chunk.subarray(0, nl));
      const line = Buffer.concat(pending);
      lines.push(lineText(line, 0, line.length));
      if (starts && ends) {
        starts.push(pendingStart);
        ends.push(base + nl - (line.length > 0 && line[line.length - 1] === 13 ? 1 : 0));
      }
      pending = [];
      at = nl + 1;
      nl = chunk.indexOf(10, at);
    }
    while (nl !== -1) {
      lines.push(lineText(chunk, at, nl));
      if (starts && ends) {
        starts.push(base + at);
        ends.push(base + nl - (nl > at && chunk[nl - 1] === 13 ? 1 : 0));
      }
      at = nl + 1;
      nl = chunk.indexOf(10, at);
    }
    if (at < chunk.length) {
      pendingStart = base + at;
      pending.push(chunk.subarray(at));
    }
    if (next === 1 && lines[0].charCodeAt(0) === 0xfeff) {
      lines[0] = lines[0].slice(1);
      if (starts) starts[0] += 3;
    }
    base += chunk.length;
    yield spans ? { first: next, lines, starts, ends } : { first: next, lines };
    next += lines.length;
  }
  if (pending.length) {
    const line = Buffer.concat(pending);
    let last = lineText(line, 0, line.length);
    let start = pendingStart;
    if (next === 1 && last.charCodeAt(0) === 0xfeff) {
      last = last.slice(1);
      start += 3;
    }
    const end = base - (line.length > 0 && line[line.length - 1] === 13 ? 1 : 0);
    yield spans ? { first: next, lines: [last], starts: [start], ends: [end] } : { first: next, lines: [last] };
  }
}

/** The text of bytes [from, to) of a line, without a carriage return at its end. */
function lineText(bytes: Buffer, from: number, to: number): string {
  return bytes.toString('utf8', from, to > from && bytes[to - 1] === 13 ? to - 1 : to);
}

/** An export whose items are read when iterated: a JSONL file line by line, each time again. */
export interface OpenedExport {
  header: EvaluationExportHeader;
  items: ItemSource;
  /** A JSONL export: the line of its header (items follow it). */
  headerLine?: number;
  /** A JSON export: the export itself, read whole (what shows its values need not read it again). */
  whole?: EvaluationExport;
}

/**
 * Opens an export. A JSONL export (named .jsonl/.ndjson) is read item by item: its header now,
 * its items each time they are iterated, every line validated (errors name the line). Other
 * files are read whole (a JSON export is one value).
 */
export async function openExport(file: string): Promise<OpenedExport> {
  if (!isJsonlName(file)) {
    const exp = await loadExport(file);
    const { items, ...header } = exp;
    return { header, items: () => items, whole: exp };
  }
  let header: EvaluationExportHeader | undefined;
  let headerLine = 0;
  try {
    outer: for await (const { first, lines } of readLineBatches(file)) {
      for (let i = 0; i < lines.length; i++) {
        if (lines[i].trim() === '') continue;
        const v = EXPORT_VALIDATORS;
        const data = parseJson(lines[i], file, first + i - 1);
        if (!v.header(data)) throw invalid(v.header, file, 'export header (first line of a JSONL export)', { line: first + i });
        header = withDefaults({ ...(data as EvaluationExportHeader), items: [] });
        headerLine = first + i;
        break outer;
      }
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw readError(file, e);
  }
  if (!header) throw new InputError('empty export: no header line', { location: { file, line: 1 }, hint: EXPORT_HINT });
  const { items: _none, ...h } = header as EvaluationExport;
  void _none;
  async function* items(): AsyncGenerator<ExportItem> {
    let index = 0;
    try {
      for await (const { first, lines } of readLineBatches(file)) {
        for (let i = 0; i < lines.length; i++) {
          const lineNo = first + i;
          if (lineNo <= headerLine || lines[i].trim() === '') continue;
          yield parseItemLine(lines[i], file, lineNo, index++);
        }
      }
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw readError(file, e);
    }
  }
  return { header: h, items, headerLine };
}

/** One item line of a JSONL export, parsed and validated (`index`: the item's place, for the pointer). */
export function parseItemLine(text: string, file: string, lineNo: number, index: number): ExportItem {
  const data = parseJson(text, file, lineNo - 1);
  const v = EXPORT_VALIDATORS;
  if (!v.item(data)) throw invalid(v.item, file, 'export item', { line: lineNo, prefix: `/items/${index}` });
  return data as ExportItem;
}

/** An item of a JSONL export with where its line is: its number, and its bytes [start, end). */
export interface ItemAt {
  item: ExportItem;
  line: number;
  start: number;
  end: number;
}

/**
 * The items of a JSONL export opened with openExport, each with where its line is in the file
 * (to read it again alone: report.html's values keep only that, not the items). Every line is
 * parsed and validated again: the file is read a second time.
 */
export async function* itemsWithSpans(file: string, opened: Pick<OpenedExport, 'headerLine'>, opts: { chunkSize?: number; onLines?: (read: number) => void } = {}): AsyncGenerator<ItemAt> {
  let index = 0;
  try {
    for await (const { first, lines, starts, ends } of readLineBatches(file, { spans: true, chunkSize: opts.chunkSize })) {
      for (let i = 0; i < lines.length; i++) {
        const lineNo = first + i;
        if (lineNo <= (opened.headerLine ?? 0) || lines[i].trim() === '') continue;
        yield { item: parseItemLine(lines[i], file, lineNo, index++), line: lineNo, start: (starts as number[])[i], end: (ends as number[])[i] };
      }
      opts.onLines?.(first + lines.length - 1);
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw readError(file, e);
  }
}

/** A file's text; a read error names the file. */
async function readText(file: string): Promise<string> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw readError(file, e);
  }
}

const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Reads an export file whole (a JSONL file line by line); large JSONL exports are better opened with openExport. */
export async function loadExport(file: string, opts: { onLines?: (read: number) => void } = {}): Promise<EvaluationExport> {
  if (isJsonlName(file)) {
    const reader = new JsonlExportReader(file);
    try {
      for await (const { first, lines } of readLineBatches(file)) {
        for (let i = 0; i < lines.length; i++) await reader.line(lines[i], first + i);
        opts.onLines?.(first + lines.length - 1);
      }
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw readError(file, e);
    }
    return reader.finish();
  }
  return parseExport(await readText(file), file);
}

/**
 * The canonical report text parses and matches schemas/report.schema.json; an internal error
 * otherwise (a report evalkit made that is not valid is evalkit's bug, and nothing is written).
 */
export async function checkReportJson(text: string): Promise<void> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InternalError(`the report is not valid JSON (${(e as Error).message}); nothing was written`);
  }
  const v = await getValidators();
  if (!v.report(data)) {
    const e = (v.report.errors ?? [])[0];
    throw new InternalError(`the report does not match schemas/report.schema.json at ${e?.instancePath || '/'}: ${e ? describe(e) : 'invalid'}; nothing was written`);
  }
}

const BASELINE_HINT = 'pass a report.json written by `evalkit report` (format 1, 2 or 3), or the export it was made from';

/**
 * Reads a report.json of this version (format 3) alone: what `evalkit ci github` needs. Its side
 * file is not read (a baseline's is, by loadBaseline).
 */
export async function loadReport(file: string): Promise<Report> {
  const hint = 'pass the report.json `evalkit report` wrote (keep json in --formats)';
  const body = withoutBom(await readText(file));
  const data = parseJson(body, file);
  if (!isPlainObject(data) || data.format !== 'evalkit-report/3') {
    throw new InputError('not a report.json of this evalkit version', { location: { file }, hint });
  }
  const v = await getValidators();
  if (!v.report(data)) throw invalid(v.report, file, 'evalkit report', { text: body }, hint);
  return data as unknown as Report;
}

/** Reads a baseline: a report.json written by `evalkit report` (with its side file), or an export. */
export async function loadBaseline(file: string): Promise<BaselineInput> {
  const name = file.split(/[\\/]/).pop() ?? file;
  if (isJsonlName(file)) {
    const { header, items } = await openExport(file);
    return { kind: 'stream', file: name, header, items };
  }
  const body = withoutBom(await readText(file));
  if (looksLikeJsonl(body)) return { kind: 'export', file: name, export: await parseExport(body, file) };
  const data = parseJson(body, file);
  if (isPlainObject(data) && typeof data.format === 'string' && data.format.startsWith('evalkit-report/')) {
    const v = await getValidators();
    if (data.format === 'evalkit-report/3') {
      if (!v.report(data)) throw invalid(v.report, file, 'evalkit report', { text: body }, BASELINE_HINT);
      const report = data as unknown as Report;
      return { kind: 'report', file: name, report, documents: await readDocumentsFile(file, report) };
    }
    // Reports of earlier formats: what a comparison reads, the records inline.
    if (!v.oldReport(data)) throw invalid(v.oldReport, file, 'evalkit report', { text: body }, BASELINE_HINT);
    const report = data as unknown as Report & { documents: DocumentRecord[] };
    return { kind: 'report', file: name, report, documents: report.documents };
  }
  return { kind: 'export', file: name, export: await checkExport(data, file, body) };
}

/**
 * The side file of a format 3 report, beside it, streamed: EXTRACT records become a table of
 * counts over the report's fields, others are kept. Its count and SHA-256 must match the report's.
 */
async function readDocumentsFile(reportFile: string, report: Report): Promise<DocumentRecord[] | ExtractTable> {
  const ref = report.documentsFile;
  const file = path.join(path.dirname(reportFile), ref.file);
  const hint = `${ref.file} is written by \`evalkit report\` next to report.json; copy both files together (or pass the export the report was made from)`;
  const v = await getValidators();
  const fields = report.extract?.fields.map((f) => f.path) ?? [];
  // Small reports keep their records (the explorer shows the baseline's outcomes); large EXTRACT ones a table of counts.
  const table = report.type === 'EXTRACT' && ref.count > RECORDS_MAX ? new ExtractTable(new Map(fields.map((f, s) => [f, s])), [], true) : undefined;
  const records: DocumentRecord[] = [];
  const hash = createHash('sha256');
  let count = 0;
  try {
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    stream.on('data', (chunk) => hash.update(chunk as Buffer));
    const lines = lineBatchesOf(stream);
    for await (const { first, lines: batch } of lines) {
      for (let i = 0; i < batch.length; i++) {
        if (batch[i] === '') continue;
        const data = parseJson(batch[i], file, first + i - 1);
        if (!v.record(data)) throw invalid(v.record, file, 'document record', { line: first + i }, hint);
        count++;
        if (table) table.addRecord(data as DocumentRecord, fields);
        else records.push(data as DocumentRecord);
      }
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the documents of ${reportFile}: ${file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { location: { file }, hint });
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== ref.sha256 || count !== ref.count) {
    throw new InputError(
      `${file} does not belong to ${reportFile}: ${count} record(s) with SHA-256 ${sha256}, the report names ${ref.count} with ${ref.sha256}`,
      { location: { file }, hint },
    );
  }
  if (table) table.order = Int32Array.from({ length: table.n }, (_, i) => i);
  return table ?? records;
}
