import { promises as fsp, renameSync, rmSync, statSync } from 'node:fs';
import { InputError } from './errors.js';
import path from 'node:path';

/** Every temp file of an atomic write starts with this; its name ends in `.<pid>.<8 hex>[.<n>]`. */
export const TEMP_PREFIX = '.evalkit-tmp-';

/** This process's part of temp names: its pid (how a later run proves a temp is stale) and a nonce. */
export function tempTag(): string {
  // Math.random, not node:crypto (whose loading costs every command's start-up): the nonce only
  // keeps two runs of one pid apart, and temp files are created exclusively (wx) anyway.
  return `${process.pid}.${Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')}`;
}

/** Temp files (and staging folders) of this process not yet renamed or removed: what an interrupted run removes. */
const liveTemps = new Set<string>();

/** A temp file or staging folder made outside AtomicWriter, for removeLiveTempsSync (until untracked). */
export function trackTemp(p: string): void {
  liveTemps.add(p);
}

export function untrackTemp(p: string): void {
  liveTemps.delete(p);
}

/**
 * Removes this process's temp files and staging folders at once (synchronously: called from a
 * signal handler that ends the process next). The targets stay as they were.
 */
export function removeLiveTempsSync(): string[] {
  const removed: string[] = [];
  for (const t of liveTemps) {
    try {
      rmSync(t, { recursive: true, force: true });
      removed.push(t);
    } catch {
      // best effort: a later run's sweepStaleTemps removes it
    }
  }
  liveTemps.clear();
  return removed;
}

/** The temp file beside `file` for an atomic write. */
export function tempPathFor(file: string, tag: string, n?: number): string {
  return path.join(path.dirname(file), `${TEMP_PREFIX}${path.basename(file)}.${tag}${n === undefined ? '' : `.${n}`}`);
}

const TEMP_NAME = /^\.evalkit-tmp-.+\.(\d+)\.[0-9a-f]{8}(?:\.\d+)?$/;
const swept = new Set<string>();

/**
 * Removes the temp files (and staging folders, with what they hold) a killed evalkit left in
 * `dir` (once per folder and process): only names of evalkit's own pattern whose pid is no
 * running process, so a temp of a run still writing, or anything else's file, is never touched.
 * Best effort: a folder that cannot be listed is left alone.
 */
export async function sweepStaleTemps(dir: string): Promise<string[]> {
  if (swept.has(dir)) return [];
  swept.add(dir);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const m = TEMP_NAME.exec(name);
    if (!m || Number(m[1]) === process.pid || isRunning(Number(m[1]))) continue;
    const file = path.join(dir, name);
    if (await fsp.rm(file, { recursive: true }).then(() => true, () => false)) removed.push(file);
  }
  return removed;
}

export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Atomic writes: each file goes to a temp file in its own folder, is synced and renamed over
 * the target, so a reader (or a killed run) sees the old content or the new, never a torn file;
 * a failure leaves the old file as it was and removes the temp file. For runs over thousands of
 * files each folder is created once and synced once, in flush(), instead of after every rename.
 */
export class AtomicWriter {
  private readonly made = new Map<string, Promise<unknown>>();
  private readonly touched = new Set<string>();
  private readonly tag = tempTag();
  private count = 0;

  /**
   * `replace`: the file exists and the new one keeps its permissions (a missing file gets the
   * default). Otherwise the file gets `mode`, or the default for new files (0666 less the umask).
   */
  async write(file: string, data: string | Uint8Array | Iterable<string>, opts: { mode?: number; replace?: boolean } = {}): Promise<void> {
    const dir = path.dirname(file);
    let made = this.made.get(dir);
    if (!made) this.made.set(dir, (made = fsp.mkdir(dir, { recursive: true }).then(() => sweepStaleTemps(dir))));
    await made;
    const mode = opts.mode ?? (opts.replace ? await fsp.stat(file).then((s) => s.mode & 0o7777, () => undefined) : undefined);
    const tmp = this.tempName(file);
    liveTemps.add(tmp);
    const handle = await fsp.open(tmp, 'wx').catch((e: unknown) => {
      liveTemps.delete(tmp);
      throw e;
    });
    try {
      // After open, so that the umask does not filter the mode of the replaced file.
      if (mode !== undefined) await handle.chmod(mode);
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else await writeChunks(handle, data);
      await handle.datasync();
    } catch (e) {
      await handle.close().catch(() => undefined);
      await fsp.rm(tmp, { force: true });
      liveTemps.delete(tmp);
      throw e;
    }
    await handle.close();
    await this.rename(tmp, file, dir);
  }

  private tempName(file: string): string {
    return tempPathFor(file, this.tag, this.count++);
  }

  private async rename(tmp: string, file: string, dir: string): Promise<void> {
    try {
      await fsp.rename(tmp, file);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    } finally {
      liveTemps.delete(tmp);
    }
    this.touched.add(dir);
  }

  /** Make the renames durable: sync every folder written to. */
  async flush(): Promise<void> {
    await Promise.all([...this.touched].map(syncDir));
    this.touched.clear();
  }
}

async function syncDir(dir: string): Promise<void> {
  let h: fsp.FileHandle | undefined;
  try {
    h = await fsp.open(dir, 'r');
    await h.sync();
  } catch {
    // Some platforms cannot sync a folder; the rename is still atomic.
  } finally {
    await h?.close().catch(() => undefined);
  }
}

/** Writes a sequence of strings (a file too large for one string, such as a JSONL export) in ~1 MiB writes. */
async function writeChunks(handle: fsp.FileHandle, chunks: Iterable<string>): Promise<void> {
  let buf: string[] = [];
  let size = 0;
  for (const c of chunks) {
    buf.push(c);
    size += c.length;
    if (size >= 1 << 20) {
      await handle.writeFile(buf.join(''));
      buf = [];
      size = 0;
    }
  }
  if (buf.length) await handle.writeFile(buf.join(''));
}

/** A file written piece by piece (a rejects file as rows fail), then renamed into place at once. */
export interface AtomicFile {
  write(text: string): Promise<void>;
  /** Syncs the temp file and renames it over the target. */
  commit(): Promise<void>;
  /** Drops the temp file; the target stays as it was. */
  abort(): Promise<void>;
}

export async function openAtomic(file: string, opts: { mode?: number } = {}): Promise<AtomicFile> {
  const dir = path.dirname(file);
  await sweepStaleTemps(dir);
  const tmp = tempPathFor(file, tempTag());
  liveTemps.add(tmp);
  const handle = await fsp.open(tmp, 'wx', opts.mode ?? 0o666).catch((e: unknown) => {
    liveTemps.delete(tmp);
    throw e;
  });
  let open = true;
  const close = async (): Promise<void> => {
    if (open) {
      open = false;
      await handle.close();
    }
  };
  return {
    write: async (text) => void (await handle.write(text)),
    commit: async () => {
      try {
        await handle.datasync();
        await close();
        await fsp.rename(tmp, file);
      } catch (e) {
        await close().catch(() => undefined);
        await fsp.rm(tmp, { force: true });
        throw e;
      } finally {
        liveTemps.delete(tmp);
      }
    },
    abort: async () => {
      await close().catch(() => undefined);
      await fsp.rm(tmp, { force: true });
      liveTemps.delete(tmp);
    },
  };
}

/** One atomic, durable write (see AtomicWriter); an existing file keeps its permissions. */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string>, opts: { mode?: number } = {}): Promise<void> {
  const w = new AtomicWriter();
  await w.write(file, data, { replace: true, ...opts });
  await w.flush();
}

/**
 * Creates `file` with all its content in one step, or fails with EEXIST when a file of that name
 * is there: the content goes to a temp file in the same folder (synced), which is then hard-linked
 * to the name. link(2) never replaces, so of several writers racing for one name exactly one wins,
 * and no reader ever sees the file empty or half-written (as it could between an O_EXCL create and
 * its write).
 */
export async function createFileExclusive(file: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  const tmp = tempPathFor(file, tempTag());
  liveTemps.add(tmp);
  try {
    const handle = await fsp.open(tmp, 'wx', opts.mode ?? 0o666);
    try {
      await handle.writeFile(data);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fsp.link(tmp, file);
  } finally {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    liveTemps.delete(tmp);
  }
}

/** Renames a finished temp file onto its target (same folder, so atomic on POSIX). */
export function commitTempSync(tmp: string, target: string): void {
  renameSync(tmp, target);
}

/** The path's stat, or undefined when nothing is there (also when a part of it is a file: ENOTDIR). */
function statIfAny(p: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** A path a command will write: a file, or a folder it may create. */
export interface OutputTarget {
  path: string;
  kind: 'file' | 'folder';
  /** The flag that named it, for the message (`--out-dir`, `--export-errors`). */
  flag: string;
}

/**
 * Checks, before any work, that every output can be written where it is going: a file's path
 * is not a folder, a folder's path is not a file, and no existing part of either path is a file
 * (so a run does not score for minutes and then write half its outputs). An InputError naming
 * the flag and the path otherwise. What cannot be known in advance (a full disk) is not checked.
 */
export function checkOutputTargets(targets: readonly OutputTarget[]): void {
  for (const t of targets) {
    const abs = path.resolve(t.path);
    const st = statIfAny(abs);
    if (st) {
      if (t.kind === 'file' && st.isDirectory()) throw new InputError(`${t.flag}: ${t.path} is a folder, so the file cannot be written there`, { hint: 'move the folder away, or choose another path' });
      if (t.kind === 'folder' && !st.isDirectory()) throw new InputError(`${t.flag}: ${t.path} is a file, not a folder`, { hint: 'name a folder (it is made if it does not exist), or move the file away' });
      continue;
    }
    // The nearest part of the path that exists must be a folder.
    for (let dir = path.dirname(abs); ; dir = path.dirname(dir)) {
      const up = statIfAny(dir);
      if (up) {
        if (!up.isDirectory()) throw new InputError(`${t.flag}: ${t.path} cannot be made: ${dir} is a file, not a folder`, { hint: 'choose a path whose folders are folders' });
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
}
