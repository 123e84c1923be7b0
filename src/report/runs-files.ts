/** `report --runs DIR`: every evaluation export in a folder, sorted by name. */
import { promises as fsp, type Dirent } from 'node:fs';
import path from 'node:path';
import { InputError } from '../util/errors.js';

const EXPORT_NAME = /\.(json|jsonl|ndjson)$/i;

/** The export files directly in `dir` (`.json`, `.jsonl`, `.ndjson`; hidden files left out), sorted by name (code units). */
export async function listRunExports(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new InputError(`--runs ${dir}: cannot read the folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      location: { file: dir },
      hint: 'name a folder of evaluation exports written by `evalkit eval run/export`',
    });
  }
  const names = entries.filter((e) => e.isFile() && !e.name.startsWith('.') && EXPORT_NAME.test(e.name)).map((e) => e.name);
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((n) => path.join(dir, n));
}
