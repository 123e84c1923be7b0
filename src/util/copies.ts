import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX, tempTag } from './fs.js';

const WRITE_NEW = { flag: 'wx', encoding: 'utf8' } as const;

/**
 * New copies of files (migrate --out-dir), written synchronously on the calling thread. Each copy
 * goes to a temp file in its folder (created exclusively) that is renamed over the target, so a
 * killed process leaves no copy or a whole one, never a torn file. Copies are not synced: an OS
 * crash can cost a copy (made again by a re-run), never a user's file; the in-place rewrites of
 * --write are durable (util/fs.ts AtomicWriter).
 *
 * Why synchronous: for files of a few KB a blocking write costs a fraction of a promise-based
 * one, and measured on the two-core machines a writer thread (the design before) cost more CPU
 * (its start-up and copying every text to it) than it saved in wall time.
 */
export class CopyWriter {
  private readonly made = new Set<string>();
  private readonly tag = tempTag();
  private count = 0;

  /** Writes one copy; returns undefined when written, else the error code (the temp file is removed). */
  write(file: string, data: string | Uint8Array): string | undefined {
    const cut = file.lastIndexOf(path.sep);
    const dir = file.slice(0, cut);
    const tmp = `${dir}${path.sep}${TEMP_PREFIX}${file.slice(cut + 1)}.${this.tag}.${this.count++}`;
    try {
      if (!this.made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        this.made.add(dir);
      }
      // The encoding named, so that Node takes its one-call path for text (utf8 is the default
      // only when no options are given); one options object for every call.
      writeFileSync(tmp, data, WRITE_NEW);
      renameSync(tmp, file);
      return undefined;
    } catch (e) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // The temp file may not exist; nothing else to undo.
      }
      return (e as NodeJS.ErrnoException).code ?? String(e);
    }
  }
}
