// Data safety of `evalkit dataset upload`: one upload of a CSV at a time, dry runs that check
// files as the upload does, honest "re-run to finish", and no stale rejects file.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FetchLike } from '../../src/api/index.js';
import { uploadDataset } from '../../src/dataset/index.js';
import { serviceKey } from '../../src/dataset/journal.js';
import { uploadLockPath } from '../../src/dataset/lock.js';
import { docs, folder, json, service, SIMPLE, simpleCsv, type Service } from '../e2e/dataset-helpers.js';
import { runCli } from '../helpers/cli.js';

let s: Service;
// The upload locks live in the state folder: this file's own, for the CLI runs (which inherit it) too.
const state = mkdtempSync(path.join(os.tmpdir(), 'evalkit-state-'));
const savedState = process.env.XDG_STATE_HOME;
beforeAll(async () => {
  process.env.XDG_STATE_HOME = state;
  s = await service();
});
afterAll(async () => {
  if (savedState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = savedState;
  rmSync(state, { recursive: true, force: true });
  await s.close();
});

/** Where an upload into the set `name` of `processorId` on the test service locks. */
function lockOf(processorId: string, name: string, url = s.t.url): string {
  const file = uploadLockPath(serviceKey(url), processorId, name);
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

async function sets(processorId: string, name: string): Promise<number> {
  let n = 0;
  for await (const set of s.client.sets.listAll({ entityId: processorId })) if (set.name === name) n++;
  return n;
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** Resolves once `ok()` holds (checked every 10 ms); rejects after `ms`. */
async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An HTTP proxy to `target` that holds every request until open() is called. */
async function gatedProxy(target: string): Promise<{ url: string; open(): void; close(): Promise<void> }> {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    void opened.then(() => {
      const up = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, open, close: () => new Promise((r) => server.close(() => r())) };
}

describe('two uploads of the same CSV at once', () => {
  it('the second refuses at once naming the holder; one set, no duplicate items', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(30), 'data.csv': simpleCsv(30, 30), 'config.json': JSON.stringify(SIMPLE) });
    const args = ['data.csv', '--create-set', 'twice', '--processor', pid, '--no-progress'];
    // The first upload talks to the service through a gate that holds its requests until the
    // second has finished: the two overlap for sure, however slowly either process starts. Both
    // name the service by the gate's address (the lock is per address).
    const gate = await gatedProxy(s.t.url);
    const lock = lockOf(pid, 'twice', gate.url);
    try {
      const env = { ...s.env, EVALKIT_BASE_URL: gate.url };
      const first = runCli(['dataset', 'upload', ...args], { cwd: dir, env });
      await until(() => existsSync(lock), 30_000);
      const second = await runCli(['dataset', 'upload', ...args], { cwd: dir, env });
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/another upload into set "twice" of processor dp_\w+ at http:\/\/127\.0\.0\.1:\d+ is running: pid \d+ on .+, started \d{4}-/);
      expect(second.stderr).toContain(lock);
      gate.open();
      const winner = await first;
      expect(winner.code, winner.stderr).toBe(0);
      expect(await sets(pid, 'twice')).toBe(1);
      const setId = /set (ev_\w+)/.exec(winner.stdout)![1];
      expect(await s.items(setId)).toHaveLength(30);
      expect(existsSync(lock)).toBe(false);
    } finally {
      gate.open();
      await gate.close();
    }
  });

  it('a lock held by a live process refuses; a stale lock of a dead process is taken over', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(2), 'data.csv': simpleCsv(2, 2) });
    const lock = lockOf(pid, 'locked');
    const live = JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() }) + '\n';
    writeFileSync(lock, live);
    const refused = await s.upload(['data.csv', '--create-set', 'locked', '--processor', pid], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`pid ${process.pid}`);
    expect(readFileSync(lock, 'utf8')).toBe(live);
    expect(await sets(pid, 'locked')).toBe(0);

    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: os.hostname(), startedAt: new Date(Date.now() - 60_000).toISOString() }) + '\n');
    const r = await s.upload(['data.csv', '--create-set', 'locked', '--processor', pid, '--format', 'json'], dir);
    expect(r.code).toBe(0);
    expect(json(r).tally.created).toBe(2);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('what the upload lock is on', () => {
  it('the set, however the run names it or wherever its journal is: --evaluation-set ID of the set a run of --create-set NAME holds refuses', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const setId = (await s.client.sets.create({ name: 'named', entityId: pid })).id;
    const dir = folder({ ...docs(2), 'data.csv': simpleCsv(2, 2) });
    writeFileSync(lockOf(pid, 'named'), JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() }) + '\n');
    const byId = await s.upload(['data.csv', '--evaluation-set', setId, '--journal', 'elsewhere.ndjson'], dir);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain(`pid ${process.pid}`);
    expect(await s.items(setId)).toHaveLength(0);
    // Another set name is another lock.
    const other = await s.upload(['data.csv', '--create-set', 'other', '--processor', pid], dir);
    expect(other.code, other.stderr).toBe(0);
  });

  it('goes where lockFile names (the demo: with its output), so a held default lock does not refuse it', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(2), 'data.csv': simpleCsv(2, 2), 'out/.keep': '' });
    const held = lockOf(pid, 'own');
    writeFileSync(held, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() }) + '\n');
    const common = { csv: path.join(dir, 'data.csv'), journal: false as const, createSet: { name: 'own', processorId: pid }, connect: (fetch: FetchLike) => createClient({ baseUrl: s.t.url, token: s.t.token, fetch }) };
    await expect(uploadDataset(common)).rejects.toThrow(/another upload into set "own" of processor .+ is running/);
    const r = await uploadDataset({ ...common, lockFile: path.join(dir, 'out', 'upload.lock') });
    expect(r.tally?.created).toBe(2);
    expect(existsSync(path.join(dir, 'out', 'upload.lock'))).toBe(false);
    expect(existsSync(held)).toBe(true);
  });
});

describe('30 uploads of one CSV at once (the built CLI, one sandbox)', () => {
  it('end with exactly one set holding every row once', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(20), 'data.csv': simpleCsv(20, 20) });
    const args = ['data.csv', '--create-set', 'thirty', '--processor', pid, '--no-progress'];
    const runs = await Promise.all(Array.from({ length: 30 }, () => s.upload(args, dir)));
    for (const r of runs) {
      // Done, or refused at once because another run held the set.
      if (r.code !== 0) expect(r.stderr, `exit ${r.code}`).toMatch(/another upload into set "thirty" .* is running/);
    }
    expect(runs.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    expect(await sets(pid, 'thirty')).toBe(1);
    let setId = '';
    for await (const set of s.client.sets.listAll({ entityId: pid })) if (set.name === 'thirty') setId = set.id;
    const items = await s.items(setId);
    expect(items).toHaveLength(20);
    expect(new Set(items.map((i) => i.file)).size).toBe(20);
  }, 180_000);
});

describe('the dry run checks every file as the upload would', () => {
  it('an empty file is an invalid row in the dry run and the upload alike (exit 2, nothing written)', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(2), 'files/empty.txt': '', 'data.csv': 'file,invoice_number,total\nfiles/doc-0.txt,A,EUR 1\nfiles/empty.txt,B,EUR 2\n', 'config.json': JSON.stringify(SIMPLE) });
    const dry = await s.upload(['data.csv', '--config', 'config.json', '--dry-run'], dir, undefined);
    expect(dry.code).toBe(2);
    expect(dry.stdout + dry.stderr).toMatch(/data\.csv:3:1 \(file\) file-empty: file "files\/empty\.txt" is empty/);
    const real = await s.upload(['data.csv', '--create-set', 'empty', '--processor', pid], dir);
    expect(real.code).toBe(2);
    expect(real.stderr).not.toContain('re-run');
    expect(await sets(pid, 'empty')).toBe(0);
  });

  it('"re-run to finish" is not said of a row the service refuses', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    // An extension the service does not take: offline nothing knows the service's list.
    const dir = folder({ 'files/a.txt': 'A', 'files/b.xyz': 'B', 'data.csv': 'file,invoice_number,total\nfiles/a.txt,A,EUR 1\nfiles/b.xyz,B,EUR 2\n' });
    const r = await s.upload(['data.csv', '--create-set', 'refused', '--processor', pid], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/failed upload-file line 3: .*unsupported file type/);
    expect(r.stderr).toContain('1 operation failed: the service refused it');
    expect(r.stderr).not.toContain('re-run the same command to finish');
  });
});

describe('a rejects file of an earlier run', () => {
  it('is renamed (and said so) once every row is valid', async () => {
    const pid = await s.processor('EXTRACT', SIMPLE);
    const dir = folder({ ...docs(2), 'data.csv': 'file,invoice_number,total\nfiles/doc-0.txt,A,EUR 1\nfiles/doc-1.txt,B,twelve\n' });
    const bad = await s.upload(['data.csv', '--create-set', 'rejects', '--processor', pid], dir);
    expect(bad.code).toBe(2);
    expect(existsSync(path.join(dir, 'data.rejects.csv'))).toBe(true);
    writeFileSync(path.join(dir, 'data.csv'), 'file,invoice_number,total\nfiles/doc-0.txt,A,EUR 1\nfiles/doc-1.txt,B,EUR 12\n');
    const good = await s.upload(['data.csv', '--create-set', 'rejects', '--processor', pid], dir);
    expect(good.code).toBe(0);
    expect(good.stderr).toContain('the earlier rejects file data.rejects.csv is stale, renamed to data.rejects.stale.csv');
    expect(existsSync(path.join(dir, 'data.rejects.csv'))).toBe(false);
    expect(readFileSync(path.join(dir, 'data.rejects.stale.csv'), 'utf8')).toContain('twelve');
    // A second stale rejects file does not replace the first (which may hold fixes typed into it).
    writeFileSync(path.join(dir, 'data.rejects.stale.csv'), 'my fixes\n', { flag: 'a' });
    writeFileSync(path.join(dir, 'data.csv'), 'file,invoice_number,total\nfiles/doc-0.txt,A,EUR 1\nfiles/doc-1.txt,B,thirteen\n');
    expect((await s.upload(['data.csv', '--create-set', 'rejects', '--processor', pid], dir)).code).toBe(2);
    writeFileSync(path.join(dir, 'data.csv'), 'file,invoice_number,total\nfiles/doc-0.txt,A,EUR 1\nfiles/doc-1.txt,B,EUR 13\n');
    const again = await s.upload(['data.csv', '--create-set', 'rejects', '--processor', pid], dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('renamed to data.rejects.stale-2.csv');
    expect(readFileSync(path.join(dir, 'data.rejects.stale.csv'), 'utf8')).toContain('my fixes');
    expect(readFileSync(path.join(dir, 'data.rejects.stale-2.csv'), 'utf8')).toContain('thirteen');
  });
});
