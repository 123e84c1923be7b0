/**
 * The one folder walker of every command that takes folders (migrate, validate). By default it
 * skips what is not the user's own data: `node_modules`, hidden entries (`.git` among them), and
 * paths the `.gitignore` files of the walked folders name; `ignore: false` (`--no-ignore`)
 * walks everything but evalkit's own temp files and staging folders (util/fs.ts TEMP_PREFIX: what
 * a killed run left is never taken for input). Symbolic links are not followed. Results are in a
 * stable order: depth first, each folder's entries sorted by name.
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX } from './fs.js';
import { yielder } from './pause.js';

export interface WalkOptions {
  /** Which files to return, by name. */
  match: (name: string) => boolean;
  /** Skip node_modules, hidden entries and .gitignore'd paths (default true). */
  ignore?: boolean;
  /** A folder never to enter (an --out-dir inside the walked folder), absolute. */
  exclude?: string;
  /** How many folder levels below the root to enter (default: all). */
  maxDepth?: number;
}

export interface WalkedFile {
  abs: string;
  /** Relative to the walked root, with the platform's separator. */
  rel: string;
}

const SKIP_DIRS = new Set(['node_modules']);

export async function walkFiles(root: string, opts: WalkOptions): Promise<WalkedFile[]> {
  const out: WalkedFile[] = [];
  const ignoring = opts.ignore !== false;
  // Folders are listed with blocking calls (for folders of small files a promise-based listing
  // costs more than the listing), with a pause now and then for timers and signals.
  const pause = yielder(20);
  const walk = async (dir: string, rel: string, rules: readonly IgnoreRule[], depth: number): Promise<void> => {
    if (opts.exclude && dir === opts.exclude) return;
    const paused = pause();
    if (paused) await paused;
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let here = rules;
    if (ignoring && entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      here = [...rules, ...parseGitignore(readGitignore(path.join(dir, '.gitignore')), rel)];
    }
    const at: Folder = { dir, rel, rules: here, ignoring, match: opts.match };
    for (let i = addFiles(entries, 0, at, out); i < entries.length; i = addFiles(entries, i + 1, at, out)) {
      const name = entries[i].name;
      if (opts.maxDepth === undefined || depth < opts.maxDepth) await walk(joined(dir, name), rel + name + path.sep, here, depth + 1);
    }
  };
  await walk(root, '', [], 0);
  return out;
}

interface Folder {
  dir: string;
  rel: string;
  rules: readonly IgnoreRule[];
  ignoring: boolean;
  match: (name: string) => boolean;
}

// Joined by hand: path.join and path.relative per file cost more than the walk itself.
function joined(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/**
 * Adds the files of `entries` (of the folder `at`) from index `from` on to `out`, up to the first
 * folder to enter; returns its index, or entries.length. A plain loop apart from the walk's
 * async function: V8 optimises the loop that runs once per file alone, a far smaller unit.
 */
function addFiles(entries: readonly Dirent[], from: number, at: Folder, out: WalkedFile[]): number {
  for (let i = from; i < entries.length; i++) {
    const ent = entries[i];
    const name = ent.name;
    const isDir = ent.isDirectory();
    if (at.ignoring ? name.startsWith('.') || (isDir && SKIP_DIRS.has(name)) : name.startsWith(TEMP_PREFIX)) continue;
    const entRel = at.rel + name;
    if (at.rules.length && isIgnored(at.rules, entRel.split(path.sep).join('/'), isDir)) continue;
    if (isDir) return i;
    if (ent.isFile() && at.match(name)) out.push({ abs: joined(at.dir, name), rel: entRel });
  }
  return entries.length;
}

function readGitignore(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// .gitignore: blank lines and comments, `!` negation, a trailing `/` for folders only, a leading
// or inner `/` anchoring the pattern to the .gitignore's folder, `*`, `?`, `[...]` and `**`.

interface IgnoreRule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const prefix = base.split(path.sep).join('/');
  const rules: IgnoreRule[] = [];
  for (let line of text.split(/\r?\n/)) {
    line = line.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    if (line.startsWith('\\')) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.slice(0, -1);
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const body = globToRegex(line);
    const re = new RegExp(`^${escapeRe(prefix)}${anchored ? '' : '(?:.*/)?'}${body}(?:/.*)?$`);
    rules.push({ re, negate, dirOnly });
  }
  return rules;
}

function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue;
    if (r.re.test(rel)) ignored = !r.negate;
  }
  return ignored;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` any folders, `/**` everything inside, `**` anything.
        i++;
        if (glob[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        let cls = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        out += `[${cls}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += escapeRe(glob[++i]);
    else out += escapeRe(c);
  }
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
