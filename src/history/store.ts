/**
 * The history folder: one JSON file per report (DIR/<time>-<commit or run id>.json), so CI
 * caches and artifacts can keep it and merge it by copying. Writes are atomic and never replace
 * an entry; reading skips (with a warning naming it) any file that is not an entry.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { InputError } from '../util/errors.js';
import { createFileExclusive } from '../util/fs.js';
import { stableStringify } from '../util/json.js';
import type { HistoryEntry } from './generated/history-entry.js';

export interface StoredEntry {
  /** File name inside the folder. */
  file: string;
  entry: HistoryEntry;
}

export interface History {
  entries: StoredEntry[];
  /** One per file skipped, naming it. */
  warnings: string[];
}

let validate: ValidateFunction | undefined;
async function validator(): Promise<ValidateFunction> {
  if (!validate) {
    const schema = JSON.parse(await fsp.readFile(new URL('../../schemas/history-entry.schema.json', import.meta.url), 'utf8')) as object;
    validate = new Ajv2020({ allErrors: false, strict: true, validateSchema: false }).compile(schema);
  }
  return validate;
}

/** `2026-11-24T02-15-00.123Z-1a2b3c4` (time with `-` for `:`, so names sort by time and suit every file system). */
export function entryBaseName(entry: HistoryEntry): string {
  const time = entry.time.replace(/:/g, '-');
  const id = entry.commit ? entry.commit.slice(0, 7) : entry.runId ? entry.runId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) : 'local';
  return `${time}-${id}`;
}

/** Writes the entry as a new file in `dir` (created if missing); returns its path. */
export async function appendHistory(dir: string, entry: HistoryEntry): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const base = entryBaseName(entry);
  const text = stableStringify(entry);
  for (let n = 1; ; n++) {
    const file = path.join(dir, `${base}${n === 1 ? '' : `-${n}`}.json`);
    // Two reports of one commit in the same millisecond get -2, -3: an entry is never replaced,
    // also when several processes (or calls of one) append at once: the name is taken by link(2),
    // which fails when it exists, rather than checked first and renamed over afterwards.
    try {
      await createFileExclusive(file, text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    return file;
  }
}

/** The entries of `dir`, oldest first (by time, then file name); what is not an entry is skipped with a warning. */
export async function readHistory(dir: string): Promise<History> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    throw new InputError(`cannot read the history folder ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      location: { file: dir },
      hint: '`evalkit report --history DIR` writes one file per report there',
    });
  }
  const check = await validator();
  const entries: StoredEntry[] = [];
  const warnings: string[] = [];
  for (const name of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Hidden files: temp files of a write in progress, and what other tools keep there.
    if (name.startsWith('.')) continue;
    const file = path.join(dir, name);
    if (!(await fsp.stat(file).then((st) => st.isFile(), () => false))) {
      warnings.push(`${file}: skipped, not a file`);
      continue;
    }
    if (!name.endsWith('.json')) {
      warnings.push(`${file}: skipped, not a history entry (not .json)`);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(await fsp.readFile(file, 'utf8'));
    } catch (e) {
      warnings.push(`${file}: skipped, not JSON (${(e as Error).message})`);
      continue;
    }
    if (!check(value)) {
      const er = check.errors?.[0];
      warnings.push(`${file}: skipped, not an evalkit history entry (${er ? `${er.instancePath || '/'} ${er.message ?? ''}`.trim() : 'invalid'})`);
      continue;
    }
    entries.push({ file: name, entry: value as HistoryEntry });
  }
  // Ties by name without `.json`, so that `T-abc` comes before its second entry `T-abc-2`.
  const stem = (f: string): string => f.replace(/\.json$/, '');
  entries.sort((a, b) => (a.entry.time < b.entry.time ? -1 : a.entry.time > b.entry.time ? 1 : stem(a.file) < stem(b.file) ? -1 : stem(a.file) > stem(b.file) ? 1 : 0));
  return { entries, warnings };
}
