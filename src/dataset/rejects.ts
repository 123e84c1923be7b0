/**
 * `<csv>.rejects.csv`: each invalid row as it was, plus a column saying why, so the user can fix
 * the rows in a spreadsheet and upload them. Cells a spreadsheet would execute as a formula
 * (starting with = + - @, tab or carriage return) are prefixed with a quote (OWASP CSV
 * injection). Written through a temp file and renamed, streamed so it never holds every row.
 */
import { openAtomic, type AtomicFile } from '../util/fs.js';

/**
 * A formula start, after any leading quotes: a cell that is already quoted this way (`'=x`) is
 * quoted once more (`''=x`), so that reading back removes exactly the quote writing added.
 */
const GUARDED = /^'*[=+\-@\t\r]/;

/** A cell that a spreadsheet would run as a formula, made inert. */
export function neutralise(cell: string): string {
  return GUARDED.test(cell) ? `'${cell}` : cell;
}

export function quoteCell(cell: string, delimiter: string): string {
  if (cell.includes('"') || cell.includes(delimiter) || /[\r\n]/.test(cell) || /^\s|\s$/.test(cell)) return `"${cell.replace(/"/g, '""')}"`;
  return cell;
}

export function csvLine(cells: readonly string[], delimiter: string): string {
  return cells.map((c) => quoteCell(neutralise(c), delimiter)).join(delimiter) + '\r\n';
}

/** Undoes neutralise() when reading a cell back (a fixed rejects file is uploaded as is). */
export function unneutralise(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && GUARDED.test(cell.slice(1)) ? cell.slice(1) : cell;
}

export function rejectsPathFor(csvFile: string): string {
  return `${csvFile.replace(/\.csv$/i, '')}.rejects.csv`;
}

export class RejectsWriter {
  private handle: AtomicFile | undefined;
  private pending: Promise<void> = Promise.resolve();
  count = 0;
  readonly errorHeader: string;
  /** Columns copied over: all but the reasons of an earlier rejects file being uploaded again. */
  private readonly keep: number[];

  constructor(
    readonly file: string,
    private readonly header: readonly string[],
    private readonly delimiter: string,
    private readonly bom: boolean,
  ) {
    // Starting with # makes `evalkit dataset upload` ignore the column, so the fixed rejects
    // file can be uploaded as it is.
    this.errorHeader = '# error';
    this.keep = header.map((_, i) => i).filter((i) => header[i] !== this.errorHeader);
  }

  /** Queues one rejected row; writes stay in order. */
  add(cells: readonly string[], reasons: string): Promise<void> {
    const row = [...cells];
    while (row.length < this.header.length) row.push('');
    this.count++;
    this.pending = this.pending.then(async () => {
      if (!this.handle) {
        this.handle = await openAtomic(this.file, { mode: 0o644 });
        await this.handle.write((this.bom ? '\ufeff' : '') + csvLine([...this.keep.map((i) => this.header[i]), this.errorHeader], this.delimiter));
      }
      await this.handle.write(csvLine([...this.keep.map((i) => row[i]), reasons, ...row.slice(this.header.length)], this.delimiter));
    });
    return this.pending;
  }

  /** Renames the finished file into place; with no rejected row, removes a stale one. Returns the path written, if any. */
  async close(): Promise<string | undefined> {
    await this.pending;
    // No invalid row: an earlier run's rejects file is left for the upload to set aside, and say so.
    if (!this.handle) return undefined;
    const handle = this.handle;
    this.handle = undefined;
    await handle.commit();
    return this.file;
  }

  /** Drops the temp file (a failed run leaves the old rejects file as it was). */
  async abort(): Promise<void> {
    await this.pending.catch(() => undefined);
    await this.handle?.abort();
    this.handle = undefined;
  }
}
