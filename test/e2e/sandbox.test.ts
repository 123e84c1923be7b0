import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { BIN, cleanupAfterEach, runCli } from '../helpers/cli.js';

interface Running {
  child: ChildProcess;
  url: string;
  token?: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const { track, tmp } = cleanupAfterEach('e2e-sandbox');

/** Starts the built `evalkit sandbox` and resolves once it prints its URL. */
function launch(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let out = '';
  let errText = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => (errText += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url && out.includes('Ctrl-C')) resolve({ child, url, token: /dev token: (\S+)/.exec(out)?.[1], stdout: () => out, stderr: () => errText, exit });
    });
    void exit.then(({ code }) => reject(new Error(`sandbox exited early (${code}): ${errText}`)));
  });
}

describe('evalkit sandbox (built binary)', () => {
  test('prints the URL and dev token, serves requests, stops cleanly on SIGTERM (exit 0) and SIGINT (exit 130, as Ctrl-C)', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const s = await launch([]);
      expect(s.token).toMatch(/^sk_sandbox_/);
      expect(s.stdout()).toContain('API versions served: 2026-02-09 (extractors, classifiers, splitters; the official SDK 1.x) and 2025-04-21, 2024-12-23, 2024-11-14, 2024-07-30, 2024-02-01 (processors)');
      const r = await fetch(`${s.url}/processors`, { headers: { authorization: `Bearer ${s.token}`, 'x-service-api-version': '2025-04-21' } });
      expect(r.status).toBe(200);
      const current = await fetch(`${s.url}/extractors`, { headers: { authorization: `Bearer ${s.token}`, 'x-extend-api-version': '2026-02-09' } });
      expect(await current.json()).toEqual({ object: 'list', data: [] });
      s.child.kill(signal);
      expect(await s.exit).toEqual({ code: signal === 'SIGINT' ? 130 : 0, signal: null });
    }
  });

  test('a signal while a 2026-02-09 sync request waits stops cleanly (no timer touches the closed store)', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const s = await launch(['--engine-delay-ms', '20000']);
      const pending = fetch(`${s.url}/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'x-extend-api-version': '2026-02-09', 'content-type': 'application/json' },
        body: JSON.stringify({ file: { text: 'Invoice number: 5' } }),
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = Date.now();
      s.child.kill(signal);
      expect(await s.exit).toEqual({ code: signal === 'SIGINT' ? 130 : 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(5000);
      await pending;
      expect(s.stderr()).toContain('evalkit sandbox: stopped');
      expect(s.stderr()).not.toMatch(/TypeError|database connection|unexpected error/);
    }
  }, 30_000);

  test('--record to a path that cannot be written: exit 2 naming the path, before listening', async () => {
    const dir = tmp();
    const aFile = path.join(dir, 'a-file');
    writeFileSync(aFile, 'x');
    for (const [file, why] of [[path.join(aFile, 'r.jsonl'), `${aFile} is a file, not a folder`], ['/proc/nope/r.jsonl', 'cannot create the folder /proc/nope']] as const) {
      const r = await runCli(['sandbox', '--port', '0', '--record', file, '--upstream', 'http://127.0.0.1:9'], { env: { EVALKIT_API_TOKEN: 'sk_test_upstream' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot write the record file ${file}: ${why}`);
      expect(r.stderr).toContain('pass --record a path in a folder you can write');
      expect(r.stdout).not.toContain('listening on');
    }
  }, 30_000);

  test('--host 0.0.0.0: the banner shows the address it listens on, with a warning that other machines can reach it', async () => {
    const s = await launch(['--host', '0.0.0.0']);
    expect(s.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.stderr()).toContain('warning: listening on all interfaces, reachable from other machines');
    const port = new URL(s.url).port;
    const r = await fetch(`http://127.0.0.1:${port}/processors`, { headers: { authorization: `Bearer ${s.token}`, 'x-service-api-version': '2025-04-21' } });
    expect(r.status).toBe(200);
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
    const local = await launch([]);
    expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    local.child.kill('SIGTERM');
    await local.exit;
    expect(local.stderr()).not.toContain('warning');
  }, 30_000);

  test('with --tokens the token is not printed; file tokens work', async () => {
    const dir = tmp();
    const file = path.join(dir, 'tokens.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ token: 'sk_file_token_1234', createdAt: '2024-05-01' }] }));
    const s = await launch(['--tokens', file]);
    expect(s.token).toBeUndefined();
    expect(s.stdout()).not.toContain('sk_file_token_1234');
    const r = await fetch(`${s.url}/processors`, { headers: { authorization: 'Bearer sk_file_token_1234' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-api-version')).toBe('2024-12-23');
    s.child.kill('SIGTERM');
    expect((await s.exit).code).toBe(0);
  });

  test.each([
    [['--fail-rate', '2'], /--fail-rate must be a number from 0 to 1/],
    [['--host', '999.1.1.1'], /host 999\.1\.1\.1 cannot be resolved to an address[\s\S]*hint: pass --host an address of this machine/],
    [['--host', '10.254.254.254'], /host 10\.254\.254\.254 is not an address of this machine/],
    [['--rate-limit', '0'], /--rate-limit must be a number of requests per second > 0 \(got "0"\)/],
    [['--rate-limit', '-3'], /--rate-limit must be a number of requests per second > 0 \(got "-3"\)/],
    [['--rate-limit', 'abc'], /--rate-limit must be a number of requests per second > 0 \(got "abc"\)/],
    [['--rate-limit', '2e6'], /--rate-limit must be at most 1000000 requests per second \(got "2e6"\)/],
    [['--engine', 'bogus'], /unknown engine "bogus"/],
    [['--engine-concurrency', '0'], /--engine-concurrency must be an integer >= 1/],
    [['--tokens', '/nonexistent/tokens.json'], /cannot read tokens file/],
  ])('exit 2 for %j', async (args, msg) => {
    const r = await runCli(['sandbox', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
  });

  test('an invalid tokens file names the JSON pointer', async () => {
    const dir = tmp();
    const file = path.join(dir, 'tokens.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ token: 'short', createdAt: '2025-01-01' }] }));
    const r = await runCli(['sandbox', '--port', '0', '--tokens', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('at /tokens/0/token');
  });

  test('--help has examples, with the official SDK of both generations (1.17 for API 2026-02-09, 0.0.12 for 2025-04-21)', async () => {
    const r = await runCli(['sandbox', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--engine');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('SDK 1.17 (API 2026-02-09, sent as x-extend-api-version)');
    expect(r.stdout).toContain("await client.extract({ extractor: { id: extractor.id }, file: { text: 'Total: 7' } })");
    expect(r.stdout).toContain('SDK 0.0.12 (API 2025-04-21)');
    expect(r.stdout).toContain('client.processorRun.create(');
  });

  test('--data-dir whose sandbox.db is a folder: exit 2 saying so (not "may be damaged")', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'sandbox.db'));
    const r = await runCli(['sandbox', '--port', '0', '--data-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the sandbox store ${path.join(dir, 'sandbox.db')} is a folder, not a file`);
    expect(r.stderr).toContain('move the folder');
    expect(r.stderr).not.toContain('damaged');
  });

  test('a kill -9 under load leaves a consistent store; a restart finishes the work', async () => {
    const dir = tmp();
    const s = await launch(['--data-dir', dir, '--engine-delay-ms', '20', '--engine-concurrency', '2']);
    const h = { authorization: `Bearer ${s.token}`, 'x-service-api-version': '2025-04-21', 'content-type': 'application/json' };
    const post = async (p: string, body: unknown): Promise<Record<string, Record<string, string>>> =>
      (await (await fetch(s.url + p, { method: 'POST', headers: h, body: JSON.stringify(body) })).json()) as Record<string, Record<string, string>>;
    const pid = (await post('/processors', { name: 'p', type: 'CLASSIFY', config: { classifications: [{ id: 'a', type: 'a', description: 'A' }, { id: 'b', type: 'b', description: 'B' }] } })).processor.id;
    const fileId = (await post('/processor_runs', { processorId: pid, file: { fileName: 'x.txt', fileBase64: Buffer.from('x').toString('base64') } })).processorRun.files as unknown as Array<{ id: string }>;
    const set = (await post('/evaluation_sets', { name: 's', processorId: pid })).evaluationSet.id;
    await post('/evaluation_set_items/bulk', { evaluationSetId: set, items: Array.from({ length: 50 }, (_, i) => ({ fileId: fileId[0].id, expectedOutput: { id: i % 2 ? 'a' : 'b', type: i % 2 ? 'a' : 'b' } })) });
    // Batches (50 runs each, one transaction) keep arriving while the process is killed.
    const inflight: Array<Promise<unknown>> = [];
    for (let i = 0; i < 6; i++) inflight.push(post('/batch_processor_runs', { evaluationSetId: set }).catch(() => undefined));
    await inflight[2];
    s.child.kill('SIGKILL');
    await s.exit;
    await Promise.all(inflight);

    const db = new Database(path.join(dir, 'sandbox.db'));
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const batches = db.prepare('SELECT id, run_count, done_count FROM batch_processor_runs').all() as Array<{ id: string; run_count: number; done_count: number }>;
      expect(batches.length).toBeGreaterThan(0);
      for (const b of batches) {
        const runs = db.prepare("SELECT count(*) AS n, sum(status IN ('PROCESSED', 'FAILED')) AS done FROM processor_runs WHERE batch_id = ?").get(b.id) as { n: number; done: number };
        expect(runs.n).toBe(b.run_count);
        expect(runs.done ?? 0).toBe(b.done_count);
      }
    } finally {
      db.close();
    }

    const again = await launch(['--data-dir', dir, '--engine-delay-ms', '1', '--engine-concurrency', '8']);
    expect(again.token).toBe(s.token);
    const list = async (): Promise<Array<{ status: string }>> => {
      const r = await fetch(`${again.url}/batch_processor_runs`, { headers: h });
      return ((await r.json()) as { batchProcessorRuns: Array<{ status: string }> }).batchProcessorRuns;
    };
    let batches = await list();
    for (let i = 0; i < 200 && batches.some((b) => b.status === 'PROCESSING'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      batches = await list();
    }
    expect(batches.map((b) => b.status)).toEqual(batches.map(() => 'PROCESSED'));
    again.child.kill('SIGTERM');
    expect((await again.exit).code).toBe(0);
  });
});
