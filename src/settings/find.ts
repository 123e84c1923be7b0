/**
 * Where evalkit.config.json is: the nearest one upward from a folder. Kept apart from the reader
 * so that a command without a config file loads nothing more than this.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InputError } from '../util/errors.js';

export const CONFIG_FILE_NAME = 'evalkit.config.json';
export const SCHEMA_FILE = 'schemas/evalkit-config.schema.json';

/** The nearest evalkit.config.json in `start` or a folder above it. */
export async function findSettingsFile(start: string): Promise<string | undefined> {
  let dir = path.resolve(start);
  for (;;) {
    const file = path.join(dir, CONFIG_FILE_NAME);
    const st = await fsp.stat(file).catch(() => undefined);
    if (st?.isFile()) return file;
    // A folder (or a pipe, a device) of that name is not skipped for a file further up: the user meant a config here.
    if (st?.isDirectory()) throw new InputError("a folder, not a config file", { location: { file }, hint: "rename or remove the folder, or name the config with --config-file" });
    if (st) throw new InputError(`not a regular file (${kindOf(st)})`, { location: { file }, hint: 'a config file is a JSON file: rename or remove this one, or name the config with --config-file' });
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** What a path that is not a regular file is, for messages. */
export function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  return st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a named pipe' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isSocket() ? 'a socket' : 'not a file';
}
