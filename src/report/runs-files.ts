/** `report --runs DIR`: every evaluation export in a folder, sorted by name. */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError } from '../util/errors.js';

const EXPORT_NAME = /\.(json|jsonl|ndjson)$/i;

/** The export files directly in `dir` (`.json`, `.jsonl`, `.ndjson`; hidden files left out), sorted by name (code units). */
export async function listRunExports(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    throw new InputError(`--runs ${dir}: cannot read the folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      location: { file: dir },
      hint: 'name a folder of evaluation exports written by `evalkit eval run/export`',
    });
  }
  const files: string[] = [];
  for (const name of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (name.startsWith('.') || !EXPORT_NAME.test(name)) continue;
    const file = path.join(dir, name);
    if (await fsp.stat(file).then((st) => st.isFile(), () => false)) files.push(file);
  }
  return files;
}
