/**
 * One writing upload into an evaluation set at a time. Two CI jobs, a double click, or a run with
 * its journal elsewhere would otherwise both plan "create" for every row and create each item
 * twice (or create two sets of one name). So the lock is on what must be exclusive, the set, not
 * on a file beside the CSV: a file in the user's state folder
 * (`$XDG_STATE_HOME/evalkit/locks`, default `~/.local/state/evalkit/locks`) named after the
 * service's address, the processor and the set's name (see uploadLockFor).
 *
 * The lock file holds its holder's pid, host, start time and a random token, and is created
 * with that content in one step (temp file + link(2): createFileExclusive), so no run ever reads
 * it empty. A lock whose holder is gone (a killed run, or a pid now used by a process that
 * started later) is taken over, race-free: the taker first takes a second lock named after the
 * stale content (`<lock>.break-<hash>`, by the same rules), checks the lock still holds that
 * content, and only then renames its own over it. While the stale content is there nobody else
 * writes the lock (a new run's link fails, another taker lacks the break lock), and once it is
 * gone it never comes back (the token is unique), so a late taker sees the change and stops.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '../api/index.js';
import { InputError } from '../util/errors.js';
import { createFileExclusive, sweepStaleTemps, writeFileAtomic } from '../util/fs.js';
import { stateDir } from '../util/state.js';
import { patiently } from './remote.js';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
  /** Unique per lock taken, so a lock's content never comes back once replaced. */
  token?: string;
  /** What is locked, for the message of a run that finds it held. */
  what?: string;
}

export interface UploadLock {
  readonly file: string;
  release(): Promise<void>;
}

export { stateDir };

/** The lock file of uploads into the set `name` of `processorId` on the service at `service` (a serviceKey). */
export function uploadLockPath(service: string, processorId: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash('sha256').update(`${service}\n${processorId}\n${name}`).digest('hex').slice(0, 32);
  return path.join(stateDir(env), 'locks', `upload-${key}.lock`);
}

/**
 * Where the upload into the target locks. By set name, for both ways of naming the target: a run
 * with `--create-set NAME` and a run with `--evaluation-set ID` of the set of that name write the
 * same set (the id is read from the service first). A set that cannot be read is locked by its id
 * (the run then fails on that read itself).
 */
export async function uploadLockFor(client: Client, service: string, target: { evaluationSetId?: string; createSet?: { name: string; processorId: string } }, signal?: AbortSignal): Promise<{ file: string; what: string }> {
  if (target.createSet) {
    const { name, processorId } = target.createSet;
    return { file: uploadLockPath(service, processorId, name), what: `set "${name}" of processor ${processorId} at ${service}` };
  }
  const id = target.evaluationSetId ?? '';
  const set = await patiently(() => client.sets.retrieve(id, { signal })).catch(() => undefined);
  if (set) return { file: uploadLockPath(service, set.entityId, set.name), what: `set "${set.name}" (${set.id}) of processor ${set.entityId} at ${service}` };
  return { file: uploadLockPath(service, '', `id:${id}`), what: `set ${id} at ${service}` };
}

/** Takes the lock or throws an InputError naming the holder (exit 2, nothing written). */
export async function acquireUploadLock(file: string, opts: { what?: string; now?: () => Date } = {}): Promise<UploadLock> {
  const mine: LockInfo = { pid: process.pid, host: os.hostname(), startedAt: (opts.now ?? (() => new Date()))().toISOString(), token: randomUUID(), ...(opts.what ? { what: opts.what } : {}) };
  const text = JSON.stringify(mine) + '\n';
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await sweepStaleTemps(path.dirname(file));
  // A run taking over a stale lock holds it for a few file operations: waited for, briefly.
  const giveUp = Date.now() + 10_000;
  for (;;) {
    const got = await claim(file, text, 0);
    if (got.ok) return { file, release: () => release(file, text) };
    if (got.holder) {
      const what = got.holder.what ?? opts.what;
      throw new InputError(`another upload ${what ? `into ${what} ` : ''}is running: pid ${got.holder.pid} on ${got.holder.host}, started ${got.holder.startedAt}`, {
        location: { file },
        hint: `wait for it to finish and run the command again (it creates nothing twice); if that process is gone, delete ${file}`,
      });
    }
    if (Date.now() > giveUp) throw new InputError('could not take the upload lock: other runs keep taking it over', { location: { file }, hint: 'run the uploads into this set one at a time' });
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
  }
}

type Claim = { ok: true } | { ok: false; holder?: LockInfo };

/** Nested break locks a taker may need (each level needs a taker killed in a few-syscall window). */
const MAX_DEPTH = 4;

/** Takes `slot` with `text`: created, or taken over from a holder that is gone. `holder` when a live run holds it; neither when another run is taking it over now. */
async function claim(slot: string, text: string, depth: number): Promise<Claim> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await createFileExclusive(slot, text, { mode: 0o644 });
      return { ok: true };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const held = await readIfAny(slot);
    if (held === undefined) continue; // released meanwhile: try again
    const info = parseLock(held);
    if (info && isAlive(info)) return { ok: false, holder: info };
    if (depth >= MAX_DEPTH) return { ok: false };
    // Stale (or not a lock at all): only the holder of the break lock of this content may replace it.
    const breaker = `${slot}.break-${createHash('sha256').update(held).digest('hex').slice(0, 16)}`;
    const b = await claim(breaker, text, depth + 1);
    if (!b.ok) return { ok: false }; // another run is taking it over: the caller waits
    try {
      if ((await readIfAny(slot)) !== held) continue; // taken over (or released) meanwhile
      await writeFileAtomic(slot, text, { mode: 0o644 });
      return { ok: true };
    } finally {
      await release(breaker, text);
    }
  }
  return { ok: false };
}

async function readIfAny(file: string): Promise<string | undefined> {
  return fsp.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
}

/** Removes the lock if it is still ours (only a run that found us gone could have replaced it). */
async function release(file: string, mine: string): Promise<void> {
  if ((await readIfAny(file).catch(() => undefined)) === mine) await fsp.rm(file, { force: true });
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.startedAt === 'string') return v as LockInfo;
  } catch {
    // A foreign file: treated as stale.
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
