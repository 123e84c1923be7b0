/**
 * One upload of a CSV at a time: a lock file beside the journal (`<journal>.lock`), created
 * atomically with O_EXCL, holding the holder's pid, host and start time. Two CI jobs or a double
 * click on the same CSV would otherwise both plan "create" for every row and create each item
 * twice. A lock whose holder is gone (a killed run) is taken over; so is one whose pid now
 * belongs to a process that started after the lock was written (the pid was reused).
 */
import { readFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import { InputError } from '../util/errors.js';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface UploadLock {
  readonly file: string;
  release(): Promise<void>;
}

export function lockPathFor(journalOrCsv: string): string {
  return `${journalOrCsv}.lock`;
}

/** Takes the lock or throws an InputError naming the holder (exit 2, nothing written). */
export async function acquireUploadLock(file: string, now: () => Date = () => new Date()): Promise<UploadLock> {
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: now().toISOString() };
  const text = JSON.stringify(mine) + '\n';
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await fsp.writeFile(file, text, { flag: 'wx', mode: 0o644 });
      return { file, release: () => release(file, text) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const held = await fsp.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    if (held === undefined) continue; // released meanwhile: try again
    const info = parseLock(held);
    if (info && isAlive(info)) {
      throw new InputError(`another upload of this CSV is running: pid ${info.pid} on ${info.host}, started ${info.startedAt}`, {
        location: { file },
        hint: `wait for it to finish and run the command again (it creates nothing twice); if that process is gone, delete ${file}`,
      });
    }
    await takeOver(file, held);
  }
  throw new InputError('could not take the upload lock: other runs keep taking it', { location: { file }, hint: 'run the uploads of this CSV one at a time' });
}

/**
 * A stale lock is renamed to a name of our own first (only one of several runs that found it
 * stale gets it); if what we renamed is not the stale lock we read (another run took over in
 * between), it is put back.
 */
async function takeOver(file: string, stale: string): Promise<void> {
  const aside = `${file}.stale.${process.pid}.${Date.now()}`;
  try {
    await fsp.rename(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  const got = await fsp.readFile(aside, 'utf8').catch(() => undefined);
  if (got !== stale) await fsp.link(aside, file).catch(() => undefined);
  await fsp.rm(aside, { force: true });
}

async function release(file: string, mine: string): Promise<void> {
  const now = await fsp.readFile(file, 'utf8').catch(() => undefined);
  if (now === mine) await fsp.rm(file, { force: true });
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.startedAt === 'string') return v as LockInfo;
  } catch {
    // A torn or foreign file: treated as stale.
  }
  return undefined;
}

/** True when the holder may still run. A lock of another host cannot be checked: it holds. */
function isAlive(info: LockInfo): boolean {
  if (info.host !== os.hostname()) return true;
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = processStartMs(info.pid);
  const locked = Date.parse(info.startedAt);
  // A process that started after the lock was written is not its holder (the pid was reused).
  return started === undefined || Number.isNaN(locked) || started <= locked + 1000;
}

/** Start time of a process in ms since the epoch, where /proc tells it (Linux). */
function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!btime || !Number.isFinite(ticks)) return undefined;
    // USER_HZ is 100 on every Linux the machines run.
    return Number(btime[1]) * 1000 + ticks * 10;
  } catch {
    return undefined;
  }
}
