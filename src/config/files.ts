import { isUtf8 } from 'node:buffer';
import { promises as fsp, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Operation } from 'fast-json-patch';
import { EvalkitError, InternalError, type Location } from '../util/errors.js';
import { parseJson } from '../util/json.js';
import { walkFiles } from '../util/walk.js';
import { yielder } from '../util/pause.js';
import { migrateTree, summarizeFrom, type MigrationReport, type SpotReport, type TreeOptions } from './document.js';
import { fieldsRunOf, type RunDocument } from './fields-run.js';
import { makePatch } from './patch.js';
import { applyTextChanges } from './text.js';
import type { Dropped, Finding } from './types.js';
import { AtomicWriter, sweepStaleTemps } from '../util/fs.js';
import { CopyWriter, isAbsent, StagedCopies } from '../util/copies.js';

export type FileStatus = 'migrated' | 'unchanged' | 'error';

export interface FileError {
  message: string;
  location: Location;
  hint?: string;
}

/** The outcome for one file (or stdin). For JSONL the patch treats the file as an array of records. */
export interface FileResult extends MigrationReport {
  path: string;
  status: FileStatus;
  errors: FileError[];
  /** Where the result was written (--write: the file itself; --out-dir: the copy). */
  written?: string;
}

export interface TextOptions extends TreeOptions {
  /** Compute the patch (costs a diff per changed document). */
  patch?: boolean;
  /** Parse as JSON Lines. */
  jsonl?: boolean;
  /** Warn when a document holds no config or splitter output. */
  warnIfEmpty?: boolean;
}

export interface TextResult extends FileResult {
  /** The migrated text; null when unchanged or failed. */
  text: string | null;
}

export function isJsonlName(file: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(file);
}

function toFileError(e: unknown, file: string): FileError {
  if (e instanceof EvalkitError) return { message: e.message, location: { file, ...e.location }, ...(e.hint ? { hint: e.hint } : {}) };
  throw e;
}

/**
 * Migrates the text of one file. Pure. The migrated text keeps everything the migration does
 * not change byte for byte (see text.ts); every edit is checked against the migrated document.
 */
export function migrateText(text: string, file: string, opts: TextOptions): TextResult {
  if (opts.convertFields && !opts.fieldsRun) opts = { ...opts, fieldsRun: fieldsRunOf(runDocuments(text, file, opts.jsonl === true), opts) };
  const { result, text: next } = migrateFileText(text, file, opts, opts.jsonl === true, opts.warnIfEmpty === true);
  return Object.assign(result, { text: next });
}

// The per-file path below builds its objects whole, as literals: on V8 a spread followed by more
// members (`{ ...opts, jsonl }`) takes a slow path, and the objects it makes are slow to read.

/** migrateText with the per-file options apart, and the result and the text apart. */
function migrateFileText(text: string, file: string, opts: TreeOptions & { patch?: boolean }, jsonl: boolean, warnIfEmpty: boolean): { result: FileResult; text: string | null } {
  const patch: Operation[] = [];
  const warnings: Finding[] = [];
  const dropped: Dropped[] = [];
  const errors: FileError[] = [];
  const items: SpotReport[] = [];
  const records: Array<{ text: string; eol: string; doc: unknown; line: number | undefined }> = [];
  try {
    if (jsonl) {
      const lines = text.split('\n');
      lines.forEach((raw, i) => {
        const cr = raw.endsWith('\r');
        const body = cr ? raw.slice(0, -1) : raw;
        const eol = i < lines.length - 1 ? (cr ? '\r\n' : '\n') : cr ? '\r' : '';
        records.push(body.trim() === '' ? { text: body, eol, doc: undefined, line: undefined } : { text: body, eol, doc: parseJson(body, file, i), line: i + 1 });
      });
    } else records.push({ text, eol: '', doc: parseJson(text, file), line: undefined });
  } catch (e) {
    errors.push(toFileError(e, file));
    return { result: { path: file, status: 'error', from: null, to: opts.to, items, patch, warnings, dropped, errors }, text: null };
  }
  let changed = false;
  let index = 0;
  const out: string[] = [];
  for (const rec of records) {
    if (rec.doc === undefined) {
      out.push(rec.text + rec.eol);
      continue;
    }
    const prefix = jsonl ? `/${index++}` : '';
    const r = migrateTree(rec.doc, opts, { file, line: rec.line });
    for (const s of r.spots) items.push(prefix ? { pointer: prefix + s.pointer, kind: s.kind, type: s.type, from: s.from, changed: s.changed } : s);
    for (const w of r.warnings) warnings.push(w);
    for (const d of r.dropped) dropped.push(d);
    for (const e of r.errors) errors.push(toFileError(e, file));
    if (!r.changed || r.errors.length) {
      out.push(rec.text + rec.eol);
      continue;
    }
    changed = true;
    let next: string;
    try {
      next = applyTextChanges(rec.text, r.textChanges, r.doc);
    } catch (e) {
      if (e instanceof EvalkitError) {
        // A problem of the input (a key twice in an object to rewrite): this file is not migrated.
        errors.push({ message: e.message, location: { file, ...(rec.line ? { line: rec.line } : {}), pointer: `${prefix}${e.location.pointer ?? ''}` }, ...(e.hint ? { hint: e.hint } : {}) });
        continue;
      }
      throw new InternalError(`${file}${rec.line ? `:${rec.line}` : ''}: cannot rewrite the text: ${(e as Error).message}`);
    }
    out.push(next + rec.eol);
    if (opts.patch) for (const op of makePatch(rec.doc, r.doc)) patch.push(prefixOp(op, prefix));
  }
  if (warnIfEmpty && items.length === 0 && errors.length === 0) {
    warnings.push({ pointer: '', message: 'no processor config or splitter output found' });
  }
  const from = summarizeFrom(items);
  if (errors.length) return { result: { path: file, status: 'error', from, to: opts.to, items, patch: [], warnings, dropped, errors }, text: null };
  const status = changed ? 'migrated' : 'unchanged';
  return { result: { path: file, status, from, to: opts.to, items, patch, warnings, dropped, errors }, text: changed ? (out.length === 1 ? out[0] : out.join('')) : null };
}

/** The documents of a text (JSONL: one per non-empty line) for a --convert-fields run; what does not parse is left for its migration to report. */
function* runDocuments(text: string, file: string, jsonl: boolean): Generator<RunDocument> {
  if (!jsonl) {
    const doc = parseOrUndefined(text, file, 0);
    if (doc !== undefined) yield { doc, file };
    return;
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const body = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (body.trim() === '') continue;
    const doc = parseOrUndefined(body, file, i);
    if (doc !== undefined) yield { doc, file, line: i + 1 };
  }
}

function parseOrUndefined(text: string, file: string, line: number): unknown {
  try {
    return parseJson(text, file, line);
  } catch {
    return undefined;
  }
}

/** The documents of every file of a --convert-fields run, read once before the run migrates any. */
function* jobDocuments(jobs: readonly FileJob[]): Generator<RunDocument> {
  for (const job of jobs) {
    let text: string;
    try {
      text = readFileSync(job.abs, READ_TEXT);
    } catch {
      continue;
    }
    yield* runDocuments(text, job.path, isJsonlName(job.abs));
  }
}

function prefixOp(op: Operation, prefix: string): Operation {
  if (!prefix) return op;
  const out = { ...op, path: prefix + op.path } as Operation & { from?: string };
  if ('from' in op && typeof op.from === 'string') out.from = prefix + op.from;
  return out;
}

/** One file to migrate: the name shown, where it is, and where its --out-dir copy goes. */
export interface FileJob {
  path: string;
  abs: string;
  /** Path relative to the root it was found under (the named folder, or the file's folder). */
  rel: string;
  /** Named on the command line (not found by walking a folder). */
  explicit: boolean;
}

const JSON_NAME = /\.(json|jsonl)$/i;

/**
 * Files to migrate from paths: files as named, folders walked recursively for .json and .jsonl
 * by util/walk (skipping node_modules, hidden entries, .gitignore'd paths unless `ignore: false`,
 * symbolic links and the --out-dir folder), sorted. Paths that do not exist come back as errors.
 */
export async function collectFiles(paths: readonly string[], opts: { outDir?: string; ignore?: boolean } = {}): Promise<{ jobs: FileJob[]; missing: FileResult[] }> {
  const jobs: FileJob[] = [];
  const missing: FileResult[] = [];
  const seen = new Set<string>();
  const outDir = opts.outDir ? path.resolve(opts.outDir) : undefined;
  // One path gives no file twice (a walk lists each once): only several are checked for overlaps.
  const dedupe = paths.length > 1;
  const add = (job: FileJob) => {
    if (dedupe) {
      if (seen.has(job.abs)) return;
      seen.add(job.abs);
    }
    jobs.push(job);
  };
  for (const p of paths) {
    const abs = path.resolve(p);
    let stat;
    try {
      stat = await fsp.stat(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      missing.push(failed(p, code === 'ENOENT' ? 'no such file or folder' : `cannot read: ${code ?? String(e)}`, 'check the path'));
      continue;
    }
    if (!stat.isDirectory()) {
      add({ path: p, abs, rel: path.basename(abs), explicit: true });
      continue;
    }
    const norm = path.normalize(p);
    const shownRoot = norm === '.' ? '' : norm.endsWith(path.sep) ? norm : norm + path.sep;
    for (const f of await walkFiles(abs, { match: (name) => JSON_NAME.test(name), ignore: opts.ignore, exclude: outDir })) {
      add({ path: shownRoot + f.rel, abs: f.abs, rel: f.rel, explicit: false });
    }
  }
  return { jobs, missing };
}

function failed(file: string, message: string, hint?: string): FileResult {
  return {
    path: file,
    status: 'error',
    from: null,
    to: '2025-04-21',
    items: [],
    patch: [],
    warnings: [],
    dropped: [],
    errors: [{ message, location: { file }, ...(hint ? { hint } : {}) }],
  };
}

export interface MigrateFilesOptions extends TreeOptions {
  /** dry-run and check write nothing; write rewrites in place; out-dir writes copies. */
  mode: 'dry-run' | 'check' | 'write' | 'out-dir';
  outDir?: string;
  patch?: boolean;
  /** Files in flight at once (reading, migrating, writing). */
  concurrency?: number;
}


/**
 * Migrates files, calling onResult as each finishes (in any order; `index` is the job's index).
 * A file that fails is never written; one failure does not stop the others. Writes are atomic.
 * An --out-dir that did not exist is made at the end, whole (util/copies.ts StagedCopies): should
 * a copy then fail to reach it, onResult is called a second time for that index, with an error
 * result that replaces the first.
 */
export async function migrateFiles(
  jobs: readonly FileJob[],
  opts: MigrateFilesOptions,
  onResult: (result: FileResult, index: number) => void,
): Promise<void> {
  if (opts.convertFields && !opts.fieldsRun) {
    // Configs and their items convert together: every file is looked at before any is migrated.
    opts = { ...opts, fieldsRun: fieldsRunOf(jobDocuments(jobs), opts) };
    if (opts.mode === 'write' || opts.mode === 'out-dir') {
      // All or nothing: a first pass writes nothing; any refusal and no file is written.
      const results: FileResult[] = new Array(jobs.length);
      let refused = false;
      await migrateFiles(jobs, { ...opts, mode: 'check' }, (r, i) => {
        results[i] = r;
        if (r.status === 'error') refused = true;
      });
      if (refused) {
        for (let i = 0; i < jobs.length; i++) {
          const r = results[i];
          if (r.status === 'migrated') {
            r.status = 'error';
            r.patch = [];
            r.errors.push({ message: 'not written: another file of this --convert-fields run was refused (configs and their items are converted together, all or nothing)', location: { file: r.path }, hint: 'fix the errors reported for the other files, then run the command again' });
          }
          onResult(r, i);
        }
        return;
      }
    }
  }
  const writer = new AtomicWriter();
  const outDir = opts.outDir ? path.resolve(opts.outDir) : undefined;
  // Decided up front, in job order, so which file wins a clash does not depend on timing.
  const dests: Array<string | FileResult | undefined> = new Array(jobs.length);
  if (opts.mode === 'out-dir' && outDir) {
    const owner = new Map<string, string>();
    const base = outDir.endsWith(path.sep) ? outDir : outDir + path.sep;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i];
      // A walked file's rel is made of entry names, which hold no separator and are never `.` or
      // `..` (nothing to normalise): joined by hand, as path.join per file costs more than the
      // rest of this loop.
      const dest = !job.explicit || isClean(job.rel) ? base + job.rel : path.join(outDir, job.rel);
      const other = owner.get(dest);
      if (other !== undefined) dests[i] = failed(job.path, `--out-dir copy ${dest} would overwrite the copy of ${other}`, 'migrate the folders in separate runs, or to different --out-dir folders');
      else if (dest === job.abs) dests[i] = failed(job.path, '--out-dir would overwrite the file itself', 'use --write to rewrite files in place');
      else {
        owner.set(dest, job.path);
        dests[i] = dest;
      }
    }
  }
  // Reading, migrating and the --out-dir copies are synchronous, file after file, with a pause
  // now and then for timers and signals: for small files a blocking read or write costs a
  // fraction of a promise-based one. The durable writes of --write, which wait for the disk,
  // overlap up to `concurrency` at once.
  const concurrency = opts.concurrency ?? 16;
  const limit = opts.mode === 'write' ? (await import('p-limit')).default(concurrency) : undefined;
  const writes = new Set<Promise<void>>();
  // An --out-dir that does not exist yet is made whole, with one rename at the end (see
  // util/copies.ts). Results are reported as the copies are staged, under their final names
  // (holding them to the end would only make work for the garbage collector).
  const staged = opts.mode === 'out-dir' && outDir && isAbsent(outDir) ? new StagedCopies(outDir) : undefined;
  const copies = opts.mode === 'out-dir' && !staged ? new CopyWriter() : undefined;
  // The staging folder of a run that was killed outright (SIGKILL) is removed by the next.
  if (staged && outDir) await sweepStaleTemps(path.dirname(outDir));
  const pause = yielder(20);
  try {
    for (let index = 0; index < jobs.length; index++) {
      const paused = pause();
      if (paused) await paused;
      const job = jobs[index];
      const dest = dests[index];
      const { result, write, copy } = typeof dest === 'object' ? oneFile(dest) : migrateOneFile(job, opts, dest, writer);
      result.to = opts.to;
      if (copy && (staged || copies)) {
        const error = staged ? staged.write(copy.file, copy.data, index) : copies!.write(copy.file, copy.data);
        if (error) writeFailed(result, copy.file, job.path, error);
        else result.written = copy.file;
        onResult(result, index);
      } else if (write && limit) {
        const task = limit(async () => {
          await write();
          onResult(result, index);
        });
        writes.add(task);
        void task.finally(() => writes.delete(task));
        while (writes.size >= concurrency) await Promise.race(writes);
      } else onResult(result, index);
    }
  } catch (e) {
    staged?.abort();
    throw e;
  }
  // Only when the folder appeared meanwhile and a copy could not be moved into it.
  for (const f of staged?.commit() ?? []) {
    const result = failed(jobs[f.id].path, `cannot write ${f.file}: ${f.code}`);
    result.to = opts.to;
    onResult(result, f.id);
  }
  await Promise.all(writes);
  await writer.flush();
}

/** A relative path that path.join would leave as it is: no empty, `.` or `..` segment, no leading or trailing separator. */
function isClean(rel: string): boolean {
  if (rel === '' || rel.startsWith(path.sep) || rel.endsWith(path.sep) || rel.includes(path.sep + path.sep)) return false;
  if (path.sep === '\\' && rel.includes('/')) return false;
  const sep = path.sep;
  const wrapped = sep + rel + sep;
  return !wrapped.includes(`${sep}.${sep}`) && !wrapped.includes(`${sep}..${sep}`);
}

interface OneFile {
  result: FileResult;
  /** --write: the durable rewrite, left to the caller. */
  write: (() => Promise<void>) | undefined;
  /** --out-dir: the copy to write. */
  copy: { file: string; data: string } | undefined;
}

/**
 * Every OneFile made here, with its members always in the same order: the loop that reads them
 * then sees objects of one shape (V8 threw away its optimised code for each new one).
 */
function oneFile(result: FileResult, write?: () => Promise<void>, copy?: { file: string; data: string }): OneFile {
  return { result, write, copy };
}

// Options as one object, not 'utf8': Node copies a string option into a new object per call.
const READ_TEXT = { encoding: 'utf8', flag: 'r' } as const;

/** Reads and migrates one file; what is to be written is left to the caller. */
function migrateOneFile(job: FileJob, opts: MigrateFilesOptions, dest: string | undefined, writer: AtomicWriter): OneFile {
  const cannotRead = (e: unknown): OneFile => oneFile(failed(job.path, `cannot read: ${errorCode(e)}`));
  let text: string;
  try {
    // Node reads UTF-8 text in one call; invalid bytes become U+FFFD, so a text that holds one
    // is checked again, strictly, from its bytes (a U+FFFD written in the file is valid).
    text = readFileSync(job.abs, READ_TEXT);
    if (text.includes('\ufffd') && !isUtf8(readFileSync(job.abs))) return oneFile(failed(job.path, 'not valid UTF-8', 'save the file as UTF-8'));
  } catch (e) {
    return cannotRead(e);
  }
  let r: { result: FileResult; text: string | null };
  try {
    r = migrateFileText(text, job.path, opts, isJsonlName(job.abs), job.explicit);
  } catch (e) {
    if (!(e instanceof EvalkitError)) throw e;
    return oneFile(failed(job.path, e.message, e.hint));
  }
  const { result, text: next } = r;
  if (result.status === 'error') return oneFile(result);
  if (opts.mode === 'write' && next !== null) {
    let real: string;
    try {
      real = realpathSync(job.abs);
    } catch (e) {
      return cannotRead(e);
    }
    return oneFile(result, async () => {
      try {
        await writer.write(real, next, { replace: true });
        result.written = real;
      } catch (e) {
        writeFailed(result, real, job.path, errorCode(e));
      }
    });
  }
  // Files that need no migration are copied as they are: valid UTF-8 text, written back, is the
  // same bytes (a BOM included).
  if (opts.mode === 'out-dir' && dest !== undefined) return oneFile(result, undefined, { file: dest, data: next ?? text });
  return oneFile(result);
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String(e);
}

function writeFailed(result: FileResult, file: string, shown: string, why: string): void {
  result.status = 'error';
  result.errors.push({ message: `cannot write ${file}: ${why}`, location: { file: shown } });
}
