import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX, tempPathFor, tempTag, trackTemp, untrackTemp } from './fs.js';

const WRITE_NEW = { flag: 'wx', encoding: 'utf8' } as const;
const WRITE = { flag: 'w', encoding: 'utf8' } as const;

/**
 * New copies of files (migrate --out-dir), written synchronously on the calling thread. Each copy
 * goes to a temp file in its folder (created exclusively) that is renamed over the target, so a
 * killed process leaves no copy or a whole one, never a torn file. Copies are not synced: an OS
 * crash can cost a copy (made again by a re-run), never a user's file; the in-place rewrites of
 * --write are durable (util/fs.ts AtomicWriter). For a target folder that does not exist yet,
 * StagedCopies below does the same with one rename for the whole folder.
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
      return errorCode(e);
    }
  }
}

/** Whether nothing exists at `p` (not even a dangling symbolic link). */
export function isAbsent(p: string): boolean {
  try {
    lstatSync(p);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Copies into a folder that does not exist yet, made whole: every copy is written (plainly, no
 * temp file each) into a hidden staging folder beside the target (named as util/fs.ts names temp
 * files: TEMP_PREFIX, the target's name, this process's tag), which commit() renames to the
 * target in one step. Until
 * then the target does not exist: a run that fails or is stopped leaves no target at all, and
 * the signal handler of the CLI (util/fs.ts removeLiveTempsSync) removes the staging folder; one
 * killed outright (SIGKILL, power loss) leaves only the hidden staging folder, which the next run
 * writing beside it removes (util/fs.ts sweepStaleTemps). Saves the temp file and the rename of
 * every copy, for folders of thousands of small files a third of the writing.
 *
 * Should the target appear while the copies are written, it is not replaced: commit() moves the
 * copies into it one by one (each rename atomic, as with CopyWriter) and names each that fails.
 */
export class StagedCopies {
  /** The staging folder, and `target` as every copy's path starts. */
  private readonly stage: string;
  private readonly prefix: string;
  private readonly made = new Set<string>();
  /** The copies written (relative to the target) and the caller's id of each. */
  private readonly written: string[] = [];
  private readonly ids: number[] = [];
  private started = false;

  constructor(private readonly target: string) {
    this.stage = tempPathFor(target, tempTag());
    this.prefix = target.endsWith(path.sep) ? target : target + path.sep;
  }

  /**
   * Writes the copy of `file` (a path under the target); returns undefined when written, else the
   * error code. `id` is the caller's, for commit() to name a copy it could not move.
   */
  write(file: string, data: string | Uint8Array, id: number): string | undefined {
    if (!file.startsWith(this.prefix)) return 'EINVAL';
    const rel = file.slice(this.prefix.length);
    const staged = this.stage + path.sep + rel;
    const dir = staged.slice(0, staged.lastIndexOf(path.sep));
    try {
      if (!this.started) {
        mkdirSync(path.dirname(this.stage), { recursive: true });
        // Not recursive: the staging folder is this run's own, never one that was there.
        mkdirSync(this.stage);
        trackTemp(this.stage);
        this.started = true;
        this.made.add(this.stage);
      }
      if (!this.made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        this.made.add(dir);
      }
      writeFileSync(staged, data, WRITE);
      this.written.push(rel);
      this.ids.push(id);
      return undefined;
    } catch (e) {
      try {
        rmSync(staged, { force: true });
      } catch {
        // The copy may not exist; nothing else to undo.
      }
      return errorCode(e);
    }
  }

  /**
   * Moves the copies to the target: one rename of the staging folder, or, when the target has
   * appeared meanwhile, one rename per copy into it. Returns the copies that could not be moved,
   * with their error codes; the staging folder is gone afterwards.
   */
  commit(): Array<{ id: number; file: string; code: string }> {
    const failed: Array<{ id: number; file: string; code: string }> = [];
    if (!this.started) return failed;
    try {
      // rename(2) replaces an empty folder, never one that holds something (ENOTEMPTY) or a file.
      renameSync(this.stage, this.target);
      untrackTemp(this.stage);
      return failed;
    } catch {
      // The target appeared meanwhile (or cannot be replaced): into it, copy by copy.
    }
    const made = new Set<string>();
    for (let i = 0; i < this.written.length; i++) {
      const rel = this.written[i];
      const file = this.prefix + rel;
      const dir = file.slice(0, file.lastIndexOf(path.sep));
      try {
        if (!made.has(dir)) {
          mkdirSync(dir, { recursive: true });
          made.add(dir);
        }
        renameSync(this.stage + path.sep + rel, file);
      } catch (e) {
        failed.push({ id: this.ids[i], file, code: errorCode(e) });
      }
    }
    this.abort();
    return failed;
  }

  /** Removes the staging folder and everything in it; the target is left as it is. */
  abort(): void {
    if (!this.started) return;
    try {
      rmSync(this.stage, { recursive: true, force: true });
    } finally {
      untrackTemp(this.stage);
    }
  }
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String(e);
}
