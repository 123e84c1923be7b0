// `evalkit dataset upload` survives kill -9, lost journals, injected 500s and rate limits:
// re-running the same command finishes the upload, and every row is on the service exactly once.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { answerLosingProxy, docs, folder, json, service, SIMPLE, simpleCsv, type Service } from './dataset-helpers.js';

const ROWS = 30;
const FILES = 12;

let s: Service | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** What the CSV says the set must hold: one (file, expected output) per row. */
function wanted(rows = ROWS, files = FILES): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows; i++) out.push(JSON.stringify([`doc-${i % files}.txt`, { value: { invoice_number: `N-${i}`, total: { amount: i + 1.5, iso_4217_currency_code: 'EUR' } } }]));
  return out.sort();
}

async function held(svc: Service, setId: string): Promise<string[]> {
  return (await svc.items(setId)).map((i) => JSON.stringify([i.file, i.expectedOutput])).sort();
}

function journalLines(file: string): string[] {
  if (!existsSync(file)) return [];
  // A line torn by the kill does not count until it is whole.
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

function spawnUpload(env: Record<string, string>, args: string[], cwd: string) {
  const child = spawn(process.execPath, [BIN, 'dataset', 'upload', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let ended = false;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exited.then(() => (ended = true));
  return { child, exited, ended: () => ended, output: () => output };
}

/**
 * Starts the upload as a child process and kills it with SIGKILL as soon as the journal holds
 * a line the predicate picks (polled; nothing waits for a fixed time). Fails when the upload
 * ends before that point.
 */
async function killWhen(env: Record<string, string>, args: string[], cwd: string, journal: string, when: (lines: string[]) => boolean): Promise<string[]> {
  const run = spawnUpload(env, args, cwd);
  for (;;) {
    const lines = journalLines(journal);
    if (when(lines)) {
      run.child.kill('SIGKILL');
      await run.exited;
      return lines;
    }
    if (run.ended()) throw new Error(`the upload ended before the kill point:\n${run.output()}\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const count = (lines: string[], k: string, op: string) => lines.filter((l) => l.includes(`"k":"${k}","op":"${op}"`)).length;

/** The request that creates a chunk of items: 2026-02-09 (the default) nests it under the set; 2025-04-21 has a bulk route. */
const ITEM_CREATE = {
  '2026-02-09': (url: string) => /^\/evaluation_sets\/[^/?]+\/items(\?|$)/.test(url),
  '2025-04-21': (url: string) => url.startsWith('/evaluation_set_items/bulk'),
};
const FILE_UPLOAD = (url: string) => url.startsWith('/files/upload');

describe('kill -9 and resume', () => {
  // Each point: a predicate on the journal at which the CLI child is killed.
  const points: Array<[string, (lines: string[]) => boolean]> = [
    ['right after the set was created', (l) => count(l, 'set', 'done') === 1],
    ['after some files, before any item', (l) => count(l, 'file', 'done') >= 3],
    ['mid-items, after two chunks were created', (l) => count(l, 'create', 'done') >= 2],
  ];

  it.each(points)('killed %s: the re-run creates every missing row once and nothing twice', async (_name, when) => {
    // Latency widens every window between a request and its answer.
    s = await service({ latencyMs: 60 });
    const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
    const p = await s.processor('EXTRACT', SIMPLE);
    // --no-progress: a slow machine would otherwise print a progress line every 5 s.
    const args = ['data.csv', '--create-set', 'resume', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--format', 'json', '--no-progress'];
    const journal = path.join(dir, 'data.journal.ndjson');
    const atKill = await killWhen(s.env, args, dir, journal, when);
    expect(atKill.some((l) => l.includes('"k":"end"'))).toBe(false);

    const r = await s.upload(args, dir);
    // The only note: what the journal already knew.
    expect(r.stderr).toMatch(/^(evalkit: journal data\.journal\.ndjson: \d+ files already uploaded\n)?$/);
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.set.created).toBe(false);
    expect(await held(s, out.set.id)).toEqual(wanted());
    expect(out.tally.created + out.tally.unchanged).toBe(ROWS);
    // Uploads sent before the kill are found again (by the content tag in their names): one file per content.
    expect(await s.fileCount()).toBe(FILES);
    // One set, found again by name.
    let sets = 0;
    for await (const _ of s.client.sets.listAll({ entityId: p })) sets++;
    expect(sets).toBe(1);
  });

  it.each([
    ['an item create', ITEM_CREATE['2026-02-09']],
    ['a file upload', FILE_UPLOAD],
  ])('killed after the service did %s whose answer never came back: the re-run finds it and does not repeat it', async (what, route) => {
    s = await service({ latencyMs: 20 });
    const proxy = await answerLosingProxy(s.t.url, (method, url) => method === 'POST' && route(url));
    try {
      const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
      const p = await s.processor('EXTRACT', SIMPLE);
      const args = ['data.csv', '--create-set', 'lost', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--format', 'json'];
      const env = { ...s.env, EVALKIT_BASE_URL: proxy.url };
      const run = spawnUpload(env, args, dir);
      await proxy.held;
      run.child.kill('SIGKILL');
      await run.exited;
      const journal = journalLines(path.join(dir, 'data.journal.ndjson'));
      const setId = (JSON.parse(journal.find((l) => l.includes('"k":"set","op":"done"'))!) as { id: string }).id;
      const itemsBefore = (await s.items(setId)).length;
      if (what === 'an item create') {
        // The service holds the items of a create the journal never saw finish.
        expect(count(journal, 'create', 'start')).toBe(count(journal, 'create', 'done') + 1);
        expect(itemsBefore).toBe(4 * count(journal, 'create', 'start'));
      } else {
        expect(count(journal, 'file', 'start')).toBeGreaterThan(count(journal, 'file', 'done'));
      }
      const filesBefore = await s.fileCount();

      // The same command again, through the same address (the journal is per service address).
      const again = await runCli(['dataset', 'upload', ...args], { cwd: dir, env });
      expect(again.code).toBe(0);
      const out = json(again);
      expect(await held(s, out.set.id)).toEqual(wanted());
      expect(out.tally.created).toBe(ROWS - itemsBefore);
      // The upload that happened is found by its content tag and reused.
      expect(await s.fileCount()).toBe(FILES);
      expect(filesBefore).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('losing the journal too is safe: items are reconciled with the service, none is created twice', async () => {
    s = await service({ latencyMs: 20 });
    const proxy = await answerLosingProxy(s.t.url, (method, url) => method === 'POST' && ITEM_CREATE['2026-02-09'](url));
    try {
      const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
      const p = await s.processor('EXTRACT', SIMPLE);
      const args = ['data.csv', '--create-set', 'lost', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--format', 'json'];
      const env = { ...s.env, EVALKIT_BASE_URL: proxy.url };
      const run = spawnUpload(env, args, dir);
      await proxy.held;
      run.child.kill('SIGKILL');
      await run.exited;
      rmSync(path.join(dir, 'data.journal.ndjson'));
      const again = await runCli(['dataset', 'upload', ...args], { cwd: dir, env });
      expect(again.code).toBe(0);
      const out = json(again);
      expect(out.tally.created).toBeLessThan(ROWS);
      expect(await held(s, out.set.id)).toEqual(wanted());
    } finally {
      await proxy.close();
    }
  });
});

describe('--max-rps', () => {
  it('paces requests under a known rate limit: no 429 at all', async () => {
    s = await service({ rateLimit: 5 });
    const dir = folder({ 'data.csv': simpleCsv(12, 6), ...docs(6) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await runCli(['dataset', 'upload', 'data.csv', '--create-set', 'paced', '--processor', p, '--chunk-size', '4', '--concurrency', '8', '--max-rps', '4', '--format', 'json'], { cwd: dir, env: s.env });
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.tally).toMatchObject({ created: 12, rateLimited: 0, failed: 0 });
    expect(await held(s, out.set.id)).toEqual(wanted(12, 6));
  });
});

describe('Ctrl-C', () => {
  it('stops after the requests in flight, exits 130 and says to re-run; the re-run finishes', async () => {
    s = await service({ latencyMs: 60 });
    const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const args = ['data.csv', '--create-set', 'int', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--no-progress'];
    const journal = path.join(dir, 'data.journal.ndjson');
    const run = spawnUpload(s.env, args, dir);
    // Interrupt while a create is in flight (sent, answer not back: the latency keeps it there).
    const inFlight = (l: string[]) => count(l, 'create', 'done') >= 1 && count(l, 'create', 'start') > count(l, 'create', 'done');
    while (!inFlight(journalLines(journal))) {
      if (run.ended()) throw new Error(`the upload ended before the interrupt:\n${run.output()}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    run.child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => (run.child.exitCode !== null ? resolve(run.child.exitCode) : run.child.on('exit', (c) => resolve(c))));
    expect(code).toBe(130);
    expect(run.output()).toContain('stopping after the requests in flight');
    expect(run.output()).toContain('interrupted before the upload finished');
    const lines = journalLines(journal);
    // The create in flight ran to its answer, and so did every other request that went out.
    expect(count(lines, 'create', 'start')).toBe(count(lines, 'create', 'done'));
    expect(count(lines, 'file', 'start')).toBe(count(lines, 'file', 'done'));
    expect(lines.filter((l) => l.includes('"op":"fail"'))).toEqual([]);
    expect(lines.at(-1)).toContain('"k":"end"');

    const r = await runCli(['dataset', 'upload', ...args, '--format', 'json'], { cwd: dir, env: s.env });
    expect(r.code).toBe(0);
    expect(await held(s, json(r).set.id)).toEqual(wanted());
  });
});

describe('answers lost within one run', () => {
  // The 2025-04-21 row keeps the guarantee for a team pinned to that version: its bulk route is another request.
  it.each([
    ['an item create', 'default', ITEM_CREATE['2026-02-09']],
    ['a file upload', 'default', FILE_UPLOAD],
    ['a bulk create', '2025-04-21', ITEM_CREATE['2025-04-21']],
  ])('a connection dropped after the service did %s (API %s): the run asks the service instead of repeating it', async (_what, version, route) => {
    s = await service();
    const proxy = await answerLosingProxy(s.t.url, (method, url) => method === 'POST' && route(url), true);
    try {
      const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
      const p = await s.processor('EXTRACT', SIMPLE);
      const pin = version === 'default' ? [] : ['--api-version', version];
      const r = await runCli([...pin, 'dataset', 'upload', 'data.csv', '--create-set', 'drop', '--processor', p, '--chunk-size', '4', '--format', 'json'], { cwd: dir, env: { ...s.env, EVALKIT_BASE_URL: proxy.url } });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(route((await proxy.held).replace(/^POST /, ''))).toBe(true);
      const out = json(r);
      expect(out.tally).toMatchObject({ created: ROWS, failed: 0 });
      expect(await held(s, out.set.id)).toEqual(wanted());
      expect(await s.fileCount()).toBe(FILES);
    } finally {
      await proxy.close();
    }
  });
});

describe('a flaky, rate-limited service', () => {
  it('with 10% injected 500s and a rate limit of 6 requests/s, every row lands exactly once (and edits update once)', { timeout: 120_000 }, async () => {
    s = await service({ failRate: 0.1, rateLimit: 6, failSeed: 11 });
    const rows = 30;
    const files = 15;
    const dir = folder({ 'data.csv': simpleCsv(rows, files), ...docs(files) });
    const p = await s.processor('EXTRACT', SIMPLE);
    // More requests in flight than the limit allows per second: 429s must slow the upload, never fail it.
    const args = ['data.csv', '--create-set', 'flaky', '--processor', p, '--chunk-size', '5', '--concurrency', '8', '--no-progress', '--format', 'json'];
    const r = await s.upload(args, dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.tally).toMatchObject({ created: rows, failed: 0 });
    expect(out.tally.rateLimited).toBeGreaterThan(0);
    expect(await held(s, out.set.id)).toEqual(wanted(rows, files));

    // Edit every other row: each is updated once, the rest left as they are.
    const edited = simpleCsv(rows, files, (i) => (i % 2 ? `USD ${i}` : `EUR ${i + 1}.50`));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'data.csv'), edited);
    const again = await s.upload(args, dir);
    expect(again.code).toBe(0);
    expect(json(again).tally).toMatchObject({ created: 0, updated: rows / 2, unchanged: rows / 2, failed: 0 });
    const items = await s.items(out.set.id);
    expect(items.length).toBe(rows);
    for (const it of items) {
      const v = (it.expectedOutput as { value: { invoice_number: string; total: { amount: number; iso_4217_currency_code: string } } }).value;
      const i = Number(v.invoice_number.slice(2));
      expect(v.total).toEqual(i % 2 ? { amount: i, iso_4217_currency_code: 'USD' } : { amount: i + 1.5, iso_4217_currency_code: 'EUR' });
    }
  });
});
