/**
 * The report folders `evalkit view` serves: each PATH is a report folder (it holds report.json),
 * or a folder of them (searched two levels down, as reports/ holds demo/<dataset>/). A report's
 * run export and baseline export are found beside its report.json, else where report.json names
 * them; their items are read when a document is first opened, and kept by item id.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ExportItem } from '../metrics/generated/export.js';
import type { Report } from '../metrics/generated/report.js';
import { readFile } from 'node:fs/promises';
import { loadReport } from '../report/load.js';
import { isPlainObject } from '../util/json.js';
import { InputError } from '../util/errors.js';
import { walkFiles } from '../util/walk.js';

export interface ViewReport {
  /** Its place in the list: the URL is /r/<index>/. */
  index: number;
  /** Real path of the folder. */
  dir: string;
  /** The folder as given or found, for messages and the index page. */
  shown: string;
  report: Report;
  /** report.html of the folder. */
  html: string;
  /** The run's export and the baseline's (undefined: not found; the pane says so). */
  exportFile?: string;
  baselineFile?: string;
}

const MAX_DEPTH = 2;

function isReportDir(dir: string): boolean {
  return existsSync(path.join(dir, 'report.json')) && existsSync(path.join(dir, 'report.html'));
}

/** Report folders under `dir` (itself, else up to two levels below), sorted by path. */
function findReportDirs(dir: string, depth = 0): string[] {
  if (isReportDir(dir)) return [dir];
  if (depth >= MAX_DEPTH) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    if (n.startsWith('.') || n === 'node_modules') continue;
    const sub = path.join(dir, n);
    let isDir = false;
    try {
      isDir = statSync(sub).isDirectory();
    } catch {
      continue;
    }
    if (isDir) out.push(...findReportDirs(sub, depth + 1));
  }
  return out;
}

/**
 * An export a report names (report.json keeps its file name only, so that the report's bytes do
 * not depend on where it was written): beside report.json first (a folder moved as a whole), then
 * as named from the working folder, then the one file of that name under the working folder
 * (`evalkit report --from exports/run.json` writes reports/run/; see filesByName).
 */
function exportOf(dir: string, named: string | undefined, cwd: string, found: (name: string) => readonly string[]): string | undefined {
  if (!named) return undefined;
  for (const candidate of [path.join(dir, path.basename(named)), path.resolve(cwd, named)]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // next
    }
  }
  const under = found(path.basename(named));
  return under.length === 1 ? under[0] : undefined;
}

/**
 * Files by name under the working folder (the walker of migrate and validate: hidden folders,
 * node_modules and .gitignore'd paths passed over; four levels down), for the names asked.
 */
async function filesByName(root: string, names: ReadonlySet<string>): Promise<(name: string) => readonly string[]> {
  const byName = new Map<string, string[]>();
  if (names.size) {
    for (const f of await walkFiles(root, { match: (n) => names.has(n), maxDepth: 4 })) {
      const name = path.basename(f.abs);
      const list = byName.get(name);
      if (list) list.push(f.abs);
      else byName.set(name, [f.abs]);
    }
  }
  return (name) => byName.get(name) ?? [];
}

/** The report folders of the PATH arguments (relative to `cwd`); an input error naming a PATH that holds none. */
export async function findReports(paths: readonly string[], cwd: string = process.cwd()): Promise<ViewReport[]> {
  const dirs: Array<{ dir: string; shown: string }> = [];
  const seen = new Set<string>();
  for (const p of paths.length ? paths : ['.']) {
    let start = path.resolve(cwd, p);
    try {
      if (statSync(start).isFile()) start = path.dirname(start);
    } catch {
      throw new InputError(`${p}: no such folder`, { hint: 'pass a report folder (with report.json and report.html, as `evalkit report --out-dir` writes it) or a folder of them' });
    }
    const found = findReportDirs(start);
    if (found.length === 0) {
      throw new InputError(`${p}: no report.json with its report.html in it or in the folders below it (two levels)`, {
        hint: 'run `evalkit report --from <export> --out-dir <folder>` (or `evalkit demo`) first, then `evalkit view <folder>`',
      });
    }
    for (const d of found) {
      const real = realpathSync(d);
      if (seen.has(real)) continue;
      seen.add(real);
      dirs.push({ dir: real, shown: path.relative(cwd, d) || '.' });
    }
  }
  const loaded: Array<{ dir: string; shown: string; report: Report }> = [];
  for (const { dir, shown } of dirs) loaded.push({ dir, shown, report: await loadReport(path.join(dir, 'report.json')) });
  // The exports not beside their report.json (nor named from here) are looked for under the working folder, in one walk.
  const wanted = new Set<string>();
  for (const { dir, report } of loaded) {
    for (const named of [report.source.file, report.baseline?.file]) if (named && !exportOf(dir, named, cwd, () => [])) wanted.add(path.basename(named));
  }
  const found = await filesByName(cwd, wanted);
  const out: ViewReport[] = [];
  for (const { dir, shown, report } of loaded) {
    out.push({
      index: out.length,
      dir,
      shown,
      report,
      html: path.join(dir, 'report.html'),
      exportFile: exportOf(dir, report.source.file, cwd, found),
      baselineFile: exportOf(dir, report.baseline?.file, cwd, found),
    });
  }
  return out;
}

/**
 * The items of an export by id (undefined: not an export, e.g. a report.json baseline). Read with
 * JSON.parse alone, not validated again (`evalkit report` validated it; the pane reads every member
 * defensively): validating 50,000 items took most of a minute, parsing them about a second.
 */
export async function itemsById(file: string): Promise<Map<string, ExportItem> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const map = new Map<string, ExportItem>();
  const add = (item: unknown): void => {
    if (isPlainObject(item) && typeof item.id === 'string') map.set(item.id, item as unknown as ExportItem);
  };
  try {
    if (/\.(jsonl|ndjson)$/i.test(file)) {
      // The first line is the header; each other line one item.
      text.split('\n').slice(1).forEach((line) => line.trim() && add(JSON.parse(line)));
    } else {
      const doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
      if (!isPlainObject(doc) || !Array.isArray(doc.items)) return undefined;
      for (const item of doc.items) add(item);
    }
  } catch {
    return undefined;
  }
  return map;
}
