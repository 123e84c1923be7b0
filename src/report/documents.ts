/**
 * The side file of per-document records (report format 3): one record per line, written while
 * the documents are scored, referenced from report.json by name, count and SHA-256. A file sink
 * writes to a temp file beside the target; writeReports renames it into place together with
 * the other reports, or drops it.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { DocumentRecord, DocumentsFile } from '../metrics/generated/report.js';
import { commitTempSync, tempPathFor, tempTag } from '../util/fs.js';

export const DOCUMENTS_FILE = 'documents.jsonl';

/**
 * Up to this many documents, records are kept as records where a feature lists them (the
 * explorer, a baseline report's documents); past it only what the statistics need.
 */
export const RECORDS_MAX = 50_000;

/**
 * A record's line not yet made a string (an EXTRACT record): `jsonText` is the line, `writeJson`
 * writes it as UTF-8 into a buffer from an offset and returns the offset past it, or -1 when it
 * does not fit.
 */
export interface LineWriter {
  jsonText(): string;
  writeJson(out: Buffer, at: number): number;
}

/** The line as a string. */
export function lineText(line: string | LineWriter): string {
  return typeof line === 'string' ? line : line.jsonText();
}

export interface DocumentsSink {
  /**
   * One record's line. `record`, when given, makes the same record as an object (called at
   * most once, during the call): a sink that keeps records keeps that instead of parsing the
   * line back.
   */
  write(line: string | LineWriter, record?: () => DocumentRecord): void;
  /**
   * Sets each record's straight-through flag (known only once every document was scored; by
   * line, in the order written) and returns the reference report.json carries.
   */
  finish(flags?: Uint8Array): DocumentsFile;
}

/** A record line with its straight-through flag set (keys stay sorted). */
export function withFlag(line: string, flag: boolean): string {
  const r = JSON.parse(line) as Record<string, unknown>;
  r.straightThrough = flag;
  const keys = Object.keys(r).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(r[k])}`).join(',')}}`;
}

/** Keeps the lines (small exports, tests, golden files). */
export class MemoryDocuments implements DocumentsSink {
  readonly lines: string[] = [];
  write(line: string | LineWriter): void {
    this.lines.push(lineText(line));
  }
  finish(flags?: Uint8Array): DocumentsFile {
    const hash = createHash('sha256');
    this.lines.forEach((line, i) => {
      if (flags) this.lines[i] = line = withFlag(line, flags[i] === 1);
      hash.update(line + '\n');
    });
    return { file: DOCUMENTS_FILE, count: this.lines.length, sha256: hash.digest('hex') };
  }
  text(): string {
    return this.lines.map((l) => l + '\n').join('');
  }
  /** The records, parsed (for the explorer, the errors file and the like). */
  records(): DocumentRecord[] {
    return this.lines.map((l) => JSON.parse(l) as DocumentRecord);
  }
}

/** Counts and hashes the lines and keeps nothing (when report.json is not written). */
export class DiscardDocuments implements DocumentsSink {
  private readonly hash = createHash('sha256');
  private count = 0;
  write(line: string | LineWriter): void {
    this.hash.update(lineText(line) + '\n');
    this.count++;
  }
  finish(): DocumentsFile {
    return { file: DOCUMENTS_FILE, count: this.count, sha256: this.hash.digest('hex') };
  }
}

const CHUNK = 1 << 20;

/** Writes the lines to a temp file beside `outDir/documents.jsonl` (in ~1 MiB writes). */
export class FileDocuments implements DocumentsSink {
  readonly target: string;
  private tmp: string;
  private fd: number | undefined;
  /**
   * The lines are encoded into this one buffer, hashed and written from it when full. Joining
   * them into a fresh 1 MiB string per write (then encoded once for the hash, once for the
   * write) took most of the side file's time on fresh memory alone.
   */
  private readonly out = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private count = 0;
  private hash: Hash = createHash('sha256');
  /**
   * The records too, while there are at most RECORDS_MAX (records() then needs no second read):
   * as objects where the writer gave them, else as lines.
   */
  private kept: Array<string | DocumentRecord> | undefined = [];

  constructor(outDir: string) {
    this.target = path.join(outDir, DOCUMENTS_FILE);
    this.tmp = tempPathFor(this.target, tempTag());
    this.fd = openSync(this.tmp, 'wx');
  }

  write(source: string | LineWriter, record?: () => DocumentRecord): void {
    this.count++;
    if (this.kept) {
      if (this.kept.length < RECORDS_MAX) this.kept.push(record ? record() : lineText(source));
      else this.kept = undefined;
    }
    if (typeof source !== 'string') {
      // Written straight into the buffer (room for the newline kept); a line that does not
      // fit even an empty buffer goes the string's way.
      let end = source.writeJson(this.out, this.used);
      if (end < 0 || end === this.out.length) {
        this.flush();
        end = source.writeJson(this.out, 0);
      }
      if (end >= 0 && end < this.out.length) {
        this.used = end;
        this.out[this.used++] = 10;
        return;
      }
    }
    const line = lineText(source);
    // At most 3 bytes of UTF-8 per UTF-16 unit, and the newline.
    const most = line.length * 3 + 1;
    if (this.used + most > this.out.length) this.flush();
    if (most > this.out.length) {
      this.emit(Buffer.from(line + '\n'));
      return;
    }
    this.used += this.out.write(line, this.used);
    this.out[this.used++] = 10;
  }

  private flush(): void {
    if (this.used === 0) return;
    this.emit(this.out.subarray(0, this.used));
    this.used = 0;
  }

  private emit(bytes: Buffer): void {
    if (this.fd === undefined) return;
    this.hash.update(bytes);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at);
  }

  finish(flags?: Uint8Array): DocumentsFile {
    this.flush();
    if (flags) this.rewrite(flags);
    if (this.fd !== undefined) {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = undefined;
    }
    return { file: DOCUMENTS_FILE, count: this.count, sha256: this.hash.digest('hex') };
  }

  /** A second temp file with the flags set, line by line; it replaces the first. */
  private rewrite(flags: Uint8Array): void {
    closeSync(this.fd as number);
    const from = this.tmp;
    this.tmp = tempPathFor(this.target, tempTag());
    this.fd = openSync(this.tmp, 'wx');
    this.hash = createHash('sha256');
    this.count = 0;
    this.kept = [];
    const n = flags.length;
    const src = openSync(from, 'r');
    try {
      const chunk = Buffer.alloc(CHUNK);
      const decoder = new StringDecoder('utf8');
      let rest = '';
      let line = 0;
      for (let got = readSync(src, chunk); got > 0; got = readSync(src, chunk)) {
        const parts = (rest + decoder.write(chunk.subarray(0, got))).split('\n');
        rest = parts.pop() as string;
        for (const p of parts) this.write(withFlag(p, line < n && flags[line++] === 1));
      }
      this.flush();
    } finally {
      closeSync(src);
      rmSync(from, { force: true });
    }
  }

  private committed = false;

  /** Renames the finished file into place. */
  commit(): void {
    commitTempSync(this.tmp, this.target);
    this.committed = true;
  }

  /** The records of the finished file, parsed (read back whole: for reports the explorer lists). */
  records(): DocumentRecord[] {
    if (this.fd !== undefined) throw new Error('documents.records() before finish()');
    if (this.kept && this.kept.length === this.count) return this.kept.map((r) => (typeof r === 'string' ? (JSON.parse(r) as DocumentRecord) : r));
    const text = readFileSync(this.committed ? this.target : this.tmp, 'utf8');
    const out: DocumentRecord[] = [];
    for (const line of text.split('\n')) if (line !== '') out.push(JSON.parse(line) as DocumentRecord);
    return out;
  }

  /** Drops the temp file; an earlier documents.jsonl stays as it was. */
  abort(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    rmSync(this.tmp, { force: true });
  }
}
