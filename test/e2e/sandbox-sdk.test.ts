/** `evalkit sandbox` flags of the SDK drop-in work (issue 15), through the built binary. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Extend} from 'extend-ai';
import { ExtendClient } from 'extend-ai';
import { BIN, cleanupAfterEach, runCli } from '../helpers/cli.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { INVOICE_CONFIG } from '../sandbox/helpers.js';

const { track, tmp } = cleanupAfterEach('e2e-sandbox-sdk');

interface Running {
  child: ChildProcess;
  url: string;
  token: string;
  stdout: () => string;
  exit: Promise<number | null>;
}

function launch(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const child = track(spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } }));
  let out = '';
  let errText = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (errText += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /dev token: (\S+)/.exec(out)?.[1];
      if (url && token && out.includes('Ctrl-C')) resolve({ child, url, token, stdout: () => out, exit });
    });
    void exit.then((code) => reject(new Error(`sandbox exited early (${code}): ${errText}`)));
  });
}

async function stop(s: Running): Promise<void> {
  s.child.kill('SIGTERM');
  expect(await s.exit).toBe(0);
}

describe('evalkit sandbox as a drop-in for the official SDK (built binary)', () => {
  test('the SDK works with only baseUrl and token changed; the version is echoed under the name it sent', async () => {
    const s = await launch(['--engine-delay-ms', '1']);
    try {
      const client = new ExtendClient({ baseUrl: s.url, token: s.token });
      const { data, rawResponse } = await client.processor.create({ name: 'p', type: 'CLASSIFY' }).withRawResponse();
      expect(data.processor.id).toMatch(/^dp_/);
      expect(rawResponse.headers.get('x-extend-api-version')).toBe('2025-04-21');
      const run = await client.processorRun.create({ processorId: data.processor.id, rawText: 'an invoice', sync: true });
      expect(run.processorRun.status).toBe('PROCESSED');
      expect(s.stdout()).toContain('Send "x-service-api-version: 2025-04-21" (or x-extend-api-version)');
    } finally {
      await stop(s);
    }
  });

  test('--version-header NAME (repeatable) replaces the accepted names', async () => {
    const s = await launch(['--version-header', 'X-Api-Version', '--version-header', 'x-other-version']);
    try {
      const h = { authorization: `Bearer ${s.token}` };
      const sdk = await fetch(`${s.url}/processors`, { headers: { ...h, 'x-extend-api-version': '2025-04-21' } });
      expect(sdk.status).toBe(400);
      expect(((await sdk.json()) as { error: string }).error).toMatch(/^missing header x-api-version or x-other-version:/);
      const ok = await fetch(`${s.url}/processors`, { headers: { ...h, 'x-other-version': '2025-04-21' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-other-version')).toBe('2025-04-21');
    } finally {
      await stop(s);
    }
  });

  test('--fault per route: 429 with Retry-After and X-RateLimit-Reset, 402, other routes untouched', async () => {
    const s = await launch(['--fault', 'status=429,rate=1,retryAfter=3,route=GET /processors', '--fault', 'status=402,route=POST /processor_runs']);
    try {
      expect(s.stdout()).toContain('fault: status=429,rate=1,retryAfter=3,route=GET /processors');
      const h = { authorization: `Bearer ${s.token}`, 'x-extend-api-version': '2025-04-21' };
      const limited = await fetch(`${s.url}/v1/processors`, { headers: h });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('3');
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 2);
      expect(await limited.json()).toEqual({ success: false, error: 'rate limit exceeded (injected fault status=429); retry the request' });
      const pay = await fetch(`${s.url}/processor_runs`, { method: 'POST', headers: h, body: '{}' });
      expect(pay.status).toBe(402);
      expect(((await pay.json()) as { error: string }).error).toMatch(/^payment required/);
      expect((await fetch(`${s.url}/workflow_runs`, { headers: h })).status).toBe(200);
      // The SDK types 402 on none of these calls: it still arrives as an ExtendError with the status.
      const e = await new ExtendClient({ baseUrl: s.url, token: s.token }).processorRun.create({ processorId: 'dp_x', rawText: 'x' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect((e as Extend.BadRequestError).statusCode).toBe(402);
    } finally {
      await stop(s);
    }
  });

  test.each([
    [['--fault', 'status=429,rate=2'], /--fault "status=429,rate=2": rate must be a probability from 0 to 1/],
    [['--fault', 'status=429,speed=2'], /unknown key "speed"/],
    [['--fault', 'status=200'], /status must be an HTTP error status/],
    [['--fault', 'status=500,route=processors'], /route "processors" must be \[METHOD \]\/path/],
    [['--version-header', 'bad header'], /"bad header" is not a valid HTTP header name/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const r = await runCli(['sandbox', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('--record FILE --upstream URL forwards with the token of EVALKIT_API_TOKEN; --engine replay:FILE answers the recorded outputs', async () => {
    const service = await startSandbox({ port: 0, engineDelayMs: 2 });
    const file = path.join(tmp(), 'recorded.jsonl');
    try {
      const rec = await launch(['--record', file, '--upstream', service.url], { EVALKIT_API_TOKEN: service.token, EVALKIT_BASE_URL: '' });
      expect(rec.stdout()).toContain(`record mode: forwarding to ${service.url}, writing ${file}`);
      expect(rec.stdout()).not.toContain(service.token);
      const client = new ExtendClient({ baseUrl: rec.url, token: rec.token });
      const p = await client.processor.create({ name: 'inv', type: 'EXTRACT', config: INVOICE_CONFIG as never });
      const run = await client.processorRun.create({ processorId: p.processor.id, rawText: 'Invoice number: E-1', sync: true });
      await stop(rec);
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(service.token);
      expect(text.trim().split('\n')).toHaveLength(1);

      const replay = await launch(['--engine', `replay:${file}`, '--engine-delay-ms', '1']);
      try {
        const c2 = new ExtendClient({ baseUrl: replay.url, token: replay.token });
        const p2 = await c2.processor.create({ name: 'inv', type: 'EXTRACT', config: INVOICE_CONFIG as never });
        const again = await c2.processorRun.create({ processorId: p2.processor.id, rawText: 'Invoice number: E-1', sync: true });
        expect(JSON.stringify(again.processorRun.output)).toBe(JSON.stringify(run.processorRun.output));
      } finally {
        await stop(replay);
      }
    } finally {
      await service.close();
    }
  });

  test('--engine replay:FILE takes an evaluation export', async () => {
    const file = path.join(tmp(), 'export.json');
    const output = { value: { invoice_number: 'X-9' }, metadata: {} };
    writeFileSync(file, JSON.stringify({
      format: 'evalkit-export/1',
      processor: { id: 'dp_real', name: 'inv', type: 'EXTRACT', version: '1.0', config: INVOICE_CONFIG },
      options: { fuzzyMatchFields: [], excludeFields: [] },
      items: [{ id: 'evi_1', fileId: 'file_real', fileName: 'x-9.txt', expectedOutput: { value: {} }, output, status: 'PROCESSED' }],
    }));
    const s = await launch(['--engine', `replay:${file}`, '--engine-delay-ms', '1']);
    try {
      const c = new ExtendClient({ baseUrl: s.url, token: s.token });
      const p = await c.processor.create({ name: 'inv', type: 'EXTRACT', config: INVOICE_CONFIG as never });
      const up = await c.file.upload(new File(['anything'], 'x-9.txt'));
      const run = await c.processorRun.create({ processorId: p.processor.id, file: { fileId: up.file.id }, sync: true });
      expect(run.processorRun.output).toEqual(output);
    } finally {
      await stop(s);
    }
  });

  test.each([
    [['--record', 'x.jsonl', '--upstream', 'http://127.0.0.1:9'], {}, /record mode needs the service's API token/],
    [['--record', 'x.jsonl'], { EVALKIT_API_TOKEN: 't' }, /record mode needs the service's base URL/],
    [['--record', 'x.jsonl', '--upstream', 'http://127.0.0.1:9', '--fault', 'status=500'], { EVALKIT_API_TOKEN: 't' }, /--fault is for the emulation/],
    [['--upstream', 'http://127.0.0.1:9'], {}, /--upstream is for record mode/],
  ])('%j is a usage error', async (args, env, message) => {
    const r = await runCli(['sandbox', '--port', '0', ...args], { env: { EVALKIT_API_TOKEN: '', EVALKIT_BASE_URL: '', ...env } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('--help shows an SDK example and the fault syntax', async () => {
    const r = await runCli(['sandbox', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  const client = new ExtendClient({ baseUrl: 'http://127.0.0.1:8787', token });\n");
    expect(r.stdout).toContain('--fault');
    expect(r.stdout).toContain('--version-header');
  });
});
