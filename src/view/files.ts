/**
 * Where a document's file is: by its name (without evalkit's upload tag) in the folders given with
 * `--files` (searched below them), among the files a dataset CSV names (the config file's datasets;
 * `dataset download` writes such a CSV), or, when the caller passes one, fetched from the service.
 *
 * Only files under the allowed folders are served: a path is resolved to its real path (symlinks
 * followed) and must lie inside the real path of a `--files` folder, a CSV's folder or a report
 * folder. A name is only ever looked up, never joined to a folder as given, so `../` in a file
 * name cannot reach out.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { detectDelimiter } from '../dataset/csv.js';
import { nameWithoutUploadTag } from '../dataset/files.js';

/** Files indexed below one `--files` folder at most (a folder that holds more is cut there, and said so). */
export const MAX_INDEXED = 200_000;

export type FileKind = 'pdf' | 'image' | 'tiff' | 'text' | 'other';

const KIND: ReadonlyMap<string, [FileKind, string]> = new Map([
  ['pdf', ['pdf', 'application/pdf']],
  ['png', ['image', 'image/png']],
  ['jpg', ['image', 'image/jpeg']],
  ['jpeg', ['image', 'image/jpeg']],
  ['gif', ['image', 'image/gif']],
  ['webp', ['image', 'image/webp']],
  ['bmp', ['image', 'image/bmp']],
  ['tif', ['tiff', 'image/tiff']],
  ['tiff', ['tiff', 'image/tiff']],
  ['txt', ['text', 'text/plain; charset=utf-8']],
  ['md', ['text', 'text/plain; charset=utf-8']],
  ['csv', ['text', 'text/plain; charset=utf-8']],
]);

export function kindOf(name: string): { kind: FileKind; mime: string } {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  const k = KIND.get(ext);
  return k ? { kind: k[0], mime: k[1] } : { kind: 'other', mime: 'application/octet-stream' };
}

export type Found = { ok: true; file: string; from: string } | { ok: false; why: string };

/** Whether `real` (a real path) is `root` or below it. */
export function isInside(root: string, real: string): boolean {
  const rel = path.relative(root, real);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class FileFinder {
  /** Real paths of the folders files may be served from. */
  private readonly roots: string[] = [];
  /** name (lower case, untagged) -> candidate paths, in the order of the sources. */
  private readonly byName = new Map<string, Array<{ file: string; from: string }>>();
  readonly notes: string[] = [];

  constructor(opts: { filesDirs?: readonly string[]; csvFiles?: readonly string[]; reportDirs?: readonly string[] }) {
    for (const d of opts.reportDirs ?? []) this.addRoot(d);
    for (const dir of opts.filesDirs ?? []) {
      const real = this.addRoot(dir);
      if (real) this.indexDir(real, `--files ${dir}`);
      else this.notes.push(`--files ${dir}: no such folder`);
    }
    for (const csv of opts.csvFiles ?? []) this.indexCsv(csv);
  }

  private addRoot(dir: string): string | undefined {
    try {
      const real = realpathSync(dir);
      if (!statSync(real).isDirectory()) return undefined;
      if (!this.roots.includes(real)) this.roots.push(real);
      return real;
    } catch {
      return undefined;
    }
  }

  private add(name: string, file: string, from: string): void {
    const key = nameWithoutUploadTag(name).toLowerCase();
    const list = this.byName.get(key) ?? [];
    list.push({ file, from });
    this.byName.set(key, list);
  }

  private indexDir(root: string, from: string): void {
    let count = 0;
    const stack = [root];
    while (stack.length) {
      const dir = stack.pop() as string;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) stack.push(p);
        else if (e.isFile() || e.isSymbolicLink()) {
          if (++count > MAX_INDEXED) {
            this.notes.push(`${from}: more than ${MAX_INDEXED} files; the rest are not looked at`);
            return;
          }
          this.add(e.name, p, from);
        }
      }
    }
  }

  /** The files a dataset CSV names in its `file` column, relative to the CSV's folder. */
  private indexCsv(csv: string): void {
    let text: string;
    try {
      text = readFileSync(csv, 'utf8');
    } catch (e) {
      this.notes.push(`${csv}: cannot read the dataset CSV (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
      return;
    }
    let rows: string[][];
    try {
      rows = parse(text, { bom: true, delimiter: detectDelimiter(text.slice(0, 4096)), relax_column_count: true, skip_empty_lines: true }) as string[][];
    } catch (e) {
      this.notes.push(`${csv}: not a CSV (${(e as Error).message})`);
      return;
    }
    const col = rows[0]?.findIndex((h) => h.trim() === 'file') ?? -1;
    if (col < 0) return;
    const dir = path.dirname(path.resolve(csv));
    this.addRoot(dir);
    for (const r of rows.slice(1)) {
      const cell = (r[col] ?? '').trim();
      if (!cell || /^[a-z]+:\/\//i.test(cell)) continue;
      this.add(path.basename(cell), path.resolve(dir, cell), `the dataset CSV ${csv}`);
    }
  }

  /** The file of a document named `name`: the first candidate that exists inside an allowed folder. */
  find(name: string | null | undefined): Found {
    if (!name) return { ok: false, why: 'the export gives no file name for this document' };
    const base = nameWithoutUploadTag(name.split(/[\\/]/).pop() ?? name);
    const list = this.byName.get(base.toLowerCase());
    if (!list?.length) {
      return { ok: false, why: `no file named "${base}" in the folders evalkit view was given (${this.sources()}); pass --files DIR with the folder that holds it` };
    }
    let outside: string | undefined;
    for (const c of list) {
      let real: string;
      try {
        real = realpathSync(c.file);
        if (!statSync(real).isFile()) continue;
      } catch {
        continue;
      }
      if (this.roots.some((r) => isInside(r, real))) return { ok: true, file: real, from: c.from };
      outside = c.file;
    }
    if (outside) return { ok: false, why: `"${base}" (${outside}) lies outside the folders evalkit view serves; pass --files with its folder` };
    return { ok: false, why: `"${base}" is named by ${list[0].from} but cannot be read at ${list[0].file}` };
  }

  private sources(): string {
    return this.roots.length ? `searched: ${this.roots.join(', ')}` : 'none';
  }
}
