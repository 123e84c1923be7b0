// Exclusive things under concurrency: the upload lock across processes (created with its content
// in one step, stale locks taken over by one run only) and history appends that never replace.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { appendHistory, readHistory, type HistoryEntry } from '../../src/history/index.js';
import { acquireUploadLock, uploadLockPath } from '../../src/dataset/lock.js';
import { ROOT } from '../helpers/cli.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-locks-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const dist = (rel: string): string => pathToFileURL(path.join(ROOT, 'dist', rel)).href;

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    c.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    c.on('error', reject);
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Each worker waits for `go` (so that all race from the same moment, however slowly each
// process starts), then takes the lock until it has held it HOLDS times; while it holds it, it
// logs +pid and -pid around a short pause. Some holds end as a killed run's would: the lock is
// left behind naming a process that is gone, for the others to take over.
const HOLDS = 6;
const WORKER = `
import { acquireUploadLock } from ${JSON.stringify(dist('dataset/lock.js'))};
import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
const [file, log, go, dead] = process.argv.slice(2);
const pause = (ms = 3) => new Promise((r) => setTimeout(r, Math.random() * ms));
writeFileSync(go + '.ready.' + process.pid, '');
while (!existsSync(go)) await pause(5);
const giveUp = Date.now() + 60_000;
let held = 0, refused = 0, abandoned = 0;
while (held < ${HOLDS} && Date.now() < giveUp) {
  let lock;
  try {
    lock = await acquireUploadLock(file);
  } catch (e) {
    if (!/is running|keep taking/.test(e.message)) throw e;
    refused++;
    await pause();
    continue;
  }
  appendFileSync(log, '+' + process.pid + '\\n');
  await pause();
  appendFileSync(log, '-' + process.pid + '\\n');
  held++;
  if (Math.random() < 0.3) {
    const t = file + '.dead.' + process.pid;
    writeFileSync(t, JSON.stringify({ pid: Number(dead), host: os.hostname(), startedAt: new Date(0).toISOString() }) + '\\n');
    renameSync(t, file);
    abandoned++;
  } else await lock.release();
}
console.log(JSON.stringify({ held, refused, abandoned }));
`;

describe('the upload lock across processes', () => {
  it(`never has two holders: 6 processes taking it ${HOLDS} times each, releasing it or leaving it stale`, async () => {
    const dir = tmp();
    const worker = path.join(dir, 'worker.mjs');
    writeFileSync(worker, WORKER);
    const file = path.join(dir, 'locks', 'upload-x.lock');
    mkdirSync(path.dirname(file));
    const log = path.join(dir, 'log');
    writeFileSync(log, '');
    const go = path.join(dir, 'go');
    const dead = String(deadPid());
    const running = Promise.all(Array.from({ length: 6 }, () => run([worker, file, log, go, dead])));
    while (readdirSync(dir).filter((n) => n.startsWith('go.ready.')).length < 6) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(go, '');
    const results = await running;
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const tallies = results.map((r) => JSON.parse(r.stdout) as { held: number; refused: number; abandoned: number });
    // Holds strictly one after the other: +a -a +b -b ..., never +a +b.
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    let holder: string | undefined;
    for (const [i, l] of lines.entries()) {
      if (l.startsWith('+')) {
        expect(holder, `line ${i + 1}: ${l} while ${holder} holds`).toBeUndefined();
        holder = l.slice(1);
      } else {
        expect(l.slice(1), `line ${i + 1}`).toBe(holder);
        holder = undefined;
      }
    }
    const sum = (k: 'held' | 'refused' | 'abandoned'): number => tallies.reduce((s, t) => s + t[k], 0);
    expect(lines.length).toBe(2 * sum('held'));
    // The race was run: many holds, contention, and stale locks taken over.
    expect(sum('held')).toBe(6 * HOLDS);
    expect(sum('refused')).toBeGreaterThan(0);
    expect(sum('abandoned')).toBeGreaterThanOrEqual(1);
    expect(new Set(lines.map((l) => l.slice(1))).size).toBeGreaterThan(1);
  }, 120_000);

  it('is never read empty: the file holds its holder from the moment it exists', async () => {
    const dir = tmp();
    const file = path.join(dir, 'a.lock');
    const lock = await acquireUploadLock(file, { what: 'set "x"' });
    const info = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(info).toMatchObject({ pid: process.pid, host: os.hostname(), what: 'set "x"' });
    expect(typeof info.token).toBe('string');
    await expect(acquireUploadLock(file)).rejects.toThrow(`another upload into set "x" is running: pid ${process.pid}`);
    await lock.release();
    // Only the lock file was ever created in the folder (the temp file is linked, then removed).
    expect(readdirSync(dir)).toEqual([]);
  });

  it('lives in the state folder, one per service, processor and set name', () => {
    const env = { XDG_STATE_HOME: '/state' };
    const a = uploadLockPath('http://127.0.0.1:1', 'dp_1', 'set a', env);
    expect(path.dirname(a)).toBe('/state/evalkit/locks');
    expect(a).toMatch(/upload-[0-9a-f]{32}\.lock$/);
    expect(uploadLockPath('http://127.0.0.1:1', 'dp_1', 'set a', env)).toBe(a);
    expect(new Set([a, uploadLockPath('http://127.0.0.1:2', 'dp_1', 'set a', env), uploadLockPath('http://127.0.0.1:1', 'dp_2', 'set a', env), uploadLockPath('http://127.0.0.1:1', 'dp_1', 'set b', env)]).size).toBe(4);
    expect(path.dirname(uploadLockPath('s', 'p', 'n', { HOME: '/h' }))).toBe(path.join(os.homedir(), '.local/state/evalkit/locks'));
  });
});

const entry: HistoryEntry = {
  format: 'evalkit-history/1',
  time: '2026-01-02T03:04:05.678Z',
  commit: 'abcdef0123456789',
  branch: 'main',
  runId: null,
  evaluationSetId: null,
  source: 'run.json',
  type: 'EXTRACT',
  processor: { id: 'dp_1', name: 'P', version: '1.0' },
  documents: 4,
  failed: 0,
  headline: { 'micro.f1': 0.75 },
  fields: {},
  gates: { passed: true, results: [] },
};

describe('history appends at once', () => {
  it('10 concurrent appendHistory calls of one entry keep 10 entries', async () => {
    const dir = tmp();
    const files = await Promise.all(Array.from({ length: 10 }, () => appendHistory(dir, entry)));
    expect(new Set(files).size).toBe(10);
    const h = await readHistory(dir);
    expect(h.warnings).toEqual([]);
    expect(h.entries).toHaveLength(10);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('4 processes appending 5 entries each keep 20', async () => {
    const dir = tmp();
    const script = `import { appendHistory } from ${JSON.stringify(dist('history/store.js'))};
const entry = JSON.parse(process.argv.at(-1));
await Promise.all(Array.from({ length: 5 }, () => appendHistory(${JSON.stringify(dir)}, entry)));`;
    const results = await Promise.all(Array.from({ length: 4 }, () => run(['--input-type=module', '-e', script, JSON.stringify(entry)])));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const h = await readHistory(dir);
    expect(h.warnings).toEqual([]);
    expect(h.entries).toHaveLength(20);
  }, 30_000);
});
