/**
 * Streaming CSV input: UTF-8 with or without BOM, quoted fields with newlines, delimiter given
 * or detected. Records come with the CSV line they start on, so every later message can name it.
 * The file is read as a stream (never whole), so memory does not grow with the number of rows.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import { parse, CsvError } from 'csv-parse';
import { InputError } from '../util/errors.js';

export const DELIMITERS = [',', ';', '\t'] as const;

export interface CsvRecord {
  /** 1-based line the record starts on. */
  line: number;
  cells: string[];
  /**
   * Byte offsets in the file: from the end of the previous record (blank lines skipped before
   * this one included) to the end of this one's line break. What a format-preserving rewrite
   * (writeback.ts) replaces.
   */
  start: number;
  end: number;
}

export interface CsvSource {
  file: string;
  delimiter: string;
  /** The file starts with a UTF-8 byte order mark (kept when we write a rejects file). */
  bom: boolean;
  header: string[];
  headerLine: number;
  /** Streams the data records (header excluded); may be called again for another pass. */
  records(): AsyncGenerator<CsvRecord, void, undefined>;
}

const SAMPLE_BYTES = 64 * 1024;

/**
 * The delimiter that occurs most often outside quotes in the first record. Ties and no
 * delimiter at all (a one-column file) fall back to comma.
 */
export function detectDelimiter(sample: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (let i = 0; i < sample.length; i++) {
    const c = sample[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = ',';
  let bestCount = 0;
  for (const [d, n] of counts) {
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

export function parseDelimiterOption(value: string): string {
  const named: Record<string, string> = { comma: ',', semicolon: ';', tab: '\t', '\\t': '\t', pipe: '|' };
  const d = named[value.toLowerCase()] ?? value;
  if (d.length !== 1 || d === '"' || d === '\n' || d === '\r') {
    throw new InputError(`--delimiter "${value}" is not a single delimiter character`, { hint: 'use one character, or comma, semicolon, tab or pipe' });
  }
  return d;
}

/** Line breaks inside a cell (CRLF counts once), so a record's start line is its end line minus them. */
function lineBreaks(cell: string): number {
  let n = 0;
  for (let i = 0; i < cell.length; i++) {
    const c = cell.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13 && cell.charCodeAt(i + 1) !== 10) n++;
  }
  return n;
}

/** CRLF pairs inside a cell: csv-parse (6.2) counts each as two lines, and carries that on. */
function crlfPairs(cell: string): number {
  let n = 0;
  for (let i = cell.indexOf('\r\n'); i >= 0; i = cell.indexOf('\r\n', i + 2)) n++;
  return n;
}

function csvErrorToInput(e: unknown, file: string, overcount: number, lastEnd: number): unknown {
  if (!(e instanceof CsvError)) return e;
  const info = e as CsvError & { lines?: number; column?: number | string };
  // An unclosed quote is found at the end of the file; the record it opens starts after the last good one.
  const line = e.code === 'CSV_QUOTE_NOT_CLOSED' ? lastEnd + 1 : typeof info.lines === 'number' ? info.lines - overcount : undefined;
  const column = typeof info.column === 'number' ? info.column + 1 : undefined;
  // csv-parse's messages end with "at line N" and count fields from 0; we print the location ourselves.
  const message = e.message
    .replace(/\s*at line \d+/, '')
    .replace(/^Invalid Record Length: /, '')
    .replace(/\bon field (\d+)/, (_m, n: string) => `in column ${Number(n) + 1}`);
  const hint =
    e.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted cell is never closed; close the quote or double the quote characters inside the cell ("")'
      : e.code === 'INVALID_OPENING_QUOTE'
        ? 'a cell that holds a quote must be quoted as a whole, with its quotes doubled: "say ""hi"""'
        : e.code === 'CSV_INVALID_CLOSING_QUOTE'
          ? 'a quote inside a quoted cell must be doubled (""); check the delimiter too (--delimiter)'
          : 'fix the CSV syntax at that position';
  return new InputError(`CSV: ${message}`, { location: { file, line, column }, hint, cause: e });
}

async function readSample(file: string): Promise<Buffer> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'CSV file not found' : `cannot read the CSV file (${code ?? String(e)})`, {
      location: { file },
      hint: 'check the path',
    });
  }
  try {
    if ((await handle.stat()).isDirectory()) throw new InputError('a folder, not a CSV file', { location: { file }, hint: 'name the CSV file itself' });
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SAMPLE_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Opens a CSV file: reads the header and returns a source whose records() streams the rest. */
export async function openCsv(file: string, opts: { delimiter?: string } = {}): Promise<CsvSource> {
  const sample = await readSample(file);
  const bom = sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf;
  const text = sample.subarray(bom ? 3 : 0).toString('utf8');
  if (text.trim() === '') throw new InputError('the CSV file is empty', { location: { file }, hint: 'the first line must name the columns' });
  const delimiter = opts.delimiter ?? detectDelimiter(text);

  async function* stream(): AsyncGenerator<CsvRecord & { header: boolean }, void, undefined> {
    const parser = createReadStream(file).pipe(
      parse({
        bom: true,
        delimiter,
        info: true,
        relax_column_count: true,
        skip_empty_lines: true,
        record_delimiter: ['\r\n', '\n', '\r'],
      }),
    );
    let first = true;
    let overcount = 0;
    let lastEnd = 0;
    try {
      let prevEnd = 0;
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number; bytes: number } }>) {
        const start = prevEnd;
        prevEnd = info.bytes;
        let breaks = 0;
        for (const cell of record) {
          breaks += lineBreaks(cell);
          overcount += crlfPairs(cell);
        }
        lastEnd = info.lines - overcount;
        const line = lastEnd - breaks;
        // A spreadsheet's trailing ",,," rows are not data.
        if (record.every((c) => c.trim() === '')) continue;
        yield { line, cells: record, header: first, start, end: info.bytes };
        first = false;
      }
    } catch (e) {
      throw csvErrorToInput(e, file, overcount, lastEnd);
    } finally {
      parser.destroy();
    }
  }

  let header: string[] | undefined;
  let headerLine = 1;
  for await (const r of stream()) {
    header = r.cells.map((h) => h.trim());
    headerLine = r.line;
    break;
  }
  if (!header) throw new InputError('the CSV file has no header line', { location: { file }, hint: 'the first line must name the columns' });

  return {
    file,
    delimiter,
    bom,
    header,
    headerLine,
    async *records() {
      for await (const r of stream()) {
        if (r.header) continue;
        yield { line: r.line, cells: r.cells, start: r.start, end: r.end };
      }
    },
  };
}
